/**
 * The outbox (docs/events.md): the only code that writes `events`. An event is recorded in the
 * transaction of the change that causes it, with one delivery per webhook endpoint that chose its
 * type, so the change, the event and its deliveries commit or roll back together.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Db } from '../store/database.js';
import { dialectOf } from '../store/dialect.js';
import { newId } from '../util/ids.js';
import { isRecord, readJson } from '../util/json.js';
import { EVENT_VERSION, isEventType, type AnyEngineEvent, type EventData, type EventType } from './catalogue.js';
import { fanOut } from './deliveries.js';

type Executor = Kysely<Database> | Transaction<Database>;

export interface NewEvent<T extends EventType> {
  workspaceId: string;
  type: T;
  data: EventData<T>;
  /** When it happened (the engine's clock). */
  occurredAt: Date;
  /** The same key twice in a workspace is one event: the second is dropped. */
  dedupeKey?: string;
}

/** Records an event and its deliveries in `trx`. Returns it, or null when its dedupe key was taken. */
export async function recordEvent<T extends EventType>(trx: Executor, e: NewEvent<T>): Promise<AnyEngineEvent | null> {
  const id = newId('evt');
  const occurredAt = e.occurredAt.toISOString();
  let q = trx.insertInto('events').values({
    id,
    workspace_id: e.workspaceId,
    type: e.type,
    occurred_at: occurredAt,
    data_json: JSON.stringify(e.data),
    dedupe_key: e.dedupeKey ?? null,
    created_at: new Date().toISOString(),
  });
  if (e.dedupeKey !== undefined) q = q.onConflict((oc) => oc.columns(['workspace_id', 'dedupe_key']).doNothing());
  const res = await q.executeTakeFirst();
  if (Number(res.numInsertedOrUpdatedRows ?? 1n) === 0) return null;
  const event = { id, type: e.type, version: EVENT_VERSION, occurredAt, workspaceId: e.workspaceId, data: e.data } as AnyEngineEvent;
  await fanOut(trx, event);
  return event;
}

/** Where a reader of the outbox stands: the last (txid, seq) it has read. */
export interface OutboxCursor {
  txid: number;
  seq: number;
}

/** The position after every event recorded so far (a new reader starts there). */
export async function outboxEnd(db: Db): Promise<OutboxCursor> {
  const row = await db
    .selectFrom('events')
    .select(['txid', 'seq'])
    .orderBy('txid', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { txid: Number(row.txid), seq: Number(row.seq) } : { txid: 0, seq: 0 };
}

/**
 * Events after `cursor`, oldest first, at most `limit`. On PostgreSQL only rows whose writing
 * transaction has ended are read (txid below the oldest running transaction's), in (txid, seq)
 * order: a transaction that took an earlier seq but commits later is read when it commits, not
 * skipped. SQLite has one writer at a time, so seq is commit order.
 */
export async function readOutbox(db: Db, cursor: OutboxCursor, limit = 500): Promise<{ events: AnyEngineEvent[]; cursor: OutboxCursor }> {
  const pg = dialectOf(db) === 'postgres';
  let q = db.selectFrom('events').select(['seq', 'txid', 'id', 'workspace_id', 'type', 'occurred_at', 'data_json']);
  if (pg) {
    q = q
      .where(sql<boolean>`txid < (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint`)
      .where((eb) => eb.or([eb('txid', '>', cursor.txid), eb.and([eb('txid', '=', cursor.txid), eb('seq', '>', cursor.seq)])]))
      .orderBy('txid')
      .orderBy('seq');
  } else q = q.where('seq', '>', cursor.seq).orderBy('seq');
  const rows = await q.limit(limit).execute();
  const events: AnyEngineEvent[] = [];
  let next = cursor;
  for (const r of rows) {
    next = { txid: Number(r.txid), seq: Number(r.seq) };
    const e = toEvent(r);
    if (e) events.push(e);
  }
  return { events, cursor: next };
}

type EventRow = Pick<Database['events'], 'id' | 'workspace_id' | 'type' | 'occurred_at' | 'data_json'>;

/** A stored event as delivered; null for a type this version does not know (a newer runner's). */
function toEvent(r: EventRow): AnyEngineEvent | null {
  if (!isEventType(r.type)) return null;
  return {
    id: r.id,
    type: r.type,
    version: EVENT_VERSION,
    occurredAt: r.occurred_at,
    workspaceId: r.workspace_id,
    data: readJson(r.data_json, isRecord, 'events.data_json'),
  } as AnyEngineEvent;
}

/** One stored event by id, as delivered. */
export async function getEvent(db: Executor, id: string): Promise<AnyEngineEvent | null> {
  const r = await db.selectFrom('events').select(['id', 'workspace_id', 'type', 'occurred_at', 'data_json']).where('id', '=', id).executeTakeFirst();
  return r ? toEvent(r) : null;
}

/** Retention: deletes the workspace's events recorded before `horizon` (ISO) whose deliveries are all settled. */
export async function pruneEvents(trx: Transaction<Database>, workspaceId: string, horizon: string): Promise<number> {
  const r = await trx
    .deleteFrom('events')
    .where('workspace_id', '=', workspaceId)
    .where('created_at', '<', horizon)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries as d')
            .select('d.id')
            .whereRef('d.event_id', '=', 'events.id')
            .where('d.state', '=', 'pending'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
