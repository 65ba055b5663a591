/**
 * Provider connections of a workspace, over the `integrations` table. Credentials are stored only
 * as AES-256-GCM ciphertext bound to their row (secrets.ts); nothing here logs or returns them
 * except `getIntegrationCredentials`.
 */
import type { Db } from '../store/database.js';
import type { IntegrationsTable } from '../store/schema.js';
import { ChsError, isChsError } from '../errors.js';
import { newId } from '../util/ids.js';
import type { CredentialsByProvider, Provider } from '../connectors/types.js';
import { decryptSecret, encryptSecret, sealedVersion, toSecretKey, type SecretKeyInput } from './secrets.js';
import { isRecord, readJson, shape, type Guard } from '../util/json.js';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

const isGoogleCredentials = shape<CredentialsByProvider['google']>({
  accessToken: 'string', refreshToken: 'string?', clientId: 'string?', clientSecret: 'string?', expiresAt: 'string?', scope: 'string?', email: 'string?',
});
const isTokenCredentials = shape<CredentialsByProvider['hubspot']>({ accessToken: 'string' });
const CREDENTIALS: { [P in Provider]: Guard<CredentialsByProvider[P]> } = { google: isGoogleCredentials, hubspot: isTokenCredentials, intercom: isTokenCredentials };

export const INTEGRATION_STATES = ['connected', 'needs_reauth', 'disconnected'] as const;
export type IntegrationState = (typeof INTEGRATION_STATES)[number];

