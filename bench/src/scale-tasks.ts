/**
 * The scale projection's timed steps, each in a fresh child process (child.ts): the full health
 * rebuild of a generated workspace, and the daily run the scheduler does (runner/src/jobs/
 * scheduler.ts: `recomputeHealth` from today for every client, then `pruneHistory`). Opening the
 * database (and migrating it) happens before the clock starts.
 */
import { createEngine, fixedClock, getSettings, pruneHistory, recomputeHealth, utcDay } from '@chs/core';
import { cpuMsSince, RssSampler } from './measure.js';

interface HealthStepArgs {
  /** SQLite file or PostgreSQL URL. */
  db: string;
  workspace: string;
  /** The data's "now" (ISO). */
  now: string;
  /** `daily`: what the scheduler does once a day; `full`: every client from its first day. */
  kind: 'full' | 'daily';
}

export interface HealthStepResult {
  kind: 'full' | 'daily';
  /** Opening the store (migrations included), not timed below. */
  openMs: number;
  /** recomputeHealth alone. */
  recomputeMs: number;
  clientsScored: number;
  snapshotsWritten: number;
  /** pruneHistory after the daily run (as the scheduler does); null for a full rebuild. */
  pruneMs: number | null;
  pruned: Record<string, number> | null;
  /** User + system CPU of the process over the timed part, all threads. */
  cpuMs: number;
  /** Peak RSS over the timed part: max of 25 ms samples and the kernel's VmHWM. */
  peakRssBytes: number;
}

export async function healthStepTask(a: HealthStepArgs): Promise<HealthStepResult> {
  const now = new Date(a.now);
  const t0 = performance.now();
  const engine = await createEngine({ database: a.db, clock: fixedClock(a.now) });
  try {
    const openMs = performance.now() - t0;
    const rss = new RssSampler();
    // The peak of opening the store is not the step's.
    rss.phase();
    const cpu = process.cpuUsage();
    const t1 = performance.now();
    const health = await recomputeHealth(engine.store.db, { workspaceId: a.workspace, now, ...(a.kind === 'daily' ? { fromDay: utcDay(now) } : {}) });
    const recomputeMs = performance.now() - t1;
    let pruneMs: number | null = null;
    let pruned: Record<string, number> | null = null;
    if (a.kind === 'daily') {
      const settings = await getSettings(engine.store.db, a.workspace);
      const t2 = performance.now();
      pruned = { ...(await pruneHistory(engine.store.db, a.workspace, settings.dataRetentionDays, now, now)) };
      pruneMs = performance.now() - t2;
    }
    const cpuMs = cpuMsSince(cpu);
    const peak = rss.stop();
    return {
      kind: a.kind,
      openMs,
      recomputeMs,
      clientsScored: health.clientsScored,
      snapshotsWritten: health.snapshotsWritten,
      pruneMs,
      pruned,
      cpuMs,
      peakRssBytes: Math.max(peak.sampledPeakBytes, peak.hwmBytes ?? 0),
    };
  } finally {
    await engine.close();
  }
}
