/**
 * Provider connections of a workspace, over the `integrations` table. Credentials are stored only
 * as AES-256-GCM ciphertext bound to their row (secrets.ts); nothing here logs or returns them
 * except `getIntegrationCredentials`.
 */
import type { Db } from '../store/database.js';
import { recordEvent } from '../events/outbox.js';
import { resealEndpointSecrets } from '../events/endpoints.js';
import type { IntegrationsTable } from '../store/schema.js';
import { ChsError, isChsError } from '../errors.js';
import { newId } from '../util/ids.js';
import type { CredentialsByProvider, Provider, ServiceAccountKey } from '../connectors/types.js';
import { decryptSecret, encryptSecret, sealedVersion, toSecretKey, type SecretKeyInput } from './secrets.js';
import { isRecord, readJson, shape, type Guard } from '../util/json.js';
import type { ExpressionBuilder, Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

const isGoogleFields = shape<CredentialsByProvider['google']>({
  accessToken: 'string',
  refreshToken: 'string?',
  clientId: 'string?',
  clientSecret: 'string?',
  expiresAt: 'string?',
  scope: 'string?',
  email: 'string?',
  serviceAccount: 'object?',
});
const isServiceAccountKey = shape<ServiceAccountKey>({ clientEmail: 'string', privateKey: 'string', privateKeyId: 'string?' });
const isGoogleCredentials: Guard<CredentialsByProvider['google']> = (v): v is CredentialsByProvider['google'] =>
  isGoogleFields(v) && (v.serviceAccount === undefined || isServiceAccountKey(v.serviceAccount));
const isTokenCredentials = shape<CredentialsByProvider['intercom']>({ accessToken: 'string' });
const isHubSpotCredentials = shape<CredentialsByProvider['hubspot']>({
  accessToken: 'string',
  refreshToken: 'string?',
  clientId: 'string?',
  clientSecret: 'string?',
  expiresAt: 'string?',
});
const CREDENTIALS: { [P in Provider]: Guard<CredentialsByProvider[P]> } = {
  google: isGoogleCredentials,
  hubspot: isHubSpotCredentials,
  intercom: isTokenCredentials,
};

export const INTEGRATION_STATES = ['connected', 'needs_reauth', 'disconnected'] as const;
export type IntegrationState = (typeof INTEGRATION_STATES)[number];

export interface Integration {
  id: string;
  workspaceId: string;
  provider: Provider;
  /** The account within (workspace, provider): the lower-cased mailbox address for Google, '' for HubSpot and Intercom. */
  account: string;
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

/** One connected account (a Google mailbox) in the status: `accounts[]`, an engine extension. */
export interface IntegrationAccountStatus {
  /** The mailbox address (Google); '' for HubSpot and Intercom. */
  account: string;
  email: string | null;
  state: IntegrationState;
  lastSyncAt: string | null;
  /** The last sync problem of this account (needs reauth, unreadable items), null when the last sync was clean. */
  lastError: string | null;
  expiresAt: string | null;
  hasRefresh: boolean;
  connectedAt: string;
}

/**
 * The spec's integration status object (plus `state`, which tells needs-reauth apart, and
 * `accounts`). With several accounts (Google mailboxes) the spec's fields describe the workspace:
 * `connected` when any account is; `email`, `expiresAt`, `hasRefresh`, `scope` of the first account
 * connected; `lastSyncAt` the oldest of the connected accounts' (every one was synced since).
 */
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
  accounts: IntegrationAccountStatus[];
}

export interface ConnectInput<P extends Provider = Provider> {
  workspaceId: string;
  provider: P;
  /**
   * Which account this is. Default: Google, the lower-cased address (`accountEmail`, else
   * `credentials.email`), so each mailbox is its own row; HubSpot and Intercom, '' (one per workspace).
   */
  account?: string | undefined;
  credentials: CredentialsByProvider[P];
  accountEmail?: string | undefined;
  scope?: string | undefined;
  /** ISO 8601. */
  expiresAt?: string | undefined;
  config?: Record<string, unknown> | undefined;
}

const nowIso = () => new Date().toISOString();

function toIntegration(r: Selectable<IntegrationsTable>): Integration {
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
    account: r.account,
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

/** Whether new access tokens can be had without the user: a refresh token, or a service account's key. */
function hasRefresh(credentials: object): boolean {
  const c = credentials as { refreshToken?: unknown; serviceAccount?: unknown };
  return (typeof c.refreshToken === 'string' && c.refreshToken !== '') || (typeof c.serviceAccount === 'object' && c.serviceAccount !== null);
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
  const account = accountOf(input);
  const existing = await db
    .selectFrom('integrations')
    .select('id')
    .where('workspace_id', '=', input.workspaceId)
    .where('provider', '=', input.provider)
    .where('account', '=', account)
    .executeTakeFirst();
  if (existing) {
    await db.updateTable('integrations').set(values).where('id', '=', existing.id).execute();
  } else {
    await db
      .insertInto('integrations')
      .values({
        id: newId('int'),
        workspace_id: input.workspaceId,
        provider: input.provider,
        account,
        config_json: null,
        last_sync_at: null,
        created_at: at,
        ...values,
      })
      .execute();
  }
  const row = (await listIntegrationAccounts(db, input.workspaceId, input.provider)).find((i) => i.account === account);
  if (!row) throw new ChsError('INTERNAL', 'integration vanished after being stored');
  return row;
}

/** The account a connection is stored under (see ConnectInput.account). */
function accountOf(input: ConnectInput): string {
  if (input.account !== undefined) return input.account.toLowerCase();
  if (input.provider !== 'google') return '';
  const email = input.accountEmail ?? (input.credentials as { email?: unknown }).email;
  return typeof email === 'string' ? email.toLowerCase() : '';
}

type Filter = { workspaceId: string; provider: Provider; account?: string | undefined };

/** One workspace's provider, and one account when given (else every account). */
const scoped = (f: Filter) => (eb: ExpressionBuilder<Database, 'integrations'>) =>
  eb.and([
    eb('workspace_id', '=', f.workspaceId),
    eb('provider', '=', f.provider),
    ...(f.account !== undefined ? [eb('account', '=', f.account.toLowerCase())] : []),
  ]);

/** Every account of a provider in a workspace (Google: one per mailbox), oldest first. */
export async function listIntegrationAccounts(db: Executor, workspaceId: string, provider: Provider): Promise<Integration[]> {
  const rows = await db
    .selectFrom('integrations')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('provider', '=', provider)
    .orderBy('created_at')
    .orderBy('account')
    .execute();
  return rows.map(toIntegration);
}

/**
 * The workspace's connection to a provider as one: its first account, with `state` connected when
 * any account is (else needs_reauth when any is) and `lastSyncAt` the oldest of the connected
 * accounts' (null while one was never synced).
 */
function combine(accounts: Integration[]): Integration | undefined {
  const first = accounts[0];
  if (!first) return undefined;
  const connected = accounts.filter((a) => a.state === 'connected');
  const primary = connected[0] ?? accounts.find((a) => a.state === 'needs_reauth') ?? first;
  const syncs = connected.map((a) => a.lastSyncAt);
  const lastSyncAt = connected.length === 0 ? primary.lastSyncAt : syncs.includes(null) ? null : (syncs as string[]).reduce((a, b) => (a < b ? a : b));
  return { ...primary, lastSyncAt };
}

/** The workspace's connection to a provider, its accounts combined (see combine); one account's with `account`. */
export async function getIntegration(db: Db, workspaceId: string, provider: Provider, account?: string): Promise<Integration | undefined> {
  const accounts = await listIntegrationAccounts(db, workspaceId, provider);
  return combine(account === undefined ? accounts : accounts.filter((a) => a.account === account.toLowerCase()));
}

/** One entry per connected provider, its accounts combined (see getIntegration). */
export async function listIntegrations(db: Db, workspaceId: string): Promise<Integration[]> {
  const rows = (
    await db
      .selectFrom('integrations')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('provider')
      .orderBy('created_at')
      .orderBy('account')
      .execute()
  ).map(toIntegration);
  const out: Integration[] = [];
  for (const provider of new Set(rows.map((r) => r.provider))) {
    const one = combine(rows.filter((r) => r.provider === provider));
    if (one) out.push(one);
  }
  return out;
}

/**
 * The decrypted credentials of one account (default: the first connected); INTEGRATION_NOT_CONNECTED
 * when there is no live connection.
 */
export async function getIntegrationCredentials<P extends Provider>(
  db: Db,
  key: SecretKeyInput,
  workspaceId: string,
  provider: P,
  account?: string,
): Promise<CredentialsByProvider[P]> {
  const rows = await db
    .selectFrom('integrations')
    .select(['status', 'credentials_enc'])
    .where(scoped({ workspaceId, provider, account }))
    .orderBy('created_at')
    .orderBy('account')
    .execute();
  const r = rows.find((x) => x.status === 'connected') ?? rows[0];
  if (!r || r.status === 'disconnected' || r.credentials_enc === '') {
    throw new ChsError('INTEGRATION_NOT_CONNECTED', `${provider} is not connected for workspace ${workspaceId}`, { details: { provider, workspaceId } });
  }
  return readJson(await decryptSecret(key, r.credentials_enc, { workspaceId, provider }), CREDENTIALS[provider], `${provider} credentials`);
}

/** Replaces the stored credentials after a token refresh (the connector's `onTokens`). */
export async function updateIntegrationTokens<P extends Provider>(
  db: Db,
  key: SecretKeyInput,
  workspaceId: string,
  provider: P,
  credentials: CredentialsByProvider[P],
  account?: string,
): Promise<void> {
  const expiresAt = (credentials as { expiresAt?: unknown }).expiresAt;
  const scope = (credentials as { scope?: unknown }).scope;
  const credentials_enc = await encryptSecret(key, JSON.stringify(credentials), { workspaceId, provider });
  const update = db.updateTable('integrations').set({
    credentials_enc,
    has_refresh: hasRefresh(credentials) ? 1 : 0,
    ...(typeof expiresAt === 'string' ? { expires_at: expiresAt } : {}),
    ...(typeof scope === 'string' ? { scope } : {}),
    updated_at: nowIso(),
  });
  await update.where(scoped({ workspaceId, provider, account })).execute();
}

/** The credentials are dead: keep the row (and its checkpoint elsewhere) until a reconnect. Every account without `account`. */
export async function markNeedsReauth(db: Db, workspaceId: string, provider: Provider, reason: string, account?: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Accounts that were fine until now: each is announced once (integration.needs_reauth), in this transaction.
    const turning = await trx
      .selectFrom('integrations')
      .select(['account'])
      .where(scoped({ workspaceId, provider, account }))
      .where('status', '<>', 'needs_reauth')
      .execute();
    await trx
      .updateTable('integrations')
      .set({ status: 'needs_reauth', last_error: reason.slice(0, 1000), updated_at: nowIso() })
      .where(scoped({ workspaceId, provider, account }))
      .execute();
    for (const r of turning)
      await recordEvent(trx, {
        workspaceId,
        type: 'integration.needs_reauth',
        occurredAt: new Date(),
        data: { provider, account: r.account || null, reason: reason.slice(0, 1000) },
      });
  });
}

