/**
 * Large mailbox ingestion sessions (`ingestion_sessions`, the `/ingest/v2` API): the session is
 * the user's view of one `ingest` job — its configuration, the stats the job writes in every
 * batch's transaction, and how it ended. The only module that writes the table.
 *
 * The session id is the run id: the job that does the work has the same id, so `sessionId`
 * finds the run in `/ingest/status` and `/ingest/history` too.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database, IngestionSessionsTable } from '../store/schema.js';
import { arrayOf, readJson, shape } from '../util/json.js';
import { endedJobsBefore } from './repository.js';

type Executor = Kysely<Database> | Transaction<Database>;

export interface IngestionSessionConfig {
  workspaceId: string;
  sinceDays: number;
  maxEmails: number;
  batchSize: number;
  /** ISO 8601: now − sinceDays. */
  startDate: string;
}

/** Stats of a large ingestion, cumulative over every attempt of its job. */
export interface IngestionSessionStats {
  emailsProcessed: number;
  totalEmails: number;
  batchesCompleted: number;
  totalBatches: number;
  clientsIdentified: number;
  contactsCreated: number;
  interactionsCreated: number;
  errorsCount: number;
}

export interface IngestionSessionError {
  timestamp: string;
  message: string;
  recoverable: boolean;
}

/** Stored words: `initializing` (queued), `processing` (a worker took it), `completed`, `failed`. */
export type IngestionSessionStatus = 'initializing' | 'processing' | 'completed' | 'failed';

export interface IngestionSession {
  id: string;
  workspaceId: string;
  jobId: string | null;
  status: IngestionSessionStatus;
  config: IngestionSessionConfig;
  stats: IngestionSessionStats;
  errors: IngestionSessionError[];
  startedAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export const EMPTY_SESSION_STATS: Readonly<IngestionSessionStats> = Object.freeze({
  emailsProcessed: 0,
  totalEmails: 0,
  batchesCompleted: 0,
  totalBatches: 0,
  clientsIdentified: 0,
  contactsCreated: 0,
  interactionsCreated: 0,
  errorsCount: 0,
});

const isConfig = shape<IngestionSessionConfig>({ workspaceId: 'string', sinceDays: 'number', maxEmails: 'number', batchSize: 'number', startDate: 'string' });
const isStats = shape<Partial<IngestionSessionStats>>({
  emailsProcessed: 'number?',
  totalEmails: 'number?',
  batchesCompleted: 'number?',
  totalBatches: 'number?',
  clientsIdentified: 'number?',
  contactsCreated: 'number?',
  interactionsCreated: 'number?',
  errorsCount: 'number?',
});
/** Older rows kept `at` rather than `timestamp`. */
const isStoredError = shape<{ message: string; timestamp?: string; at?: string; recoverable?: boolean }>({
  message: 'string',
  timestamp: 'string?',
  at: 'string?',
  recoverable: 'boolean?',
});
const SESSION_STATUSES: readonly string[] = ['initializing', 'processing', 'completed', 'failed'];

function toSession(r: IngestionSessionsTable): IngestionSession {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    jobId: r.job_id,
    status: SESSION_STATUSES.includes(r.status) ? (r.status as IngestionSessionStatus) : 'processing',
    config: readJson(r.config_json, isConfig, 'ingestion_sessions.config_json'),
    stats: { ...EMPTY_SESSION_STATS, ...readJson(r.stats_json, isStats, 'ingestion_sessions.stats_json') },
    errors: readJson(r.errors_json, arrayOf(isStoredError), 'ingestion_sessions.errors_json').map((e) => ({
      timestamp: e.timestamp ?? e.at ?? r.updated_at,
      message: e.message,
      recoverable: e.recoverable ?? false,
    })),
    startedAt: r.started_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
  };
}

/** A new session's row: `initializing`, no stats yet; its job has the same id. */
export async function insertIngestionSession(db: Executor, id: string, config: IngestionSessionConfig, now: Date = new Date()): Promise<void> {
  const at = now.toISOString();
  await db
    .insertInto('ingestion_sessions')
    .values({
      id,
      workspace_id: config.workspaceId,
      job_id: id,
      status: 'initializing',
      config_json: JSON.stringify(config),
      stats_json: JSON.stringify(EMPTY_SESSION_STATS),
      errors_json: '[]',
      started_at: at,
      updated_at: at,
      completed_at: null,
    })
    .execute();
}

/** Forgets a session whose job could not be queued. */
export async function deleteIngestionSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('ingestion_sessions').where('id', '=', id).execute();
}

export async function getIngestionSession(db: Executor, id: string): Promise<IngestionSession | null> {
  const r = await db.selectFrom('ingestion_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toSession(r) : null;
}

/** The workspace's newest session, or null when none was started. */
export async function latestIngestionSession(db: Executor, workspaceId: string): Promise<IngestionSession | null> {
  const r = await db
    .selectFrom('ingestion_sessions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r ? toSession(r) : null;
}

/** A worker took the session's job (again). A session that already ended is left as it is. */
export async function markSessionProcessing(db: Executor, id: string, now: Date = new Date()): Promise<void> {
  await db
    .updateTable('ingestion_sessions')
    .set({ status: 'processing', updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('status', 'in', ['initializing', 'processing'])
    .execute();
}

/** Records the session's stats (call it inside the batch's transaction, so they move with the data). */
export async function recordSessionStats(db: Executor, id: string, stats: IngestionSessionStats, now: Date = new Date()): Promise<void> {
  await db
    .updateTable('ingestion_sessions')
    .set({ stats_json: JSON.stringify(stats), updated_at: now.toISOString() })
    .where('id', '=', id)
    .execute();
}

/** Ends a session once: `completed`, or `failed` with the error that ended it. An ended session is left as it is. */
export async function finishIngestionSession(
  db: Executor,
  id: string,
  ending: { status: 'completed' } | { status: 'failed'; error: string },
  now: Date = new Date(),
): Promise<void> {
  const at = now.toISOString();
  const current = await getIngestionSession(db, id);
  if (!current || current.status === 'completed' || current.status === 'failed') return;
  const errors = ending.status === 'failed' ? [...current.errors, { timestamp: at, message: ending.error, recoverable: false }] : current.errors;
  await db
    .updateTable('ingestion_sessions')
    .set({ status: ending.status, errors_json: JSON.stringify(errors), updated_at: at, completed_at: at })
    .where('id', '=', id)
    .where('status', 'in', ['initializing', 'processing'])
    .execute();
}

/** Deletes sessions that ended before `horizon`, or whose job is being pruned (retention; before the jobs go). */
export async function pruneSessions(trx: Transaction<Database>, workspaceId: string, horizon: string): Promise<number> {
  const r = await trx
    .deleteFrom('ingestion_sessions')
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb.or([eb('completed_at', '<', horizon), eb('job_id', 'in', endedJobsBefore(trx, workspaceId, horizon))]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
