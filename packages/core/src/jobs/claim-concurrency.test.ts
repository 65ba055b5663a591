/**
 * Claiming across runners on PostgreSQL: several claimers, each with its own connection pool (as
 * separate `chs serve` processes have), race over one queue. `FOR UPDATE SKIP LOCKED` must hand
 * every job to exactly one of them — no job run twice, none left behind — and they must not
 * serialise on one another (each claimer gets work). The rate is printed, not asserted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/database.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../store/testing.js';
import { claimNextJob, enqueueJob, transitionJob } from './repository.js';

const hasPg = await postgresAvailable();
const made: TestDatabase[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of made.splice(0)) await d.drop();
});

describe.runIf(hasPg)('claiming jobs from several runners at once (PostgreSQL, SKIP LOCKED)', () => {
  it('400 jobs, 6 claimers with their own pools: each job claimed and completed exactly once', async () => {
    const JOBS = 400;
    const CLAIMERS = 6;
    const database = await createTestDatabase('postgres');
    made.push(database);
    const setup = await openStore({ url: database.url, poolSize: 2 });
    stores.push(setup);
    const now = new Date().toISOString();
    await setup.db
      .insertInto('workspaces')
      .values({ id: 'acme.com', name: 'Acme', plan: 'free', billing_status: 'active', created_at: now, updated_at: now })
      .execute();
    // One active job per (workspace, source): distinct sources let them all wait at once.
    for (let i = 0; i < JOBS; i++) await enqueueJob(setup.db, { workspaceId: 'acme.com', kind: 'sync', source: `src${i}` });

    const claimers = await Promise.all(Array.from({ length: CLAIMERS }, () => openStore({ url: database.url, poolSize: 2 })));
    stores.push(...claimers);
    const t0 = performance.now();
    const done = await Promise.all(
      claimers.map(async (s, c) => {
        const mine: string[] = [];
        for (;;) {
          const job = await claimNextJob(s.db, `runner-${c}`, 30_000);
          if (!job) return mine;
          const finished = await transitionJob(s.db, job.id, 'running', 'completed', { owner: `runner-${c}` });
          expect(finished?.state).toBe('completed');
          mine.push(job.id);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;

    const all = done.flat();
    expect(all).toHaveLength(JOBS);
    expect(new Set(all).size).toBe(JOBS);
    expect(done.every((d) => d.length > 0)).toBe(true);
    const rows = await setup.db.selectFrom('jobs').select(['state', 'attempts']).execute();
    expect(rows.every((r) => r.state === 'completed' && r.attempts === 1)).toBe(true);
    const claims = await setup.db
      .selectFrom('job_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', 'job:running')
      .executeTakeFirstOrThrow();
    expect(Number(claims.n)).toBe(JOBS);
    console.info(
      `[jobs] ${JOBS} claims + completions by ${CLAIMERS} claimers in ${seconds.toFixed(2)} s (${Math.round(JOBS / seconds)}/s); per claimer ${done.map((d) => d.length).join(', ')}`,
    );
  }, 60_000);
});
