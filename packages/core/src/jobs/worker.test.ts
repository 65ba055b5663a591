import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Store } from '../store/database.js';
import { claimNextJob, enqueueJob, getJob, jobEvents, type Job } from './repository.js';
import { JobWorker, type JobEvent, type JobHandler } from './worker.js';
import { until } from '../test-support/until.js';

const dialects = await testDialects();
afterAll(dropTestSchemas);

describe.each(dialects)('JobWorker on $name', (dialect) => {
  let store: Store;
  let worker: JobWorker | undefined;
  beforeEach(async () => {
    store = await dialect.open();
    const now = new Date().toISOString();
    await store.db
      .insertInto('workspaces')
      .values({ id: 'acme.com', name: 'Acme', plan: 'free', billing_status: 'active', created_at: now, updated_at: now })
      .execute();
  });
  afterEach(async () => {
    await worker?.stop(1000);
    worker = undefined;
    await store.close();
  });

  const state = async (id: string) => (await getJob(store.db, id))?.state;

  it('runs a job to completed, a throwing one to failed with its error, and a parked one to parked', async () => {
    const seen: string[] = [];
    const handler: JobHandler = async (job: Job) => {
      seen.push(job.source);
      if (job.source === 'hubspot') throw new Error('boom');
      if (job.source === 'intercom') return { outcome: 'parked', until: new Date(Date.now() + 3_600_000), reason: 'daily limit' };
      return { outcome: 'completed' };
    };
    const events: JobEvent['type'][] = [];
    worker = new JobWorker({
      db: store.db,
      handlers: { sync: handler },
      pollMs: 20,
      concurrency: 2,
      onEvent: (e) => {
        events.push(e.type);
        throw new Error('bad listener');
      },
    });
    const a = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'google' });
    const b = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'hubspot' });
    const c = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'intercom' });
    worker.start();
    await until(async () => (await state(a.id)) === 'completed' && (await state(b.id)) === 'failed' && (await state(c.id)) === 'parked');
    const failed = await getJob(store.db, b.id);
    expect(failed?.lastError).toBe('boom');
    expect(failed?.errors).toMatchObject([{ message: 'boom', severity: 'fatal' }]);
    expect((await getJob(store.db, c.id))?.parkedUntil).not.toBeNull();
    expect(seen.sort()).toEqual(['google', 'hubspot', 'intercom']);
    expect(events).toContain('job:success');
    expect(events).toContain('job:failed');
  });

  it('on stop, a job that honours its signal goes back to the queue and another worker finishes it', async () => {
    let calls = 0;
    const handler: JobHandler = async (_job, ctx) => {
      calls += 1;
      if (calls === 1) {
        await new Promise<void>((res) => ctx.signal.addEventListener('abort', () => res(), { once: true }));
        return { outcome: 'released' };
      }
      return { outcome: 'completed' };
    };
    worker = new JobWorker({ db: store.db, handlers: { ingest: handler }, pollMs: 20 });
    const j = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'ingest', source: 'google' });
    worker.start();
    await until(async () => (await state(j.id)) === 'running');
    await worker.stop(2000);
    expect(await state(j.id)).toBe('queued');
    worker = new JobWorker({ db: store.db, handlers: { ingest: handler }, pollMs: 20 });
    worker.start();
    await until(async () => (await state(j.id)) === 'completed');
    expect((await jobEvents(store.db, j.id)).map((e) => e.type)).toEqual(['job:queued', 'job:running', 'job:queued', 'job:running', 'job:completed']);
  });

  it('a dead worker’s job is swept back and finished by another', async () => {
    const j = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'google' });
    // A runner that claimed the job and was then killed: its lease is never renewed.
    await claimNextJob(store.db, 'dead', 150);
    expect((await getJob(store.db, j.id))?.leaseOwner).toBe('dead');
    worker = new JobWorker({ db: store.db, handlers: { sync: async () => ({ outcome: 'completed' }) }, pollMs: 20, sweepMs: 50, owner: 'alive' });
    worker.start();
    await until(async () => (await state(j.id)) === 'completed');
    const events = (await jobEvents(store.db, j.id)).map(
      (e) => `${e.type}:${[e.data.reason, e.data.owner].find((x): x is string => typeof x === 'string') ?? ''}`,
    );
    expect(events).toEqual(['job:queued:', 'job:running:dead', 'job:queued:lease expired', 'job:running:alive', 'job:completed:']);
  });
});