/**
 * HubSpot's settings, kept in its integration's configuration (`config_json`, beside the sealed
 * credentials; a reconnect keeps them, a disconnect forgets them).
 */
export interface HubSpotSettings {
  /**
   * The deal pipeline whose closed deals are renewal outcomes: closed won → `renewed`, closed lost →
   * `churned`, dated by the deal's close date. Its HubSpot id (`default`, or a number such as
   * `12345678`: Settings → Objects → Deals → Pipelines). Default null: no deal is read.
   */
  renewalPipelineId: string | null;
}

const isHubSpotConfig = shape<{ renewalPipelineId?: string }>({ renewalPipelineId: 'string?' });

/** The HubSpot settings an integration's configuration holds; one that does not have their shape is none (the defaults apply). */
export function hubspotSettings(config: Readonly<Record<string, unknown>>): HubSpotSettings {
  const c = isHubSpotConfig(config) ? config : {};
  return { renewalPipelineId: c.renewalPipelineId || null };
}

/** HubSpot's pipeline ids: `default`, digits, or an id HubSpot made; never blank, never spaced. */
const PIPELINE_ID = /^[A-Za-z0-9_.:-]{1,100}$/;

/** The workspace's HubSpot settings; INTEGRATION_NOT_CONNECTED when HubSpot was never connected (or was disconnected). */
export async function getHubSpotSettings(db: Db, workspaceId: string): Promise<HubSpotSettings> {
  const i = await getIntegration(db, workspaceId, 'hubspot');
  if (!i) throw new ChsError('INTEGRATION_NOT_CONNECTED', `hubspot is not connected for ${workspaceId}`, { details: { provider: 'hubspot', workspaceId } });
  return hubspotSettings(i.config);
}

