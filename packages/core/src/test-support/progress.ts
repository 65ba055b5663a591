/**
 * How a job's progress looked to someone watching it: samples of a status endpoint taken while
 * the job ran, and the figures a user judges them by (docs/jobs.md#live-progress) — how soon a
 * total showed, how much of the run the bar sat strictly between 0 and 100, whether it ever went
 * back, and how far the ETA shown at the middle of the run was from the real end. Used by the
 * end-to-end tests and the Gmail benchmark alike.
 */

/** One look at the status, `at` ms after the job was started. */
export interface ProgressSample {
  at: number;
  status: string;
  /** 0-100. */
  progress: number;
  total: number | null;
  read: number;
  stored: number;
  /** The estimated end, in ms after the start (as `at`); null when the status gave none. */
  eta: number | null;
  waiting: boolean;
}

export interface ProgressJudgement {
  samples: number;
  /** ms after the start of the first sample that showed a total; null when none did. */
  firstTotalMs: number | null;
  /** Of the samples while the job was running (or queued/parked), the share with 0 < progress < 100. */
  shareBetween: number;
  /** Times the progress went down from one sample to the next (before `restartAt`). */
  backwards: number;
  /** Distinct progress values seen while running. */
  distinct: number;
  /** The ETA shown by the sample nearest the middle of the run, as an error relative to the run's duration (0.1 = 10 %); null without one. */
  etaErrorAtMid: number | null;
  /** The same over every sample of the second half of the run: the worst. */
  etaErrorWorstSecondHalf: number | null;
  /** Some sample showed items read before any was stored. */
  readBeforeStored: boolean;
}

const ACTIVE = new Set(['queued', 'running', 'parked', 'initializing', 'processing']);

/**
 * Judges samples of one run that ended at `endAt` ms after its start. `from` drops samples before
 * it (a run resumed after a restart is judged from the restart).
 */
export function judgeProgress(all: readonly ProgressSample[], endAt: number, from = 0): ProgressJudgement {
  const samples = all.filter((s) => s.at >= from);
  const active = samples.filter((s) => ACTIVE.has(s.status));
  let backwards = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i]!.progress < samples[i - 1]!.progress) backwards += 1;
  const duration = Math.max(1, endAt - from);
  const errorOf = (s: ProgressSample): number | null => (s.eta === null ? null : Math.abs(s.eta - endAt) / duration);
  const mid = from + duration / 2;
  const withEta = active.filter((s) => s.eta !== null);
  const nearest = withEta.reduce<ProgressSample | undefined>((best, s) => (!best || Math.abs(s.at - mid) < Math.abs(best.at - mid) ? s : best), undefined);
  const secondHalf = withEta.filter((s) => s.at >= mid).map(errorOf);
  return {
    samples: samples.length,
    firstTotalMs: samples.find((s) => s.total !== null)?.at ?? null,
    shareBetween: active.length ? active.filter((s) => s.progress > 0 && s.progress < 100).length / active.length : 0,
    backwards,
    distinct: new Set(active.map((s) => s.progress)).size,
    etaErrorAtMid: nearest ? errorOf(nearest) : null,
    etaErrorWorstSecondHalf: secondHalf.length ? Math.max(...secondHalf.map((e) => e ?? 0)) : null,
    readBeforeStored: samples.some((s) => s.read > 0 && s.stored === 0),
  };
}
