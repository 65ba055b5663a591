/**
 * Webhook endpoints (docs/events.md#endpoints): the only code that writes `webhook_endpoints`.
 * An endpoint is a URL, a kind (`standard`: signed Standard Webhooks; `slack`: an incoming webhook)
 * and the event types it chose. Its `whsec_` secret is shown once, at creation or rotation, and
 * sealed at rest like provider credentials; after a rotation the old one stays valid for a day.
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Db } from '../store/database.js';
import { ChsError, isChsError } from '../errors.js';
import { newId } from '../util/ids.js';
import { decryptSecret, encryptSecret, toSecretKey, type SecretKeyInput } from '../integrations/secrets.js';
import { EVENT_TYPES, type SubscribableEventType } from './catalogue.js';
import { endpointTypes, insertDelivery } from './deliveries.js';
import { recordEvent } from './outbox.js';

type Executor = Kysely<Database> | Transaction<Database>;

export const ENDPOINT_KINDS = ['standard', 'slack'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];
export const DISABLED_REASONS = ['user', 'gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** Endpoints per workspace. */
export const MAX_ENDPOINTS = 20;
/** How long a rotated-out secret still signs deliveries (Svix: 24 h). */
export const SECRET_GRACE_MS = 24 * 3_600_000;

export interface WebhookEndpoint {
  id: string;
  workspaceId: string;
  url: string;
  kind: EndpointKind;
  description: string | null;
  events: SubscribableEventType[];
  enabled: boolean;
  /** Why it is disabled: `user`, `gone` (the receiver answered 410), `failing` (failing for days). */
  disabledReason: DisabledReason | null;
  /** First failed delivery since the last success. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Which targets an operator allows (CHS_WEBHOOKS_ALLOW_PRIVATE, CHS_WEBHOOKS_ALLOW_HTTP). */
export interface TargetPolicy {
  /** Loopback, private, link-local and other non-public addresses (intranets, tests). Default false. */
  allowPrivate?: boolean;
  /** `http:` URLs. Default: only when allowPrivate. */
  allowHttp?: boolean;
  /** Name lookup (tests). Default: the system resolver. */
  resolve?: (host: string) => Promise<string[]>;
}

type EndpointRow = Database['webhook_endpoints'];

function toEndpoint(r: EndpointRow): WebhookEndpoint {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    url: r.url,
    kind: (ENDPOINT_KINDS as readonly string[]).includes(r.kind) ? (r.kind as EndpointKind) : 'standard',
    description: r.description,
    events: endpointTypes(r.events_json).filter((t): t is SubscribableEventType => t !== 'webhook.test'),
    enabled: r.enabled === 1,
    disabledReason: (DISABLED_REASONS as readonly string[]).includes(r.disabled_reason ?? '') ? (r.disabled_reason as DisabledReason) : null,
    failingSince: r.failing_since,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Why an address may not be a target, or null when it may: anything but a public unicast address. */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  return range === 'unicast' ? null : `${address} is a ${range} address`;
}

const defaultResolve = async (host: string): Promise<string[]> => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Checks a target URL: https (http only when allowed), no credentials in it, and (unless private
 * targets are allowed) every address its host resolves to is public. Deliveries check the address
 * again at every connection (dispatcher), since a name can be pointed elsewhere later.
 */
export async function checkTargetUrl(raw: string, policy: TargetPolicy = {}): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ChsError('INVALID_INPUT', `url: not a URL (${raw.slice(0, 200)})`);
  }
  const allowHttp = policy.allowHttp ?? policy.allowPrivate ?? false;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp))
    throw new ChsError('INVALID_INPUT', `url: must be https${allowHttp ? ' or http' : ''} (got ${url.protocol.replace(':', '')})`);
  if (url.username || url.password) throw new ChsError('INVALID_INPUT', 'url: must not carry a user name or password');
  if (raw.length > 2048) throw new ChsError('INVALID_INPUT', 'url: at most 2048 characters');
  if (policy.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (policy.resolve ?? defaultResolve)(host);
    } catch {
      throw new ChsError('INVALID_INPUT', `url: ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new ChsError('INVALID_INPUT', `url: ${host} does not resolve`);
  for (const a of addresses) {
    const why = refusedAddress(a);
    if (why)
      throw new ChsError(
        'INVALID_INPUT',
        `url: ${host} is not a public address (${why}); an operator can allow private targets with CHS_WEBHOOKS_ALLOW_PRIVATE=1`,
      );
  }
  return url;
}

function checkTypes(events: readonly string[]): SubscribableEventType[] {
  if (events.length === 0) throw new ChsError('INVALID_INPUT', 'events: choose at least one event type');
  const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length) throw new ChsError('INVALID_INPUT', `events: unknown type(s) ${unknown.join(', ')}; known: ${EVENT_TYPES.join(', ')}`);
  return [...new Set(events)] as SubscribableEventType[];
}

/** A new secret: `whsec_` + 32 random bytes in base64 (Standard Webhooks: 24–64 bytes). */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const binding = (workspaceId: string, endpointId: string) => ({ workspaceId, provider: `webhook:${endpointId}` });

export interface CreateEndpointInput {
  workspaceId: string;
  url: string;
  events: readonly string[];
  kind?: EndpointKind;
  description?: string | null;
}

/** Creates an endpoint; its secret is returned here only. */
export async function createEndpoint(
  db: Db,
  key: SecretKeyInput,
  input: CreateEndpointInput,
  policy: TargetPolicy = {},
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const kind = input.kind ?? 'standard';
  if (!(ENDPOINT_KINDS as readonly string[]).includes(kind)) throw new ChsError('INVALID_INPUT', `kind: one of ${ENDPOINT_KINDS.join(', ')}`);
  const types = checkTypes(input.events);
  const url = await checkTargetUrl(input.url, policy);
  const count = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', input.workspaceId)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= MAX_ENDPOINTS) throw new ChsError('CONFLICT', `a workspace has at most ${MAX_ENDPOINTS} webhook endpoints`);
  const id = newId('wh');
  const secret = newWebhookSecret();
  const now = new Date().toISOString();
  const row: EndpointRow = {
    id,
    workspace_id: input.workspaceId,
    url: url.toString(),
    kind,
    description: input.description?.slice(0, 500) ?? null,
    events_json: JSON.stringify(types),
    enabled: 1,
    disabled_reason: null,
    secret_enc: await encryptSecret(key, secret, binding(input.workspaceId, id)),
    previous_secret_enc: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('webhook_endpoints').values(row).execute();
  return { endpoint: toEndpoint(row), secret };
}

export async function listEndpoints(db: Executor, workspaceId: string): Promise<WebhookEndpoint[]> {
  const rows = await db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toEndpoint);
}

export async function getEndpoint(db: Executor, workspaceId: string, id: string): Promise<WebhookEndpoint | null> {
  const r = await db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r ? toEndpoint(r) : null;
}

function notFound(id: string): ChsError {
  return new ChsError('NOT_FOUND', `webhook endpoint ${id} not found`);
}

export interface UpdateEndpointInput {
  url?: string;
  events?: readonly string[];
  description?: string | null;
  /** true re-enables (and clears the failure streak); false disables (`user`). */
  enabled?: boolean;
}

export async function updateEndpoint(db: Db, workspaceId: string, id: string, patch: UpdateEndpointInput, policy: TargetPolicy = {}): Promise<WebhookEndpoint> {
  const current = await getEndpoint(db, workspaceId, id);
  if (!current) throw notFound(id);
  const url = patch.url !== undefined ? (await checkTargetUrl(patch.url, policy)).toString() : undefined;
  const types = patch.events !== undefined ? checkTypes(patch.events) : undefined;
  await db
    .updateTable('webhook_endpoints')
    .set({
      ...(url !== undefined ? { url } : {}),
      ...(types !== undefined ? { events_json: JSON.stringify(types) } : {}),
      ...(patch.description !== undefined ? { description: patch.description?.slice(0, 500) ?? null } : {}),
      ...(patch.enabled === true ? { enabled: 1, disabled_reason: null, failing_since: null } : {}),
      ...(patch.enabled === false ? { enabled: 0, disabled_reason: 'user' } : {}),
      updated_at: new Date().toISOString(),
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
  return (await getEndpoint(db, workspaceId, id))!;
}

/** Deletes an endpoint and its deliveries. False when there was none. */
export async function deleteEndpoint(db: Db, workspaceId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('webhook_deliveries').where('workspace_id', '=', workspaceId).where('endpoint_id', '=', id).execute();
    const r = await trx.deleteFrom('webhook_endpoints').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  });
}

/** A new secret; the current one keeps signing (beside it) for SECRET_GRACE_MS. Returned here only. */
export async function rotateEndpointSecret(
  db: Db,
  key: SecretKeyInput,
  workspaceId: string,
  id: string,
  now: Date = new Date(),
): Promise<{ endpoint: WebhookEndpoint; secret: string; previousValidUntil: string }> {
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(id);
  const secret = newWebhookSecret();
  const previousValidUntil = new Date(now.getTime() + SECRET_GRACE_MS).toISOString();
  await db
    .updateTable('webhook_endpoints')
    .set({
      secret_enc: await encryptSecret(key, secret, binding(workspaceId, id)),
      previous_secret_enc: row.secret_enc,
      previous_secret_expires_at: previousValidUntil,
      updated_at: now.toISOString(),
    })
    .where('id', '=', id)
    .execute();
  return { endpoint: (await getEndpoint(db, workspaceId, id))!, secret, previousValidUntil };
}

/** What the dispatcher needs to send to an endpoint: its target and the secrets that sign (newest first). */
export interface EndpointTarget {
  id: string;
  workspaceId: string;
  url: string;
  kind: EndpointKind;
  enabled: boolean;
  secrets: string[];
}

/** The endpoint's target with its secrets opened; null when it is gone. */
export async function endpointTarget(
  db: Executor,
  key: SecretKeyInput,
  id: string,
  now: Date = new Date(),
  cache?: Map<string, string>,
): Promise<EndpointTarget | null> {
  const r = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? openTarget(key, r, now, cache) : null;
}

/** The columns of an endpoint a delivery needs (a claim reads them with the delivery). */
export type EndpointTargetRow = Pick<
  EndpointRow,
  'id' | 'workspace_id' | 'url' | 'kind' | 'enabled' | 'secret_enc' | 'previous_secret_enc' | 'previous_secret_expires_at'
>;

/** The target of an endpoint row, its secrets opened (`cache`: sealed → plain, so a burst opens each once). */
export async function openTarget(key: SecretKeyInput, r: EndpointTargetRow, now: Date, cache?: Map<string, string>): Promise<EndpointTarget> {
  const open = async (sealed: string): Promise<string> => {
    const hit = cache?.get(sealed);
    if (hit) return hit;
    const plain = await decryptSecret(key, sealed, binding(r.workspace_id, r.id));
    cache?.set(sealed, plain);
    return plain;
  };
  const secrets = [await open(r.secret_enc)];
  const graceLeft = r.previous_secret_enc && r.previous_secret_expires_at && r.previous_secret_expires_at > now.toISOString();
  if (graceLeft) secrets.push(await open(r.previous_secret_enc!));
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    url: r.url,
    kind: (ENDPOINT_KINDS as readonly string[]).includes(r.kind) ? (r.kind as EndpointKind) : 'standard',
    enabled: r.enabled === 1,
    secrets,
  };
}

/** A delivery succeeded: the failure streak ends. */
export async function endpointSucceeded(db: Executor, id: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute();
}

/**
 * A delivery failed at `at`: starts the streak, and disables the endpoint (`failing`) once it has
 * failed without a success for `disableAfterMs`. Returns true when this call disabled it.
 */
export async function endpointFailed(db: Executor, id: string, at: Date, disableAfterMs: number): Promise<boolean> {
  const iso = at.toISOString();
  await db.updateTable('webhook_endpoints').set({ failing_since: iso }).where('id', '=', id).where('failing_since', 'is', null).execute();
  const limit = new Date(at.getTime() - disableAfterMs).toISOString();
  const r = await db
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_reason: 'failing', updated_at: iso })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .where('failing_since', '<=', limit)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The receiver said the endpoint is gone (410): disabled. Returns true when this call disabled it. */
export async function endpointGone(db: Executor, id: string): Promise<boolean> {
  const r = await db
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_reason: 'gone', updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Records a `webhook.test` event and one delivery of it to this endpoint (enabled or not: it is how one checks a receiver). */
export async function sendTestEvent(db: Db, workspaceId: string, id: string, now: Date = new Date()): Promise<{ eventId: string; deliveryId: string }> {
  return db.transaction().execute(async (trx) => {
    const ep = await getEndpoint(trx, workspaceId, id);
    if (!ep) throw notFound(id);
    const event = await recordEvent(trx, {
      workspaceId,
      type: 'webhook.test',
      occurredAt: now,
      data: { message: 'A test event from Customer Health Service: this endpoint receives and verifies deliveries.', endpointId: id },
    });
    const deliveryId = await insertDelivery(trx, workspaceId, id, event!);
    return { eventId: event!.id, deliveryId };
  });
}

/**
 * Re-seals every endpoint secret of the store under a new key (`chs secrets rotate`, in its
 * transaction). An endpoint already under the new key (a rotation run again after its transaction
 * committed) is left alone. Returns how many values were re-sealed.
 */
export async function resealEndpointSecrets(trx: Executor, from: SecretKeyInput, to: SecretKeyInput): Promise<number> {
  const fromKey = toSecretKey(from);
  const toKey = toSecretKey(to);
  const same = fromKey.equals(toKey);
  const rows = await trx.selectFrom('webhook_endpoints').select(['id', 'workspace_id', 'secret_enc', 'previous_secret_enc']).execute();
  let n = 0;
  for (const r of rows) {
    const b = binding(r.workspace_id, r.id);
    let plain: string;
    try {
      plain = await decryptSecret(fromKey, r.secret_enc, b);
    } catch (err) {
      if (same || !isChsError(err, 'CREDENTIALS_UNREADABLE') || err.details?.reason !== 'key') throw err;
      await decryptSecret(toKey, r.secret_enc, b).catch(() => {
        throw err;
      });
      continue;
    }
    const secret = await encryptSecret(toKey, plain, b);
    const previous = r.previous_secret_enc ? await encryptSecret(toKey, await decryptSecret(fromKey, r.previous_secret_enc, b), b) : null;
    await trx.updateTable('webhook_endpoints').set({ secret_enc: secret, previous_secret_enc: previous }).where('id', '=', r.id).execute();
    n += previous ? 2 : 1;
  }
  return n;
}
