/**
 * The scheduler of `chs serve`, as one pure step `tick(now)` driven by a timer (and by a fake
 * clock in tests):
 * - a quick `sync` job per connected integration whose last sync (or last attempt) is older than
 *   the workspace's `syncIntervalMinutes`; a JOB_CONFLICT only means one is already active;
 * - once per local day of the workspace's time zone (the first tick after local midnight, and
 *   the first tick after start-up), the daily health snapshot and the pruning of history older
 *   than `dataRetentionDays`. Both are idempotent (snapshots are upserts; pruning deletes by a
 *   horizon), so several runners, or a restart, may repeat them harmlessly. The daily rebuild
 *   starts every stale client at its stale day (core health/stale.ts);
 * - on the other ticks, the health of a workspace left stale by a rebuild that did not finish (a
 *   full disk, a killed `chs ingest`, a lost database) and that nobody is writing to any more: no
 *   job of it running, no client marked for `staleQuietMs`. Exactly its stale clients are rebuilt,
 *   each from its stale day. A runner that starts does it on its first tick, with the daily work;
 * - then, when a notify hook is given, the workspace's alerts and due digests (the sent-log
 *   keeps each at most once across runners and restarts).
 */
import {
  enqueueJob,
  getSettings,
  isChsError,
  lastJobQueuedAt,
  listIntegrations,
  listWorkspaceIds,
  pruneHistory,
  localTime,
  recomputeHealth,
  silentLogger,
  toError,
  utcDay,
  workspacesWithStaleHealth,
  type Db,
  type Logger,
  type Provider,
  type PruneCounts,
} from '@chs/core';

export interface SchedulerOptions {
  db: Db;
  /** "Now" for the data (CHS_NOW): snapshot dates and the snapshot horizon. Default: the tick's `now`. */
  dataClock?: () => Date;
  logger?: Logger;
  /** Called after a job was queued (wakes the worker). Default none. */
  onEnqueued?: () => void;
  /** Alerts and digests (runner/src/notify), run per workspace after its daily work on every tick. Default none. */
  notify?: NotifyHook;
  /**
   * How long no client of a workspace may have been marked stale before the scheduler rebuilds its
   * stale health itself (ms): a writer still storing mail marks clients with every batch, and
   * rebuilds them itself when it is done. Default 5 minutes.
   */
  staleQuietMs?: number;
}

/** SchedulerOptions.staleQuietMs when not given. */
const STALE_QUIET_MS = 5 * 60_000;

/** Sends what is due for a workspace at `now` (wall clock); the sent-log keeps it at most once. */
export type NotifyHook = (workspaceId: string, now: Date) => Promise<{ sent: unknown[]; failed: unknown[] }>;

export interface TickReport {
  syncsQueued: Array<{ workspaceId: string; provider: Provider; jobId: string }>;
  daily: Array<{ workspaceId: string; localDay: string; clientsScored: number; snapshotsWritten: number; pruned: PruneCounts }>;
  /** Workspaces whose stale health this tick rebuilt (outside their daily work), with what it wrote. */
  redone: Array<{ workspaceId: string; clientsScored: number; snapshotsWritten: number }>;
  notified: Array<{ workspaceId: string; sent: number; failed: number }>;
  errors: Array<{ workspaceId: string; step: 'sync' | 'daily' | 'stale' | 'notify'; message: string }>;
}

export class Scheduler {
  readonly #db: Db;
  readonly #dataClock: (() => Date) | undefined;
  readonly #logger: Logger;
  readonly #onEnqueued: (() => void) | undefined;
  readonly #notify: NotifyHook | undefined;
  readonly #staleQuietMs: number;
  /** Workspace → the local day whose daily work is done (in memory; the work itself is idempotent). */
  readonly #dailyDone = new Map<string, string>();
  #ticking = false;

  constructor(options: SchedulerOptions) {
    this.#db = options.db;
    this.#dataClock = options.dataClock;
    this.#logger = options.logger ?? silentLogger;
    this.#onEnqueued = options.onEnqueued;
    this.#notify = options.notify;
    this.#staleQuietMs = options.staleQuietMs ?? STALE_QUIET_MS;
  }

