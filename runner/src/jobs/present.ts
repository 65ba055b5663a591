/**
 * Jobs as the API shows them: the status words of each endpoint (docs/jobs.md#status-words), a
 * run of several sources (one job per source, one group id) as one "current job", and history
 * records.
 */
import { round1, type Db, type Job, type JobState } from '@chs/core';
import { estimateJob, formatDuration, itemsRead, jobProgress, lastCompletedRun, readRate, rebuildCost, waitingOn, type PastRun } from './estimates.js';

/** Closed lists of the data types a backfill can name, per provider (POST /ingest/backfill). */
export const DATA_TYPES = Object.freeze({
  google: ['emails'],
  hubspot: ['companies', 'contacts', 'emails', 'meetings', 'calls', 'notes'],
  intercom: ['contacts', 'companies', 'conversations'],
} as const);

/** A group's status from its jobs' states: running wins, then waiting, then the worst ending. */
function groupStatus(states: readonly JobState[]): JobState {
  if (states.includes('running')) return 'running';
  if (states.includes('queued')) return 'queued';
  if (states.includes('parked')) return 'parked';
  if (states.includes('failed')) return 'failed';
  if (states.length > 0 && states.every((s) => s === 'cancelled')) return 'cancelled';
  return 'completed';
}

/** A provider the job waits on: parked on its quota, or sleeping out its Retry-After. */
interface WaitingView {
  reason: string;
  until: string | null;
}

interface SourceView {
  status: JobState;
  /** Stored, exact. */
  itemsProcessed: number;
  /** Read from the source, stored or not yet. */
  itemsRead?: number;
  lastSyncAt?: string;
  totalItems?: number;
  progress?: number;
  rate?: number;
  estimatedCompletion?: string;
  phase?: 'reading' | 'rebuilding';
  waiting?: WaitingView;
}

export interface CurrentJobView {
  jobId: string;
  status: JobState;
  progress: number;
  startedAt: string | null;
  estimatedCompletion: string | null;
  sources: Record<string, SourceView>;
  itemsRead?: number;
  itemsProcessed?: number;
  totalItems?: number;
  rate?: number;
  waiting?: WaitingView;
}

/** Earliest start and latest end of a group; the end only when every job has ended. */
function span(jobs: Job[]): { startedAt: string | null; completedAt: string | null } {
  const starts = jobs
    .map((j) => j.startedAt)
    .filter((s): s is string => s !== null)
    .sort();
  const ends = jobs.map((j) => j.completedAt);
  const completedAt = ends.every((e) => e !== null) ? (ends.sort().at(-1) ?? null) : null;
  return { startedAt: starts[0] ?? null, completedAt };
}

/** Duration of a group so far (finished: start→end; running: start→now); null before it starts. */
function durationSeconds(jobs: Job[], now: Date): number | null {
  const { startedAt, completedAt } = span(jobs);
  if (!startedAt) return null;
  return Math.max(0, ((completedAt ? Date.parse(completedAt) : now.getTime()) - Date.parse(startedAt)) / 1000);
}