/**
 * Changes the workspace's HubSpot settings (the members given; `renewalPipelineId: null` unmaps the
 * pipeline: no deal is read from then on, and the outcomes already recorded stay). The next sync
 * reads a newly mapped pipeline's deals from the start. INVALID_INPUT for a malformed id,
 * INTEGRATION_NOT_CONNECTED when HubSpot is not connected.
 */
export async function updateHubSpotSettings(db: Db, workspaceId: string, patch: Partial<HubSpotSettings>): Promise<HubSpotSettings> {
  const id = patch.renewalPipelineId;
  if (id !== undefined && id !== null && !PIPELINE_ID.test(id))
    throw new ChsError('INVALID_INPUT', `renewalPipelineId must be a HubSpot pipeline id (letters, digits, "_", "-", ".", ":"; at most 100), got "${id}"`);
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('integrations')
      .selectAll()
      .where(scoped({ workspaceId, provider: 'hubspot' }))
      .execute();
    if (rows.length === 0)
      throw new ChsError('INTEGRATION_NOT_CONNECTED', `hubspot is not connected for ${workspaceId}`, { details: { provider: 'hubspot', workspaceId } });
    let settings: HubSpotSettings | undefined;
    for (const r of rows) {
      const { renewalPipelineId: old, ...rest } = toIntegration(r).config;
      const kept = id === undefined && typeof old === 'string' ? { renewalPipelineId: old } : {};
      const config = { ...rest, ...kept, ...(typeof id === 'string' ? { renewalPipelineId: id } : {}) };
      await trx
        .updateTable('integrations')
        .set({ config_json: JSON.stringify(config), updated_at: nowIso() })
        .where('id', '=', r.id)
        .execute();
      settings ??= hubspotSettings(config);
    }
    return settings ?? { renewalPipelineId: null };
  });
}

