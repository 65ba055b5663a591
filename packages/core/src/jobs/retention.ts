/**
 * Retention pruning (the scheduler's daily slot): what is older than the workspace's
 * `dataRetentionDays`, in one transaction, each table through the module that owns it.
 */
import type { Db } from '../store/database.js';
import { utcDay, DAY_MS } from '../util/time.js';
import { pruneSnapshots } from '../health/write.js';
import { pruneIngestionRuns } from '../ingest/runs.js';
import { pruneJobs } from './repository.js';
import { pruneSessions } from './sessions.js';
import { pruneDeliveries } from '../events/deliveries.js';
import { pruneEvents } from '../events/outbox.js';

/** Events and settled webhook deliveries are kept this long (a delivery log to look back on and redeliver from), whatever the data retention. */
export const EVENT_RETENTION_DAYS = 30;

export interface PruneCounts {
  jobs: number;
  jobEvents: number;
  ingestionErrors: number;
  ingestionRuns: number;
  ingestionSessions: number;
  healthSnapshots: number;
  /** Settled webhook deliveries and the events with none pending (EVENT_RETENTION_DAYS). */
  webhookDeliveries: number;
  events: number;
}

/**
 * Deletes finished jobs (with their events and sessions), ingestion errors and finished runs
 * older than `retentionDays` by the wall clock `now`, events and settled webhook deliveries older
 * than the shorter of that and EVENT_RETENTION_DAYS, and health snapshots dated before the
 * horizon of the data clock `dataNow` (CHS_NOW). Idempotent: several runners may repeat it.
 */
export async function pruneHistory(db: Db, workspaceId: string, retentionDays: number, now: Date, dataNow: Date): Promise<PruneCounts> {
  const horizon = new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
  const snapshotHorizon = utcDay(new Date(dataNow.getTime() - retentionDays * DAY_MS));
  return db.transaction().execute(async (trx) => {
    // Sessions point at their job: they go first.
    const ingestionSessions = await pruneSessions(trx, workspaceId, horizon);
    const { jobs, jobEvents } = await pruneJobs(trx, workspaceId, horizon);
    const { ingestionErrors, ingestionRuns } = await pruneIngestionRuns(trx, workspaceId, horizon);
    const healthSnapshots = await pruneSnapshots(trx, workspaceId, snapshotHorizon);
    // A pending delivery (still being retried) and its event are kept whatever their age.
    const eventHorizon = new Date(now.getTime() - Math.min(retentionDays, EVENT_RETENTION_DAYS) * DAY_MS).toISOString();
    const webhookDeliveries = await pruneDeliveries(trx, workspaceId, eventHorizon);
    const events = await pruneEvents(trx, workspaceId, eventHorizon);
    return { jobs, jobEvents, ingestionErrors, ingestionRuns, ingestionSessions, healthSnapshots, webhookDeliveries, events };
  });
}
