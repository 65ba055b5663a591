/**
 * Estimates of jobs (estimatedDuration, estimatedCompletion, estimatedItems / estimatedRecords),
 * never constants: from the provider's count (a job's `totalItems` once the running job learns
 * it) and the measured throughput of the running job, else the throughput and duration of the
 * last completed job of the same source, else "unknown" (null). See docs/jobs.md#estimates.
 */
import { LIVE_STALE_MS, lastCompletedJob, lastRebuildMsPerClient, storedItemsPerDay, type Db, type Job } from '@chs/core';

/** What the last completed job of a source measured. */
export interface PastRun {
  itemsPerSecond: number;
  durationSeconds: number;
  items: number;
}

export interface JobEstimate {
  /** Seconds left; null when nothing is known. */
  remainingSeconds: number | null;
  /** ISO 8601; null when unknown. */
  completionAt: string | null;
  /** Where the estimate came from. */
  basis: 'done' | 'measured' | 'history' | 'unknown';
}

/**
 * Items read so far: the live counter while its attempt is alive (written in the last
 * LIVE_STALE_MS), else the stored count (an attempt that died leaves what it did not store to be
 * read again); never below the stored count.
 */
export function itemsRead(job: Job, now: Date): number {
  if (job.live && now.getTime() - Date.parse(job.live.at) > LIVE_STALE_MS) return job.itemsProcessed;
  // Search rows (HubSpot, Intercom) are not the stored items: an Intercom contact's companies are stored too.
  if (job.live?.readUnit === 'rows' && job.state === 'running') return job.itemsRead;
  return Math.max(job.itemsRead, job.itemsProcessed);
}

/**
 * The health rebuild's cost per client (ms) before this workspace has measured one: the order of
 * what a year of history costs here (50,000 messages over ~500 clients: ~12 ms on SQLite; 300
 * HubSpot companies: 8 ms on SQLite, 19 on PostgreSQL). Replaced by the workspace's own last
 * rebuild as soon as one was measured (lastRebuildMsPerClient).
 */
const REBUILD_MS_PER_CLIENT_PRIOR = 12;

/** Seconds the health rebuild still needs: all of it while reading (the clients touched so far), what is left of it while rebuilding. */
function rebuildSecondsLeft(job: Job, now: Date, msPerClient: number): number {
  const live = job.live;
  if (!live) return 0;
  if (live.phase === 'rebuilding' && live.rebuild) {
    const spent = now.getTime() - Date.parse(live.rebuild.startedAt);
    return Math.max(0, live.rebuild.clients * msPerClient - spent) / 1000;
  }
  return ((live.clients ?? 0) * msPerClient) / 1000;
}

/**
 * Items read per second by the running attempt, since it started (the attempt, not the job: a
 * job resumed after a crash or a park is measured on what it does now); undefined before it has
 * read anything. Without live counters (a job of an older runner), stored items since the job started.
 */
export function readRate(job: Job, now: Date): number | undefined {
  if (job.state !== 'running') return undefined;
  if (job.live) {
    const secs = (now.getTime() - Date.parse(job.live.attemptStartedAt)) / 1000;
    const read = itemsRead(job, now) - job.live.readAtStart;
    return secs > 0 && read > 0 ? read / secs : undefined;
  }
  if (!job.startedAt || job.itemsProcessed <= 0) return undefined;
  const secs = (now.getTime() - Date.parse(job.startedAt)) / 1000;
  return secs > 0 ? job.itemsProcessed / secs : undefined;
}

/** What a job waits on: parked on a provider's quota, or sleeping out its Retry-After; undefined when it is not waiting. */
export function waitingOn(job: Job, now: Date): { reason: string; until: string | null } | undefined {
  if (job.state === 'parked') return { reason: job.lastError ?? 'waiting on the provider', until: job.parkedUntil };
  const w = job.live?.waiting;
  if (job.state === 'running' && w && Date.parse(w.until) > now.getTime()) return { reason: w.reason, until: w.until };
  return undefined;
}

