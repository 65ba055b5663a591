import { afterAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Store } from '../store/database.js';
import { isChsError } from '../errors.js';
import { JOB_STATES, TRANSITIONS, canTransition, assertTransition } from './states.js';
import { claimNextJob, enqueueJob, getJob, heartbeatJob, jobEvents, listJobs, recordJobProgress, sweepExpiredLeases, transitionJob } from './repository.js';

describe('job transition table', () => {
  it('allows exactly the listed transitions and refuses every other', () => {
    const allowed: Array<[string, string]> = [
      ['queued', 'running'],
      ['queued', 'cancelled'],
      ['running', 'completed'],
      ['running', 'failed'],
      ['running', 'cancelled'],
      ['running', 'parked'],
      ['running', 'queued'],
      ['parked', 'running'],
      ['parked', 'queued'],
      ['parked', 'cancelled'],
    ];
    for (const from of JOB_STATES) {
      for (const to of JOB_STATES) {
        const ok = allowed.some(([f, t]) => f === from && t === to);
        expect(canTransition(from, to), `${from} → ${to}`).toBe(ok);
        if (ok) expect(() => assertTransition(from, to)).not.toThrow();
        else expect(() => assertTransition(from, to)).toThrow(/cannot become/);
      }
    }
    expect(TRANSITIONS.completed).toEqual([]);
  });
});

const dialects = await testDialects();
afterAll(dropTestSchemas);

describe.each(dialects)('jobs on $name', (dialect) => {
  let store: Store;
  const t0 = new Date('2026-03-01T10:00:00.000Z');
  const at = (s: number) => new Date(t0.getTime() + s * 1000);
  beforeEach(async () => {
    store = await dialect.open();
    const now = t0.toISOString();
    await store.db
      .insertInto('workspaces')
      .values({ id: 'acme.com', name: 'Acme', plan: 'free', billing_status: 'active', created_at: now, updated_at: now })
      .execute();
  });
  afterEach(async () => store.close());

  it('refuses a second active job for the same workspace and source, naming the first', async () => {
    const a = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'google' }, t0);
    const err = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'backfill', source: 'google' }, t0).catch((e: unknown) => e);
    expect(isChsError(err, 'JOB_CONFLICT')).toBe(true);
    expect((err as { details: { jobId: string } }).details.jobId).toBe(a.id);
    // another source is fine
    await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'hubspot' }, t0);
  });

  it('claims oldest first, once, and records every transition as an event', async () => {
    const a = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'google' }, at(0));
    const b = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'hubspot' }, at(1));
    const c1 = await claimNextJob(store.db, 'w1', 30_000, at(2));
    const c2 = await claimNextJob(store.db, 'w2', 30_000, at(2));
    const c3 = await claimNextJob(store.db, 'w3', 30_000, at(2));
    expect(c1?.id).toBe(a.id);
    expect(c1?.state).toBe('running');
    expect(c1?.leaseOwner).toBe('w1');
    expect(c1?.leaseExpiresAt).toBe(at(32).toISOString());
    expect(c1?.startedAt).toBe(at(2).toISOString());
    expect(c2?.id).toBe(b.id);
    expect(c3).toBeNull();
    const done = await transitionJob(store.db, a.id, 'running', 'completed', { owner: 'w1', now: at(3) });
    expect(done?.state).toBe('completed');
    expect(done?.completedAt).toBe(at(3).toISOString());
    expect(done?.leaseOwner).toBeNull();
    expect((await jobEvents(store.db, a.id)).map((e) => e.type)).toEqual(['job:queued', 'job:running', 'job:completed']);
  });

  it('refuses a transition from a state the job is no longer in, or by a worker that lost the lease', async () => {
    const a = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'google' }, t0);
    await expect(transitionJob(store.db, a.id, 'queued', 'completed')).rejects.toThrow(/cannot become/);
    await claimNextJob(store.db, 'w1', 1000, t0);
    expect(await transitionJob(store.db, a.id, 'queued', 'cancelled')).toBeNull();
    expect(await transitionJob(store.db, a.id, 'running', 'completed', { owner: 'someone-else' })).toBeNull();
    expect((await getJob(store.db, a.id))?.state).toBe('running');
  });

  it('sweeps expired leases back to the queue; the old owner can no longer heartbeat or report', async () => {
    const a = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'ingest', source: 'google' }, t0);
    await claimNextJob(store.db, 'dead', 10_000, t0);
    expect(await heartbeatJob(store.db, a.id, 'dead', 10_000, at(5))).toBe(true); // lease now ends at +15 s
    expect(await sweepExpiredLeases(store.db, at(14))).toBe(0);
    expect(await sweepExpiredLeases(store.db, at(16))).toBe(1);
    expect((await getJob(store.db, a.id))?.state).toBe('queued');
    expect(await heartbeatJob(store.db, a.id, 'dead', 10_000, at(17))).toBe(false);
    const again = await claimNextJob(store.db, 'alive', 10_000, at(18));
    expect(again?.id).toBe(a.id);
    expect(again?.attempts).toBe(2);
    expect(await recordJobProgress(store.db, a.id, 'dead', { itemsProcessed: 5, itemsAdded: 5, itemsUpdated: 0, itemsSkipped: 0, itemsFiltered: 0 })).toBe(
      false,
    );
    expect(
      await recordJobProgress(store.db, a.id, 'alive', {
        itemsProcessed: 7,
        itemsAdded: 6,
        itemsUpdated: 0,
        itemsSkipped: 1,
        itemsFiltered: 0,
        cursor: { offset: 9 },
      }),
    ).toBe(true);
    const j = await getJob(store.db, a.id);
    expect([j?.itemsProcessed, j?.itemsAdded, j?.itemsSkipped, j?.cursor]).toEqual([7, 6, 1, { offset: 9 }]);
  });

  it('parks a job until a time, and claims it only after that time', async () => {
    const a = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'google' }, t0);
    await claimNextJob(store.db, 'w', 10_000, t0);
    const parked = await transitionJob(store.db, a.id, 'running', 'parked', {
      owner: 'w',
      patch: { parkedUntil: at(60).toISOString(), error: { message: 'daily limit', count: 1, severity: 'warning', recoverable: true } },
    });
    expect(parked?.parkedUntil).toBe(at(60).toISOString());
    expect(parked?.errors[0]?.message).toBe('daily limit');
    expect(await claimNextJob(store.db, 'w', 10_000, at(59))).toBeNull();
    expect((await claimNextJob(store.db, 'w', 10_000, at(60)))?.id).toBe(a.id);
  });

  it('lists newest first with filters and a total', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const j = await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: i % 2 ? 'hubspot' : 'google' }, at(i));
      ids.push(j.id);
      await claimNextJob(store.db, 'w', 10_000, at(i));
      await transitionJob(store.db, j.id, 'running', i === 3 ? 'failed' : 'completed', { owner: 'w', now: at(i) });
    }
    const all = await listJobs(store.db, { workspaceId: 'acme.com', limit: 2, offset: 1 });
    expect(all.total).toBe(5);
    expect(all.jobs.map((j) => j.id)).toEqual([ids[3], ids[2]]);
    const g = await listJobs(store.db, { workspaceId: 'acme.com', source: 'google', limit: 10, offset: 0 });
    expect(g.jobs.map((j) => j.id)).toEqual([ids[4], ids[2], ids[0]]);
    const failed = await listJobs(store.db, { workspaceId: 'acme.com', states: ['failed'], limit: 10, offset: 0 });
    expect(failed.jobs.map((j) => j.id)).toEqual([ids[3]]);
  });
});
