/**
 * The job lifecycle: a closed list of states and one table of legal transitions, checked in
 * one place (`assertTransition`). See docs/jobs.md for the diagram.
 *
 *   queued ──claim──▶ running ──▶ completed | failed | cancelled
 *     │                 │ ▲
 *     │                 │ └── lease expired (sweeper) / released on shutdown ──▶ queued
 *     │                 └──── provider limit ──▶ parked ──(parked_until passed, claim)──▶ running
 *     └──▶ cancelled            parked ──▶ cancelled
 */
import { ChsError } from '../errors.js';

export const JOB_STATES = ['queued', 'running', 'parked', 'completed', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

export const JOB_KINDS = ['sync', 'backfill', 'ingest'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** States in which a job holds its (workspace, source) slot. Mirrors the partial unique index. */
export const ACTIVE_STATES: readonly JobState[] = ['queued', 'running', 'parked'];
export const FINAL_STATES: readonly JobState[] = ['completed', 'failed', 'cancelled'];

export const TRANSITIONS: Readonly<Record<JobState, readonly JobState[]>> = Object.freeze({
  queued: ['running', 'cancelled'],
  running: ['completed', 'failed', 'cancelled', 'parked', 'queued'],
  parked: ['running', 'queued', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
});

export function canTransition(from: JobState, to: JobState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: JobState, to: JobState): void {
  if (!canTransition(from, to)) {
    throw new ChsError('INVALID_TRANSITION', `a ${from} job cannot become ${to}`, { details: { from, to } });
  }
}

export function isJobState(s: string): s is JobState {
  return (JOB_STATES as readonly string[]).includes(s);
}