/** Percent read of the job's total (an estimate): 100 once completed, below 100 until then; null without a total. */
export function jobProgress(job: Job, now: Date): number | null {
  if (job.state === 'completed') return 100;
  if (job.totalItems === null) return null;
  if (job.totalItems <= 0) return job.state === 'failed' || job.state === 'cancelled' ? null : 0;
  const pct = Math.floor((itemsRead(job, now) / job.totalItems) * 1000) / 10;
  // Only the end of the job says 100: a total can be short (Gmail's is an estimate), and the health rebuild follows the read.
  return Math.min(99.9, pct);
}

/** The last completed job of (workspace, source) that processed something, preferring the same kind. */
export async function lastCompletedRun(db: Db, workspaceId: string, source: string, kind?: Job['kind']): Promise<PastRun | undefined> {
  const last = await lastCompletedJob(db, workspaceId, source, kind);
  if (!last) return undefined;
  const durationSeconds = Math.max(0.001, (Date.parse(last.completedAt) - Date.parse(last.startedAt)) / 1000);
  return { itemsPerSecond: last.itemsProcessed / durationSeconds, durationSeconds, items: last.itemsProcessed };
}

/**
 * Time left for a job: (totalItems − processed) / rate, the rate measured on the job itself when
 * it is running and has processed something, else the last completed run's. With no total yet, a
 * job that has not started is estimated at the last completed run's duration (the same kind of
 * work took that long last time).
 */
export function estimateJob(job: Job, now: Date, past: PastRun | undefined, rebuildMsPerClient = REBUILD_MS_PER_CLIENT_PRIOR): JobEstimate {
  if (job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled') {
    return { remainingSeconds: 0, completionAt: job.completedAt, basis: 'done' };
  }
  const measured = readRate(job, now);
  const rate = measured ?? past?.itemsPerSecond;
  const read = itemsRead(job, now);
  let remaining: number | null = null;
  if (job.live?.phase === 'rebuilding') {
    // The read is done; what is left is the health rebuild of the clients it touched.
    remaining = rebuildSecondsLeft(job, now, rebuildMsPerClient);
  } else if (job.totalItems !== null && rate !== undefined && rate > 0) {
    remaining = Math.max(0, job.totalItems - read) / rate + rebuildSecondsLeft(job, now, rebuildMsPerClient);
  } else if (read === 0 && past) {
    remaining = past.durationSeconds;
  }
  if (remaining === null) return { remainingSeconds: null, completionAt: null, basis: 'unknown' };
  // A job waiting on its provider (parked, or sleeping out a Retry-After) cannot go on before the wait ends.
  const until = waitingOn(job, now)?.until;
  const from = until ? Math.max(now.getTime(), Date.parse(until)) : now.getTime();
  return {
    remainingSeconds: Math.round(remaining * 10) / 10,
    completionAt: new Date(from + remaining * 1000).toISOString(),
    basis: measured !== undefined ? 'measured' : 'history',
  };
}

/** The workspace's measured rebuild cost per client (ms), else the prior. */
export async function rebuildCost(db: Db, workspaceId: string): Promise<number> {
  return (await lastRebuildMsPerClient(db, workspaceId)) ?? REBUILD_MS_PER_CLIENT_PRIOR;
}

/** Seconds as `"1h 5m"`, `"3m 20s"`, `"45s"`; `"unknown"` for null. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return 'unknown';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/**
 * Items a window of `days` should hold for a source, from the density of what is stored for it
 * (items per day over the span they cover). Undefined when nothing of that source is stored yet.
 */
export async function estimateItemsInWindow(db: Db, workspaceId: string, source: string, days: number): Promise<number | undefined> {
  const perDay = await storedItemsPerDay(db, workspaceId, source);
  return perDay === undefined ? undefined : Math.round(perDay * days);
}

/** Seconds to process `items` at the last completed run's throughput; undefined without one. */
export function secondsFor(items: number | undefined, past: PastRun | undefined): number | undefined {
  if (items === undefined || !past || past.itemsPerSecond <= 0) return undefined;
  return items / past.itemsPerSecond;
}