export interface Integration {
  id: string;
  workspaceId: string;
  provider: Provider;
  state: IntegrationState;
  accountEmail: string | null;
  scope: string | null;
  expiresAt: string | null;
  hasRefresh: boolean;
  /** Per-workspace connector configuration (base URL overrides, HubSpot property map…). */
  config: Record<string, unknown>;
  lastSyncAt: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The spec's integration status object (plus `state`, which tells needs-reauth apart). */
export interface IntegrationStatus {
  connected: boolean;
  provider: Provider;
  workspaceId: string;
  email: string | null;
  expiresAt: string | null;
  hasRefresh: boolean;
  lastSyncAt: string | null;
  scope: string | null;
  state: IntegrationState | 'not_connected';
}

export interface ConnectInput<P extends Provider = Provider> {
  workspaceId: string;
  provider: P;
  credentials: CredentialsByProvider[P];
  accountEmail?: string | undefined;
  scope?: string | undefined;
  /** ISO 8601. */
  expiresAt?: string | undefined;
  config?: Record<string, unknown> | undefined;
}

const nowIso = () => new Date().toISOString();

function toIntegration(r: IntegrationsTable): Integration {
  let config: Record<string, unknown> = {};
  try {
    if (r.config_json) config = readJson(r.config_json, isRecord, 'integrations.config_json');
  } catch {
    // A configuration that cannot be read is no configuration: the connector's defaults apply.
  }
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    provider: r.provider as Provider,
    state: r.status as IntegrationState,
    accountEmail: r.account_email,
    scope: r.scope,
    expiresAt: r.expires_at,
    hasRefresh: r.has_refresh === 1,
    config,
    lastSyncAt: r.last_sync_at,
    lastError: r.last_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function hasRefresh(credentials: object): boolean {
  const r = (credentials as { refreshToken?: unknown }).refreshToken;
  return typeof r === 'string' && r !== '';
}

/** Stores (or replaces) a workspace's connection to a provider; a reconnect clears needs-reauth. */
export async function connectIntegration<P extends Provider>(db: Db, key: SecretKeyInput, input: ConnectInput<P>): Promise<Integration> {
  if (!(input.credentials as { accessToken?: unknown }).accessToken) throw new ChsError('INVALID_INPUT', 'an access token is required');
  const at = nowIso();
  const values = {
    status: 'connected',
    account_email: input.accountEmail ?? null,
    credentials_enc: await encryptSecret(key, JSON.stringify(input.credentials), { workspaceId: input.workspaceId, provider: input.provider }),
    scope: input.scope ?? null,
    expires_at: input.expiresAt ?? null,
    has_refresh: hasRefresh(input.credentials) ? 1 : 0,
    last_error: null,
    updated_at: at,
    ...(input.config !== undefined ? { config_json: JSON.stringify(input.config) } : {}),
  };
  const existing = await db.selectFrom('integrations').select('id').where('workspace_id', '=', input.workspaceId).where('provider', '=', input.provider).executeTakeFirst();
  if (existing) {
    await db.updateTable('integrations').set(values).where('id', '=', existing.id).execute();
  } else {
    await db
      .insertInto('integrations')
      .values({ id: newId('int'), workspace_id: input.workspaceId, provider: input.provider, config_json: null, last_sync_at: null, created_at: at, ...values })
      .execute();
  }
  const row = await getIntegration(db, input.workspaceId, input.provider);
  if (!row) throw new ChsError('INTERNAL', 'integration vanished after being stored');
  return row;
}

export async function getIntegration(db: Db, workspaceId: string, provider: Provider): Promise<Integration | undefined> {
  const r = await db.selectFrom('integrations').selectAll().where('workspace_id', '=', workspaceId).where('provider', '=', provider).executeTakeFirst();
  return r ? toIntegration(r) : undefined;
}

export async function listIntegrations(db: Db, workspaceId: string): Promise<Integration[]> {
  const rows = await db.selectFrom('integrations').selectAll().where('workspace_id', '=', workspaceId).orderBy('provider').execute();
  return rows.map(toIntegration);
}

/** The decrypted credentials; INTEGRATION_NOT_CONNECTED when there is no live connection. */
export async function getIntegrationCredentials<P extends Provider>(db: Db, key: SecretKeyInput, workspaceId: string, provider: P): Promise<CredentialsByProvider[P]> {
  const r = await db.selectFrom('integrations').select(['status', 'credentials_enc']).where('workspace_id', '=', workspaceId).where('provider', '=', provider).executeTakeFirst();
  if (!r || r.status === 'disconnected' || r.credentials_enc === '') {
    throw new ChsError('INTEGRATION_NOT_CONNECTED', `${provider} is not connected for workspace ${workspaceId}`, { details: { provider, workspaceId } });
  }
  return readJson(await decryptSecret(key, r.credentials_enc, { workspaceId, provider }), CREDENTIALS[provider], `${provider} credentials`);
}

/** Replaces the stored credentials after a token refresh (the connector's `onTokens`). */
export async function updateIntegrationTokens<P extends Provider>(db: Db, key: SecretKeyInput, workspaceId: string, provider: P, credentials: CredentialsByProvider[P]): Promise<void> {
  const expiresAt = (credentials as { expiresAt?: unknown }).expiresAt;
  const scope = (credentials as { scope?: unknown }).scope;
  const credentials_enc = await encryptSecret(key, JSON.stringify(credentials), { workspaceId, provider });
  await db
    .updateTable('integrations')
    .set({
      credentials_enc,
      has_refresh: hasRefresh(credentials) ? 1 : 0,
      ...(typeof expiresAt === 'string' ? { expires_at: expiresAt } : {}),
      ...(typeof scope === 'string' ? { scope } : {}),
      updated_at: nowIso(),
    })
    .where('workspace_id', '=', workspaceId)
    .where('provider', '=', provider)
    .execute();
}

/** The credentials are dead: keep the row (and its checkpoint elsewhere) until a reconnect. */
export async function markNeedsReauth(db: Db, workspaceId: string, provider: Provider, reason: string): Promise<void> {
  await db
    .updateTable('integrations')
    .set({ status: 'needs_reauth', last_error: reason.slice(0, 1000), updated_at: nowIso() })
    .where('workspace_id', '=', workspaceId)
    .where('provider', '=', provider)
    .execute();
}

/** A sync finished with a problem the user should see in the integration (items it could not read). */
export async function recordIntegrationError(db: Executor, workspaceId: string, provider: Provider, message: string): Promise<void> {
  await db
    .updateTable('integrations')
    .set({ last_error: message.slice(0, 1000), updated_at: nowIso() })
    .where('workspace_id', '=', workspaceId)
    .where('provider', '=', provider)
    .execute();
}

/** Records a finished sync: `lastSyncAt` in the status, and clears the last error. */
export async function markIntegrationSynced(db: Db, workspaceId: string, provider: Provider, at: Date = new Date()): Promise<void> {
  await db
    .updateTable('integrations')
    .set({ last_sync_at: at.toISOString(), last_error: null, updated_at: nowIso() })
    .where('workspace_id', '=', workspaceId)
    .where('provider', '=', provider)
    .where('status', '=', 'connected')
    .execute();
}

/** Forgets the connection and its credentials. Resolves to whether there was one. */
export async function disconnectIntegration(db: Db, workspaceId: string, provider: Provider): Promise<boolean> {
  const r = await db.deleteFrom('integrations').where('workspace_id', '=', workspaceId).where('provider', '=', provider).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function integrationStatus(db: Db, workspaceId: string, provider: Provider): Promise<IntegrationStatus> {
  const i = await getIntegration(db, workspaceId, provider);
  if (!i) {
    return { connected: false, provider, workspaceId, email: null, expiresAt: null, hasRefresh: false, lastSyncAt: null, scope: null, state: 'not_connected' };
  }
  return {
    connected: i.state === 'connected',
    provider,
    workspaceId,
    email: i.accountEmail,
    expiresAt: i.expiresAt,
    hasRefresh: i.hasRefresh,
    lastSyncAt: i.lastSyncAt,
    scope: i.scope,
    state: i.state,
  };
}

export interface SecretRotation {
  /** Rows holding credentials. */
  rows: number;
  /** Rows re-sealed under the new key. */
  resealed: number;
  /** Of those, rows that were still in the legacy v1 format. */
  upgradedFromV1: number;
  /** Rows already sealed (v2) under the new key, left as they were (a rotation run again). */
  alreadyCurrent: number;
}

/**
 * Re-seals every stored credential, of every workspace, from key `from` to key `to` (v2 format),
 * in one transaction: either every row is under the new key afterwards, or nothing changed. A row
 * already under `to` is left alone, so an interrupted or repeated rotation can be run again. A
 * row that neither key opens, or that was copied from another row, fails the whole rotation
 * (CREDENTIALS_UNREADABLE names it); `chs disconnect` it, then rotate.
 * `from` equal to `to` re-seals every row under the same key (upgrades v1 values).
 */
export async function rotateIntegrationSecrets(db: Db, from: SecretKeyInput, to: SecretKeyInput): Promise<SecretRotation> {
  const oldKey = toSecretKey(from);
  const newKey = toSecretKey(to);
  const same = oldKey.equals(newKey);
  return db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('integrations').select(['id', 'workspace_id', 'provider', 'credentials_enc']).where('credentials_enc', '!=', '').orderBy('id').execute();
    const out: SecretRotation = { rows: rows.length, resealed: 0, upgradedFromV1: 0, alreadyCurrent: 0 };
    for (const r of rows) {
      const binding = { workspaceId: r.workspace_id, provider: r.provider };
      const version = sealedVersion(r.credentials_enc);
      let plaintext: string;
      try {
        plaintext = await decryptSecret(oldKey, r.credentials_enc, binding);
      } catch (err) {
        if (same || !isChsError(err, 'CREDENTIALS_UNREADABLE') || err.details?.reason !== 'key') throw err;
        plaintext = await decryptSecret(newKey, r.credentials_enc, binding).catch(() => {
          throw err;
        });
        if (version === 'v2') {
          out.alreadyCurrent += 1;
          continue;
        }
      }
      const credentials_enc = await encryptSecret(newKey, plaintext, binding);
      await trx.updateTable('integrations').set({ credentials_enc, updated_at: nowIso() }).where('id', '=', r.id).execute();
      out.resealed += 1;
      if (version === 'v1') out.upgradedFromV1 += 1;
    }
    return out;
  });
}