export async function currentJobView(db: Db, jobs: Job[], now: Date): Promise<CurrentJobView> {
  const first = jobs[0];
  if (!first) throw new Error('a job group has at least one job');
  const sources: Record<string, SourceView> = {};
  const progresses: number[] = [];
  let completion: number | null = 0;
  let waiting: WaitingView | undefined;
  let rate: number | undefined;
  for (const j of jobs) {
    const p = jobProgress(j, now);
    const saved = j.sources[j.source];
    const past: PastRun | undefined = j.state === 'completed' ? undefined : await lastCompletedRun(db, j.workspaceId, j.source, j.kind);
    const e = estimateJob(j, now, past, j.state === 'completed' ? undefined : await rebuildCost(db, j.workspaceId));
    const r = readRate(j, now);
    const w = waitingOn(j, now);
    const active = j.state === 'running' || j.state === 'parked' || j.state === 'queued';
    sources[j.source] = {
      status: j.state,
      itemsProcessed: j.itemsProcessed,
      itemsRead: itemsRead(j, now),
      ...(saved?.lastSyncAt ? { lastSyncAt: saved.lastSyncAt } : {}),
      ...(j.totalItems !== null ? { totalItems: j.totalItems } : {}),
      ...(p !== null ? { progress: p } : {}),
      ...(r !== undefined ? { rate: round1(r) } : {}),
      ...(active && e.completionAt ? { estimatedCompletion: e.completionAt } : {}),
      ...(j.state === 'running' && j.live ? { phase: j.live.phase } : {}),
      ...(w ? { waiting: w } : {}),
    };
    if (p !== null) progresses.push(p);
    if (r !== undefined) rate = (rate ?? 0) + r;
    waiting ??= w;
    // Sources run side by side: the run ends when its slowest source does.
    const at = e.completionAt ? Date.parse(e.completionAt) : null;
    completion = completion === null || at === null ? null : Math.max(completion, at);
  }
  const status = groupStatus(jobs.map((j) => j.state));
  const { startedAt, completedAt } = span(jobs);
  const totals = jobs.map((j) => j.totalItems);
  return {
    jobId: first.groupId,
    status,
    // Floored: a run is at 100 only once it is completed.
    progress: status === 'completed' ? 100 : progresses.length ? Math.floor((progresses.reduce((a, b) => a + b, 0) / jobs.length) * 10) / 10 : 0,
    startedAt,
    estimatedCompletion: completedAt ?? (completion === null ? null : new Date(completion).toISOString()),
    sources,
    itemsRead: jobs.reduce((n, j) => n + itemsRead(j, now), 0),
    itemsProcessed: jobs.reduce((n, j) => n + j.itemsProcessed, 0),
    ...(totals.every((t) => t !== null) ? { totalItems: totals.reduce<number>((n, t) => n + (t ?? 0), 0) } : {}),
    ...(rate !== undefined ? { rate: round1(rate) } : {}),
    ...(waiting ? { waiting } : {}),
  };
}

export interface RecentJobView {
  jobId: string;
  status: JobState;
  completedAt: string | null;
  duration: string;
  itemsProcessed: number;
}

export function recentJobView(jobs: Job[], now: Date): RecentJobView {
  const first = jobs[0];
  if (!first) throw new Error('a job group has at least one job');
  return {
    jobId: first.groupId,
    status: groupStatus(jobs.map((j) => j.state)),
    completedAt: span(jobs).completedAt,
    duration: formatDuration(durationSeconds(jobs, now)),
    itemsProcessed: jobs.reduce((a, j) => a + j.itemsProcessed, 0),
  };
}

/** Jobs grouped by group id, newest group first (the order of `jobs`, which is newest first). */
export function groupJobs(jobs: Job[]): Job[][] {
  const groups = new Map<string, Job[]>();
  for (const j of jobs) groups.set(j.groupId, [...(groups.get(j.groupId) ?? []), j]);
  return [...groups.values()];
}

export interface HistoryRecord {
  /** The run id: the id the start endpoint gave (jobId, syncId, backfillId, sessionId). */
  jobId: string;
  /** Extension: this source's own job id (the run id itself for a run of one source). */
  sourceJobId: string;
  source: string;
  status: JobState;
  startedAt: string | null;
  completedAt: string | null;
  duration: string;
  itemsProcessed: number;
  itemsAdded: number;
  itemsUpdated: number;
  itemsSkipped: number;
  errors: Array<{ message: string; count: number; severity: string }>;
}

export function historyRecord(j: Job, now: Date): HistoryRecord {
  return {
    jobId: j.groupId,
    sourceJobId: j.id,
    source: j.source,
    status: j.state,
    startedAt: j.startedAt,
    completedAt: j.completedAt,
    duration: formatDuration(durationSeconds([j], now)),
    itemsProcessed: j.itemsProcessed,
    itemsAdded: j.itemsAdded,
    itemsUpdated: j.itemsUpdated,
    itemsSkipped: j.itemsSkipped,
    errors: j.errors.map((e) => ({ message: e.message, count: e.count, severity: e.severity })),
  };
}