  /** One pass over every workspace. Overlapping calls return an empty report (the previous pass is still running). */
  async tick(now: Date): Promise<TickReport> {
    const report: TickReport = { syncsQueued: [], daily: [], redone: [], notified: [], errors: [] };
    if (this.#ticking) return report;
    this.#ticking = true;
    try {
      const stale = new Set<string>();
      try {
        for (const w of await workspacesWithStaleHealth(this.#db, new Date(now.getTime() - this.#staleQuietMs))) stale.add(w.workspaceId);
      } catch (err) {
        report.errors.push({ workspaceId: '*', step: 'stale', message: toError(err).message });
      }
      for (const id of await listWorkspaceIds(this.#db)) {
        const settings = await getSettings(this.#db, id);
        try {
          await this.#syncs(id, settings.syncIntervalMinutes, now, report);
        } catch (err) {
          report.errors.push({ workspaceId: id, step: 'sync', message: toError(err).message });
        }
        const day = localTime(now, settings.timezone).day;
        if (this.#dailyDone.get(id) !== day) {
          try {
            const dataNow = this.#dataClock?.() ?? now;
            const health = await recomputeHealth(this.#db, { workspaceId: id, fromDay: utcDay(dataNow), now: dataNow });
            const pruned = await pruneHistory(this.#db, id, settings.dataRetentionDays, now, dataNow);
            this.#dailyDone.set(id, day);
            report.daily.push({ workspaceId: id, localDay: day, clientsScored: health.clientsScored, snapshotsWritten: health.snapshotsWritten, pruned });
          } catch (err) {
            report.errors.push({ workspaceId: id, step: 'daily', message: toError(err).message });
          }
        } else if (stale.has(id)) {
          // Not the daily work's day (which rebuilds stale clients with the rest): the stale ones alone.
          try {
            const health = await recomputeHealth(this.#db, { workspaceId: id, clientIds: [], includeStale: true, now: this.#dataClock?.() ?? now });
            report.redone.push({ workspaceId: id, clientsScored: health.clientsScored, snapshotsWritten: health.snapshotsWritten });
            this.#logger.info({ workspaceId: id, clientsScored: health.clientsScored }, 'rebuilt the health a rebuild had left unfinished');
          } catch (err) {
            report.errors.push({ workspaceId: id, step: 'stale', message: toError(err).message });
          }
        }
        if (!this.#notify) continue;
        try {
          const n = await this.#notify(id, now);
          if (n.sent.length || n.failed.length) report.notified.push({ workspaceId: id, sent: n.sent.length, failed: n.failed.length });
        } catch (err) {
          report.errors.push({ workspaceId: id, step: 'notify', message: toError(err).message });
        }
      }
    } finally {
      this.#ticking = false;
    }
    for (const e of report.errors) this.#logger.warn({ workspaceId: e.workspaceId, step: e.step, err: e.message }, 'scheduler step failed');
    if (report.syncsQueued.length) this.#onEnqueued?.();
    return report;
  }

  async #syncs(workspaceId: string, intervalMinutes: number, now: Date, report: TickReport): Promise<void> {
    const due = now.getTime() - intervalMinutes * 60_000;
    for (const integration of await listIntegrations(this.#db, workspaceId)) {
      if (integration.state !== 'connected') continue;
      // The last attempt counts too: a failing sync is retried once per interval, not every tick.
      const lastQueued = await lastJobQueuedAt(this.#db, workspaceId, integration.provider, 'sync');
      const last = [integration.lastSyncAt, lastQueued].filter((x): x is string => !!x).map((x) => Date.parse(x));
      if (last.length && Math.max(...last) > due) continue;
      try {
        const job = await enqueueJob(this.#db, { workspaceId, kind: 'sync', source: integration.provider, params: { mode: 'quick', scheduled: true } }, now);
        report.syncsQueued.push({ workspaceId, provider: integration.provider, jobId: job.id });
      } catch (err) {
        if (!isChsError(err, 'JOB_CONFLICT')) throw err;
      }
    }
  }
}
