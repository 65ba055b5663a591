/**
 * Runs: what one start request queues — one job per source, under one run id (the job's group).
 * The run id is the id the user is given, whatever endpoint started the run, and it is what
 * status and history report (docs/jobs.md#ids):
 * - a run of one source is one job whose id IS the run id;
 * - a run of several sources has one job per source, with the id `<run id>.<source>`.
 * The one-active-job-per-(workspace, source) rule is answered for every source before anything
 * is queued, so a conflict queues nothing.
 */
import type { Db } from '../store/database.js';
import { ChsError, isChsError } from '../errors.js';
import { newId } from '../util/ids.js';
import { enqueueJob, findActiveJob, getJob, listJobs, transitionJob, type EnqueueInput, type Job } from './repository.js';
import {
  deleteIngestionSession,
  finishIngestionSession,
  getIngestionSession,
  insertIngestionSession,
  type IngestionSession,
  type IngestionSessionConfig,
} from './sessions.js';
import { FINAL_STATES } from './states.js';

export type RunItem = Omit<EnqueueInput, 'workspaceId' | 'groupId' | 'id'>;

function conflict(active: Job): ChsError {
  return new ChsError('JOB_CONFLICT', `a ${active.kind} job of ${active.source} is already ${active.state} for ${active.workspaceId} (job ${active.groupId})`, {
    details: { jobId: active.groupId },
  });
}

/** The id of the job of `source` in run `runId`. */
export function jobIdInRun(runId: string, source: string, sources: number): string {
  return sources === 1 ? runId : `${runId}.${source}`;
}

/**
 * Queues one job per item, all in one run. If another runner wins a race half-way, the jobs
 * already queued are cancelled and the conflict is reported.
 */
export async function enqueueRun(db: Db, workspaceId: string, items: RunItem[], options: { runId?: string } = {}): Promise<{ runId: string; jobs: Job[] }> {
  for (const item of items) {
    const active = await findActiveJob(db, workspaceId, item.source);
    if (active) throw conflict(active);
  }
  const runId = options.runId ?? newId('job');
  const jobs: Job[] = [];
  try {
    for (const item of items) jobs.push(await enqueueJob(db, { ...item, workspaceId, groupId: runId, id: jobIdInRun(runId, item.source, items.length) }));
  } catch (err) {
    for (const j of jobs) await transitionJob(db, j.id, 'queued', 'cancelled', { event: { reason: 'another source of the run conflicted' } }).catch(() => null);
    if (isChsError(err, 'JOB_CONFLICT')) {
      const active = await findActiveJob(db, workspaceId, String((items[jobs.length] ?? items[0])?.source));
      if (active) throw conflict(active);
    }
    throw err;
  }
  return { runId, jobs };
}

/**
 * Opens a large-ingestion session and queues its `ingest` job under the same id (the session id
 * is the run id). The session exists before its job, so a worker that claims the job at once
 * finds it; a refused job (JOB_CONFLICT) leaves no session behind.
 */
export async function startIngestionSession(db: Db, config: IngestionSessionConfig, now: Date = new Date()): Promise<{ session: IngestionSession; job: Job }> {
  const id = newId('ing');
  await insertIngestionSession(db, id, config, now);
  try {
    const { jobs } = await enqueueRun(
      db,
      config.workspaceId,
      [
        {
          kind: 'ingest',
          source: 'google',
          params: { sessionId: id, sinceDays: config.sinceDays, maxEmails: config.maxEmails, batchSize: config.batchSize },
        },
      ],
      { runId: id },
    );
    const session = await getIngestionSession(db, id);
    if (!session || !jobs[0]) throw new Error(`ingestion session ${id} vanished`);
    return { session, job: jobs[0] };
  } catch (err) {
    await deleteIngestionSession(db, id);
    throw err;
  }
}

/** Every job of a run (a run has at most one job per provider, so 100 is plenty). */
export async function jobsOfRun(db: Db, workspaceId: string, runId: string): Promise<Job[]> {
  return (await listJobs(db, { workspaceId, groupId: runId, limit: 100, offset: 0 })).jobs;
}

/** A run id, or one job's id → the jobs of its run; NOT_FOUND when neither is the workspace's. */
export async function findRun(db: Db, workspaceId: string, id: string): Promise<Job[]> {
  const run = await jobsOfRun(db, workspaceId, id);
  if (run.length) return run;
  const job = await getJob(db, id);
  if (!job || job.workspaceId !== workspaceId) throw new ChsError('NOT_FOUND', `no job ${id} in ${workspaceId}`);
  return jobsOfRun(db, workspaceId, job.groupId);
}

/**
 * Cancels a run (every unfinished job of it) or one job of it. A cancelled large ingestion ends
 * its session as `failed`. Nothing left to cancel is INVALID_TRANSITION. Returns how many jobs.
 */
export async function cancelRun(db: Db, workspaceId: string, id: string): Promise<number> {
  const run = await findRun(db, workspaceId, id);
  const one = run.filter((j) => j.id === id && j.groupId !== id);
  const targets = one.length ? one : run;
  let cancelled = 0;
  for (const j of targets) {
    // A finished job of a run is passed over; a single finished job is refused (INVALID_TRANSITION, 409).
    if (targets.length > 1 && FINAL_STATES.includes(j.state)) continue;
    const moved = await transitionJob(db, j.id, j.state, 'cancelled', { event: { reason: 'cancelled over the API' } });
    if (!moved) continue;
    cancelled += 1;
    if (moved.kind === 'ingest' && typeof moved.params.sessionId === 'string') {
      await finishIngestionSession(db, moved.params.sessionId, { status: 'failed', error: 'the ingestion was cancelled' });
    }
  }
  if (!cancelled) throw new ChsError('INVALID_TRANSITION', `nothing to cancel in ${id}: its jobs have already ended`);
  return cancelled;
}
