/**
 * The delivery queue (docs/events.md#delivery): the only code that writes `webhook_deliveries`.
 * A delivery is one event for one endpoint. It is made in the event's transaction (fanOut), claimed
 * by any runner with a lease (claimDue), and settled by the attempt's outcome (settleAttempt):
 * delivered, retried later on a growing schedule, or failed for good. A runner killed
 * mid-attempt leaves a lease that expires; the next claim sends the same event (same webhook-id).
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Db } from '../store/database.js';
import { dialectOf } from '../store/dialect.js';
import { newId } from '../util/ids.js';
import { arrayOf, readJson, shape } from '../util/json.js';
import { isEventType, type AnyEngineEvent, type EventType } from './catalogue.js';
import { toEvent } from './rows.js';
import type { EndpointTargetRow } from './endpoints.js';

type Executor = Kysely<Database> | Transaction<Database>;

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * Delay before each retry, after the first attempt (made at once): the Standard Webhooks
 * example schedule, about three days in all (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h).
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400].map((s) => s * 1000));

export interface DeliveryAttempt {
  at: string;
  /** The receiver's HTTP status; null when none came (refused, timed out, address not allowed). */
  status: number | null;
  error: string | null;
  durationMs: number;
}

const isAttempt = shape<DeliveryAttempt>({ at: 'string', durationMs: 'number' });
/** Attempts kept per delivery (the newest). */
const ATTEMPTS_KEPT = 20;

export interface Delivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: EventType;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  history: DeliveryAttempt[];
}

type DeliveryRow = Database['webhook_deliveries'];

function toDelivery(r: Pick<DeliveryRow, keyof DeliveryRow>): Delivery {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: isEventType(r.event_type) ? r.event_type : 'webhook.test',
    state: (DELIVERY_STATES as readonly string[]).includes(r.state) ? (r.state as DeliveryState) : 'failed',
    attempts: r.attempts,
    nextAttemptAt: r.state === 'pending' ? r.next_attempt_at : null,
    lastStatus: r.last_status,
    lastError: r.last_error,
    lastAttemptAt: r.last_attempt_at,
    deliveredAt: r.delivered_at,
    createdAt: r.created_at,
    history: readJson(r.attempts_json, arrayOf(isAttempt), 'webhook_deliveries.attempts_json'),
  };
}

/** Subscribed types of an endpoint row. */
export function endpointTypes(eventsJson: string): EventType[] {
  return readJson(eventsJson, arrayOf(isEventType), 'webhook_endpoints.events_json');
}

