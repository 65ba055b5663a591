/**
 * The outbox (docs/events.md): the only code that writes `events`. An event is recorded in the
 * transaction of the change that causes it, with one delivery per webhook endpoint that chose its
 * type, so the change, the event and its deliveries commit or roll back together.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Db } from '../store/database.js';
import { newId } from '../util/ids.js';
import { EVENT_VERSION, type AnyEngineEvent, type EventData, type EventType } from './catalogue.js';
import { fanOut } from './deliveries.js';
import { toEvent } from './rows.js';

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

/** The seq of the newest event recorded so far (a new reader starts after it); 0 when none. */
export async function outboxEnd(db: Db): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/** A stored event with its place in the outbox; `event` is null for a type this version does not know. */
export interface OutboxRow {
  seq: number;
  event: AnyEngineEvent | null;
}

const OUTBOX_COLUMNS = ['seq', 'id', 'workspace_id', 'type', 'occurred_at', 'data_json'] as const;

/**
 * Committed events after `afterSeq`, in seq order, at most `limit`. On PostgreSQL a transaction
 * may take a seq and commit after a later one: a reader that sees a gap looks for it again
 * (readOutboxSeqs) rather than taking it as lost.
 */
export async function readOutbox(db: Db, afterSeq: number, limit = 500): Promise<OutboxRow[]> {
  const rows = await db.selectFrom('events').select(OUTBOX_COLUMNS).where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
  return rows.map((r) => ({ seq: Number(r.seq), event: toEvent(r) }));
}

/** The events of these seqs that are committed now. */
export async function readOutboxSeqs(db: Db, seqs: readonly number[]): Promise<OutboxRow[]> {
  if (seqs.length === 0) return [];
  const rows = await db
    .selectFrom('events')
    .select(OUTBOX_COLUMNS)
    .where('seq', 'in', [...seqs])
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({ seq: Number(r.seq), event: toEvent(r) }));
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
      eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'events.id').where('d.state', '=', 'pending'))),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