/** A sync finished with a problem the user should see in the integration (items it could not read). */
export async function recordIntegrationError(db: Executor, workspaceId: string, provider: Provider, message: string, account?: string): Promise<void> {
  await db
    .updateTable('integrations')
    .set({ last_error: message.slice(0, 1000), updated_at: nowIso() })
    .where(scoped({ workspaceId, provider, account }))
    .execute();
}

/** Records a finished sync: `lastSyncAt` in the status, and clears the last error. */
export async function markIntegrationSynced(db: Db, workspaceId: string, provider: Provider, at: Date = new Date(), account?: string): Promise<void> {
  await db
    .updateTable('integrations')
    .set({ last_sync_at: at.toISOString(), last_error: null, updated_at: nowIso() })
    .where(scoped({ workspaceId, provider, account }))
    .where('status', '=', 'connected')
    .execute();
}

/** Forgets the connection and its credentials (one account's with `account`, else every account's). Resolves to whether there was one. */
export async function disconnectIntegration(db: Db, workspaceId: string, provider: Provider, account?: string): Promise<boolean> {
  const r = await db.deleteFrom('integrations').where(scoped({ workspaceId, provider, account })).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function integrationStatus(db: Db, workspaceId: string, provider: Provider): Promise<IntegrationStatus> {
  const all = await listIntegrationAccounts(db, workspaceId, provider);
  const i = combine(all);
  if (!i) {
    return {
      connected: false,
      provider,
      workspaceId,
      email: null,
      expiresAt: null,
      hasRefresh: false,
      lastSyncAt: null,
      scope: null,
      state: 'not_connected',
      accounts: [],
    };
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
    accounts: all.map((a) => ({
      account: a.account,
      email: a.accountEmail,
      state: a.state,
      lastSyncAt: a.lastSyncAt,
      lastError: a.lastError,
      expiresAt: a.expiresAt,
      hasRefresh: a.hasRefresh,
      connectedAt: a.createdAt,
    })),
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
  /** Webhook signing secrets (an endpoint's, and its previous one during a rotation's grace) re-sealed in the same transaction. */
  webhookSecrets: number;
}

/**
 * Re-seals every stored credential, of every workspace, from key `from` to key `to` (v2 format),
 * in one transaction: either every row is under the new key afterwards, or nothing changed. A row
 * already under `to` is left alone, so an interrupted or repeated rotation can be run again. A
 * row that neither key opens, or that was copied from another row, fails the whole rotation
 * (CREDENTIALS_UNREADABLE names it); `chs disconnect` it, then rotate.
 * `from` equal to `to` re-seals every row under the same key (upgrades v1 values).
 * The webhook endpoints' signing secrets, sealed with the same key, are re-sealed in the same
 * transaction (resealEndpointSecrets).
 */
export async function rotateIntegrationSecrets(db: Db, from: SecretKeyInput, to: SecretKeyInput): Promise<SecretRotation> {
  const oldKey = toSecretKey(from);
  const newKey = toSecretKey(to);
  const same = oldKey.equals(newKey);
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('integrations')
      .select(['id', 'workspace_id', 'provider', 'credentials_enc'])
      .where('credentials_enc', '!=', '')
      .orderBy('id')
      .execute();
    const out: SecretRotation = { rows: rows.length, resealed: 0, upgradedFromV1: 0, alreadyCurrent: 0, webhookSecrets: 0 };
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
    out.webhookSecrets = await resealEndpointSecrets(trx, oldKey, newKey);
    return out;
  });
}