/** One delivery of `event` to `endpointId`, due now (in `trx`). */
export async function insertDelivery(trx: Executor, workspaceId: string, endpointId: string, event: Pick<AnyEngineEvent, 'id' | 'type'>): Promise<string> {
  const now = new Date().toISOString();
  const id = newId('dlv');
  await trx
    .insertInto('webhook_deliveries')
    .values({
      id,
      workspace_id: workspaceId,
      endpoint_id: endpointId,
      event_id: event.id,
      event_type: event.type,
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      attempts_json: '[]',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

/** A delivery per enabled endpoint of the event's workspace that chose its type, in the event's transaction. */
export async function fanOut(trx: Executor, event: AnyEngineEvent): Promise<number> {
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'events_json'])
    .where('workspace_id', '=', event.workspaceId)
    .where('enabled', '=', 1)
    .execute();
  let n = 0;
  for (const e of endpoints) {
    if (!endpointTypes(e.events_json).includes(event.type)) continue;
    await insertDelivery(trx, event.workspaceId, e.id, event);
    n += 1;
  }
  return n;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  workspaceId: string;
  endpointId: string;
  eventId: string;
  /** Attempts made before this one. */
  attempts: number;
  /** When the delivery (and its event) was recorded. */
  createdAt: string;
  /** Its attempts so far (attempts_json when claimed: only the lease holder changes it). */
  historyJson: string;
  /** The event to send; null when it is no longer stored. */
  event: AnyEngineEvent | null;
  /** Its endpoint's target columns; null when the endpoint is gone. */
  endpoint: EndpointTargetRow | null;
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints (and test events, enabled or not) for
 * `owner`, with a lease of `leaseMs` (an attempt's timeout and some margin): pending, due, and not
 * leased by a live attempt.
 * PostgreSQL: rows another runner is claiming are skipped (SKIP LOCKED).
 */
export async function claimDue(
  db: Db,
  owner: string,
  leaseMs: number,
  limit: number,
  now: Date = new Date(),
  exceptEndpoints: ReadonlySet<string> = new Set(),
): Promise<ClaimedDelivery[]> {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  const pg = dialectOf(db) === 'postgres';
  return db.transaction().execute(async (trx) => {
    let pick = trx
      .selectFrom('webhook_deliveries as d')
      .leftJoin('events as ev', 'ev.id', 'd.event_id')
      .select(['d.id', 'd.workspace_id', 'd.endpoint_id', 'd.event_id', 'd.attempts', 'd.created_at', 'd.attempts_json'])
      .select(['ev.type as ev_type', 'ev.occurred_at as ev_occurred_at', 'ev.data_json as ev_data_json'])
      .leftJoin('webhook_endpoints as ep', 'ep.id', 'd.endpoint_id')
      .select([
        'ep.id as ep_id',
        'ep.url as ep_url',
        'ep.kind as ep_kind',
        'ep.enabled as ep_enabled',
        'ep.secret_enc as ep_secret_enc',
        'ep.previous_secret_enc as ep_previous_secret_enc',
        'ep.previous_secret_expires_at as ep_previous_secret_expires_at',
      ])
      .where('d.state', '=', 'pending')
      .where('d.next_attempt_at', '<=', at)
      .where((eb) => eb.or([eb('d.lease_expires_at', 'is', null), eb('d.lease_expires_at', '<', at)]))
      // A test event goes to a disabled endpoint too: "send test event" is how one checks a receiver before enabling it again.
      .where((eb) =>
        eb.or([
          eb('d.event_type', '=', 'webhook.test'),
          eb.exists(eb.selectFrom('webhook_endpoints as e').select('e.id').whereRef('e.id', '=', 'd.endpoint_id').where('e.enabled', '=', 1)),
        ]),
      );
    if (exceptEndpoints.size) pick = pick.where('d.endpoint_id', 'not in', [...exceptEndpoints]);
    pick = pick.orderBy('d.next_attempt_at').orderBy('d.id').limit(limit);
    const rows = await (pg ? pick.forUpdate('d').skipLocked() : pick).execute();
    if (rows.length === 0) return [];
    // One statement leases the batch; the rows are locked (PostgreSQL) or the transaction is the only writer (SQLite).
    const res = await trx
      .updateTable('webhook_deliveries')
      .set({ lease_owner: owner, lease_expires_at: lease, updated_at: at })
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .where('state', '=', 'pending')
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', at)]))
      .executeTakeFirst();
    let ours = rows;
    if (Number(res.numUpdatedRows) !== rows.length) {
      const leased = await trx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .where('lease_owner', '=', owner)
        .where('lease_expires_at', '=', lease)
        .execute();
      const ids = new Set(leased.map((r) => r.id));
      ours = rows.filter((r) => ids.has(r.id));
    }
    return ours.map((r) => ({
      id: r.id,
      workspaceId: r.workspace_id,
      endpointId: r.endpoint_id,
      eventId: r.event_id,
      attempts: r.attempts,
      createdAt: r.created_at,
      historyJson: r.attempts_json,
      event:
        r.ev_type && r.ev_occurred_at && r.ev_data_json
          ? toEvent({ id: r.event_id, workspace_id: r.workspace_id, type: r.ev_type, occurred_at: r.ev_occurred_at, data_json: r.ev_data_json })
          : null,
      endpoint:
        r.ep_id !== null && r.ep_url !== null && r.ep_kind !== null && r.ep_enabled !== null && r.ep_secret_enc !== null
          ? {
              id: r.ep_id,
              workspace_id: r.workspace_id,
              url: r.ep_url,
              kind: r.ep_kind,
              enabled: r.ep_enabled,
              secret_enc: r.ep_secret_enc,
              previous_secret_enc: r.ep_previous_secret_enc,
              previous_secret_expires_at: r.ep_previous_secret_expires_at,
            }
          : null,
    }));
  });
}

/** How an attempt ended, as the dispatcher judged it. */
export type AttemptVerdict =
  | { kind: 'delivered' }
  /** Try again no earlier than `notBefore` (Retry-After), else on the schedule. */
  | { kind: 'retry'; notBefore?: Date }
  /** Give up now (410, the endpoint is gone or was disabled). */
  | { kind: 'give_up' };

/**
 * Settles the attempt `owner` made: records it and moves the delivery to succeeded, failed, or
 * pending with its next time. False when the lease was lost meanwhile (another runner took over).
 */
export async function settleAttempt(
  db: Executor,
  claimed: Pick<ClaimedDelivery, 'id' | 'attempts' | 'historyJson'>,
  owner: string,
  attempt: DeliveryAttempt,
  verdict: AttemptVerdict,
  schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS,
): Promise<{ state: DeliveryState; nextAttemptAt: string | null } | null> {
  const attempts = claimed.attempts + 1;
  const history = [...readJson(claimed.historyJson, arrayOf(isAttempt), 'webhook_deliveries.attempts_json'), attempt].slice(-ATTEMPTS_KEPT);
  let state: DeliveryState = 'pending';
  let next: string | null = null;
  if (verdict.kind === 'delivered') state = 'succeeded';
  else if (verdict.kind === 'give_up' || attempts > schedule.length) state = 'failed';
  else {
    const scheduled = Date.parse(attempt.at) + attempt.durationMs + schedule[attempts - 1]!;
    next = new Date(Math.max(scheduled, verdict.notBefore?.getTime() ?? 0)).toISOString();
  }
  const now = new Date().toISOString();
  const res = await db
    .updateTable('webhook_deliveries')
    .set({
      state,
      attempts,
      ...(next ? { next_attempt_at: next } : {}),
      lease_owner: null,
      lease_expires_at: null,
      last_status: attempt.status,
      last_error: attempt.error,
      last_attempt_at: attempt.at,
      attempts_json: JSON.stringify(history),
      ...(state === 'succeeded' ? { delivered_at: now } : {}),
      updated_at: now,
    })
    .where('id', '=', claimed.id)
    // Only the attempt that still holds the lease records it.
    .where('lease_owner', '=', owner)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return null;
  return { state, nextAttemptAt: next };
}

/** Gives a claimed delivery back untried (the runner is stopping): due again at once. */
export async function releaseClaim(db: Executor, id: string, owner: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ lease_owner: null, lease_expires_at: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
}

export interface ListDeliveriesQuery {
  workspaceId: string;
  endpointId: string;
  state?: DeliveryState;
  limit?: number;
  offset?: number;
}

/** An endpoint's deliveries, newest first. */
export async function listDeliveries(db: Db, q: ListDeliveriesQuery): Promise<{ deliveries: Delivery[]; total: number }> {
  let base = db.selectFrom('webhook_deliveries').where('workspace_id', '=', q.workspaceId).where('endpoint_id', '=', q.endpointId);
  if (q.state) base = base.where('state', '=', q.state);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit ?? 50)
    .offset(q.offset ?? 0)
    .execute();
  return { deliveries: rows.map(toDelivery), total: Number(total.n) };
}

export async function getDelivery(db: Executor, workspaceId: string, id: string): Promise<Delivery | null> {
  const r = await db.selectFrom('webhook_deliveries').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r ? toDelivery(r) : null;
}

/**
 * Sends a delivery again (a redelivery by hand): due at once, with the same event id, so the
 * receiver can tell it has seen it. A pending one is simply made due now. Null when unknown.
 */
export async function redeliver(db: Db, workspaceId: string, endpointId: string, id: string): Promise<Delivery | null> {
  const now = new Date().toISOString();
  await db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', next_attempt_at: now, updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .execute();
  const d = await getDelivery(db, workspaceId, id);
  return d && d.endpointId === endpointId ? d : null;
}

/** Deliveries by state (for the metrics and the dispatcher's backlog). */
export async function deliveryBacklog(db: Db): Promise<{ pending: number; due: number; oldestDueAt: string | null }> {
  const now = new Date().toISOString();
  const r = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('next_attempt_at').as('oldest')])
    .where('state', '=', 'pending')
    .executeTakeFirstOrThrow();
  const due = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirstOrThrow();
  return { pending: Number(r.n), due: Number(due.n), oldestDueAt: r.oldest ?? null };
}

/** Retention: deletes settled deliveries created before `horizon` (ISO). */
export async function pruneDeliveries(trx: Transaction<Database>, workspaceId: string, horizon: string): Promise<number> {
  const r = await trx
    .deleteFrom('webhook_deliveries')
    .where('workspace_id', '=', workspaceId)
    .where('state', '!=', 'pending')
    .where('created_at', '<', horizon)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
