/**
 * The job endpoints over a real socket, with no worker running: jobs are moved by hand (claim,
 * progress, transitions) so every field, default, limit, estimate and status word can be
 * checked against hand-worked values.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DAY_MS,
  connectIntegration,
  enqueueJob,
  getJob,
  listJobs,
  recordJobLive,
  recordJobProgress,
  transitionJob,
  markNeedsReauth,
  type Db,
  type JobLive,
  type Provider,
} from '@chs/core';
import { startTestApp, type TestApp } from '../testing.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const KEY = randomBytes(32);
const OWNER = 'test-owner';

async function connect(db: Db, ws: string, provider: Provider): Promise<void> {
  const credentials =
    provider === 'google' ? { accessToken: 'ya29.x', refreshToken: '1//r', clientId: 'c', clientSecret: 's', email: 'rep@acme.com' } : { accessToken: 'pat-x' };
  await connectIntegration(db, KEY, { workspaceId: ws, provider, credentials, accountEmail: 'rep@acme.com' });
}

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Claims a queued job by hand, as a worker would, started `agoSeconds` ago. */
async function claim(db: Db, id: string, agoSeconds = 0): Promise<void> {
  const started = new Date(Date.now() - agoSeconds * 1000);
  const j = await transitionJob(db, id, 'queued', 'running', {
    now: started,
    patch: { leaseOwner: OWNER, leaseExpiresAt: new Date(Date.now() + 60_000).toISOString() },
  });
  expect(j?.state).toBe('running');
}

async function progress(db: Db, id: string, processed: number, total: number | null, added = processed): Promise<void> {
  expect(
    await recordJobProgress(db, id, OWNER, {
      itemsProcessed: processed,
      totalItems: total,
      itemsAdded: added,
      itemsUpdated: 0,
      itemsSkipped: processed - added,
      itemsFiltered: 0,
    }),
  ).toBe(true);
}

const secondsFromNow = (iso: unknown) => (Date.parse(String(iso)) - Date.now()) / 1000;

describe('POST /api/ingest/run', () => {
  it('a clear 400 when nothing is connected; sources default to every connected integration, one job each in one run', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    const none = await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' });
    expect(none.status).toBe(400);
    const noneBody = await json(none);
    expect(noneBody).toMatchObject({ code: 'INTEGRATION_NOT_CONNECTED', status: 400 });
    expect(String(noneBody.error)).toMatch(/no integration is connected/);

    await connect(db, t.workspaceId, 'google');
    await connect(db, t.workspaceId, 'hubspot');
    await connect(db, t.workspaceId, 'intercom');
    await markNeedsReauth(db, t.workspaceId, 'intercom', 'invalid_grant');
    const res = await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' });
    expect(res.status).toBe(200);
    const body = await json<{ success: boolean; jobId: string; status: string; estimatedDuration: string; sources: string[] }>(res);
    // Nothing has ever completed: no throughput, no count, so no estimate (never a constant).
    expect(body).toEqual({ success: true, jobId: body.jobId, status: 'started', estimatedDuration: 'unknown', sources: ['google', 'hubspot'] });
    const { jobs } = await listJobs(db, { workspaceId: t.workspaceId, groupId: body.jobId, limit: 10, offset: 0 });
    expect(jobs.map((j) => [j.source, j.kind, j.state, j.params.mode]).sort()).toEqual([
      ['google', 'sync', 'queued', 'quick'],
      ['hubspot', 'sync', 'queued', 'quick'],
    ]);
  });

  it('validates syncType and sources; an unconnected source is a 400; a second run of an active source is a 409 naming the job', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    await connect(db, t.workspaceId, 'google');
    const url = `/api/ingest/run?workspaceId=${t.workspaceId}`;
    for (const bad of [{ syncType: 'medium' }, { sources: ['slack'] }, { sources: [] }, { sources: ['google', 'google'] }, { syncType: 1 }, { extra: true }]) {
      const r = await t.request(url, { method: 'POST', json: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(await json(r)).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    }
    const unconnected = await t.request(url, { method: 'POST', json: { sources: ['intercom'] } });
    expect(unconnected.status).toBe(400);
    expect(await json(unconnected)).toMatchObject({ code: 'INTEGRATION_NOT_CONNECTED' });

    const first = await json<{ jobId: string; sources: string[] }>(await t.request(url, { method: 'POST', json: { syncType: 'full', sources: ['google'] } }));
    expect(first.sources).toEqual(['google']);
    const job = (await listJobs(db, { workspaceId: t.workspaceId, groupId: first.jobId, limit: 10, offset: 0 })).jobs[0]!;
    expect(job.params.mode).toBe('full');
    const again = await t.request(url, { method: 'POST', json: { sources: ['google'] } });
    expect(again.status).toBe(409);
    const conflict = await json<{ code: string; error: string }>(again);
    expect(conflict.code).toBe('JOB_CONFLICT');
    expect(conflict.error).toContain(first.jobId);
    expect(conflict.error).toContain('queued');
    // Still one job: nothing was queued by the refused run.
    expect((await listJobs(db, { workspaceId: t.workspaceId, limit: 10, offset: 0 })).total).toBe(1);
  });
});

describe('GET /api/ingest/status', () => {
  it('transitions through the endpoint: queued → running → completed; the current run with its per-source map; recent runs', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    const empty = await json(await t.request(`/api/ingest/status?workspaceId=${t.workspaceId}`));
    expect(empty).toEqual({ currentJob: null, recentJobs: [] });

    await connect(db, t.workspaceId, 'google');
    await connect(db, t.workspaceId, 'hubspot');
    const run = await json<{ jobId: string }>(await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' }));
    const jobs = (await listJobs(db, { workspaceId: t.workspaceId, groupId: run.jobId, limit: 10, offset: 0 })).jobs;
    const google = jobs.find((j) => j.source === 'google')!;
    const hubspot = jobs.find((j) => j.source === 'hubspot')!;

    let s = await json<{ currentJob: Record<string, unknown>; recentJobs: unknown[] }>(await t.request(`/api/ingest/status?workspaceId=${t.workspaceId}`));
    expect(s.currentJob).toEqual({
      jobId: run.jobId,
      status: 'queued',
      progress: 0,
      startedAt: null,
      estimatedCompletion: null,
      sources: { google: { status: 'queued', itemsProcessed: 0, itemsRead: 0 }, hubspot: { status: 'queued', itemsProcessed: 0, itemsRead: 0 } },
      itemsRead: 0,
      itemsProcessed: 0,
    });

    await claim(db, google.id, 10);
    await progress(db, google.id, 100, 1000);
    s = await json(await t.request(`/api/ingest/status?workspaceId=${t.workspaceId}&jobId=${run.jobId}`));
    expect(s.currentJob).toMatchObject({
      jobId: run.jobId,
      status: 'running',
      progress: 5, // google 10 %, hubspot not started: (10 + 0) / 2
      sources: { google: { status: 'running', itemsProcessed: 100, totalItems: 1000, progress: 10 }, hubspot: { status: 'queued', itemsProcessed: 0 } },
    });
    // HubSpot has no count and no past run: the run's end is unknown.
    expect(s.currentJob.estimatedCompletion).toBeNull();

    await claim(db, hubspot.id, 5);
    await progress(db, hubspot.id, 40, 40);
    await progress(db, google.id, 1000, 1000);
    await transitionJob(db, google.id, 'running', 'completed', { owner: OWNER });
    await transitionJob(db, hubspot.id, 'running', 'completed', { owner: OWNER });
    s = await json(await t.request(`/api/ingest/status?workspaceId=${t.workspaceId}`));
    const done = s.currentJob as {
      status: string;
      progress: number;
      estimatedCompletion: string;
      startedAt: string;
      sources: Record<string, { status: string; progress: number }>;
    };
    expect(done.status).toBe('completed');
    expect(done.progress).toBe(100);
    expect(done.sources.google).toMatchObject({ status: 'completed', progress: 100, itemsProcessed: 1000 });
    const finished = (await getJob(db, hubspot.id))!;
    expect(done.estimatedCompletion).toBe([finished.completedAt, (await getJob(db, google.id))!.completedAt].sort().at(-1));
    expect(s.recentJobs).toEqual([
      { jobId: run.jobId, status: 'completed', completedAt: done.estimatedCompletion, duration: expect.stringMatching(/^\d+s$/), itemsProcessed: 1040 },
    ]);

    const unknown = await t.request(`/api/ingest/status?workspaceId=${t.workspaceId}&jobId=job_nope`);
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('a job that reads for a long time before its first stored batch moves anyway: read counter, total, rate and ETA; a wait on the provider says until when', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    await connect(db, t.workspaceId, 'google');
    const run = await json<{ jobId: string }>(await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' }));
    const id = (await listJobs(db, { workspaceId: t.workspaceId, groupId: run.jobId, limit: 1, offset: 0 })).jobs[0]!.id;
    await claim(db, id, 10);
    type Status = {
      currentJob: {
        progress: number;
        estimatedCompletion: string | null;
        itemsRead: number;
        itemsProcessed: number;
        totalItems?: number;
        rate?: number;
        waiting?: unknown;
        sources: Record<string, Record<string, unknown>>;
      };
    };
    const status = async () => (await json<Status>(await t!.request(`/api/ingest/status?workspaceId=${t!.workspaceId}`))).currentJob;
    const live = (over: Partial<JobLive> = {}): JobLive => ({
      attemptStartedAt: new Date(Date.now() - 10_000).toISOString(),
      readAtStart: 0,
      phase: 'reading',
      at: new Date().toISOString(),
      ...over,
    });
    // Nothing stored yet, 250 of Gmail's 1,000 read in 10 s: a quarter done, 25/s, 30 s to go.
    expect(await recordJobLive(db, id, OWNER, { itemsRead: 250, totalItems: 1000, live: live() })).toBe(true);
    let c = await status();
    expect(c).toMatchObject({ progress: 25, itemsRead: 250, itemsProcessed: 0, totalItems: 1000 });
    expect(c.sources.google).toMatchObject({ status: 'running', itemsRead: 250, itemsProcessed: 0, totalItems: 1000, progress: 25, phase: 'reading' });
    expect(c.rate).toBeGreaterThan(24);
    expect(c.rate).toBeLessThan(26);
    expect(secondsFromNow(c.estimatedCompletion)).toBeGreaterThan(27);
    expect(secondsFromNow(c.estimatedCompletion)).toBeLessThan(33);
    expect(c.waiting).toBeUndefined();

    // A batch stored: the stored count moves, the read counter never goes below it.
    await progress(db, id, 300, 1000);
    c = await status();
    expect(c).toMatchObject({ itemsRead: 300, itemsProcessed: 300, progress: 30 });

    // Gmail asked to wait 60 s (Retry-After): the status says so, and the end moves past the wait.
    const until = new Date(Date.now() + 60_000).toISOString();
    await recordJobLive(db, id, OWNER, { itemsRead: 400, live: live({ waiting: { reason: 'google: HTTP 429 rateLimitExceeded', until } }) });
    c = await status();
    expect(c.waiting).toEqual({ reason: 'google: HTTP 429 rateLimitExceeded', until });
    expect(c.sources.google!.waiting).toEqual({ reason: 'google: HTTP 429 rateLimitExceeded', until });
    expect(secondsFromNow(c.estimatedCompletion)).toBeGreaterThan(60);
    // The total stays what the source said when a live write does not know it.
    expect(c.totalItems).toBe(1000);

    // Every item read and stored: the last step rebuilds health; still below 100 until the job ends.
    await progress(db, id, 1000, 1000);
    await recordJobLive(db, id, OWNER, { itemsRead: 1000, live: live({ phase: 'rebuilding' }) });
    c = await status();
    expect(c.sources.google).toMatchObject({ phase: 'rebuilding', progress: 99.9 });
    expect(c.progress).toBeLessThan(100);
    expect(c.waiting).toBeUndefined();

    // Parked on the quota: waiting until it resumes, with the provider's words.
    const resume = new Date(Date.now() + 3_600_000);
    await transitionJob(db, id, 'running', 'parked', {
      owner: OWNER,
      patch: { parkedUntil: resume.toISOString(), lastError: 'google quota exhausted (dailyLimitExceeded)' },
    });
    c = await status();
    expect(c.waiting).toEqual({ reason: 'google quota exhausted (dailyLimitExceeded)', until: resume.toISOString() });
    expect(Date.parse(c.estimatedCompletion!)).toBeGreaterThanOrEqual(resume.getTime());
    // A write of an attempt that no longer holds the job is refused.
    expect(await recordJobLive(db, id, OWNER, { itemsRead: 5, live: live() })).toBe(false);
  });

  it("the ETA counts the health rebuild after the read, priced at the workspace's last measured rebuild", async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    await connect(db, t.workspaceId, 'google');
    const first = await json<{ jobId: string }>(await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' }));
    const firstId = (await listJobs(db, { workspaceId: t.workspaceId, groupId: first.jobId, limit: 1, offset: 0 })).jobs[0]!.id;
    await claim(db, firstId, 10);
    const at = new Date().toISOString();
    // The last job rebuilt 50 clients in 2 s: 40 ms a client.
    await recordJobLive(db, firstId, OWNER, {
      itemsRead: 0,
      live: { attemptStartedAt: at, readAtStart: 0, phase: 'rebuilding', rebuild: { startedAt: at, clients: 50, ms: 2000 }, at },
    });
    await transitionJob(db, firstId, 'running', 'completed', { owner: OWNER });

    const run = await json<{ jobId: string }>(await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' }));
    const id = (await listJobs(db, { workspaceId: t.workspaceId, groupId: run.jobId, limit: 1, offset: 0 })).jobs[0]!.id;
    await claim(db, id, 10);
    const eta = async () =>
      secondsFromNow(
        (await json<{ currentJob: { estimatedCompletion: string } }>(await t!.request(`/api/ingest/status?workspaceId=${t!.workspaceId}`))).currentJob
          .estimatedCompletion,
      );
    const started = new Date(Date.now() - 10_000).toISOString();
    // Half read in 10 s (10 s to go), 250 clients touched so far: their rebuild adds 250 × 40 ms = 10 s.
    await recordJobLive(db, id, OWNER, {
      itemsRead: 500,
      totalItems: 1000,
      live: { attemptStartedAt: started, readAtStart: 0, phase: 'reading', clients: 250, at: new Date().toISOString() },
    });
    expect(await eta()).toBeGreaterThan(18);
    expect(await eta()).toBeLessThan(22);
    // Rebuilding those 250 for 4 s already: 6 s left.
    const rebuildStart = new Date(Date.now() - 4000).toISOString();
    await recordJobLive(db, id, OWNER, {
      itemsRead: 1000,
      live: {
        attemptStartedAt: started,
        readAtStart: 0,
        phase: 'rebuilding',
        clients: 250,
        rebuild: { startedAt: rebuildStart, clients: 250 },
        at: new Date().toISOString(),
      },
    });
    expect(await eta()).toBeGreaterThan(4);
    expect(await eta()).toBeLessThan(8);
  });

  it('estimates move with progress: measured throughput of the running job, then the last completed run', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    await connect(db, t.workspaceId, 'google');
    const run = await json<{ jobId: string; estimatedDuration: string }>(await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' }));
    expect(run.estimatedDuration).toBe('unknown');
    const id = (await listJobs(db, { workspaceId: t.workspaceId, limit: 1, offset: 0 })).jobs[0]!.id;
    await claim(db, id, 10);
    // 100 of 1000 in 10 s: 10/s, 900 left → 90 s.
    await progress(db, id, 100, 1000);
    const at = async () =>
      (await json<{ currentJob: { estimatedCompletion: string } }>(await t!.request(`/api/ingest/status?workspaceId=${t!.workspaceId}`))).currentJob
        .estimatedCompletion;
    expect(secondsFromNow(await at())).toBeGreaterThan(87);
    expect(secondsFromNow(await at())).toBeLessThan(93);
    // 500 of 1000 in 10 s: 50/s, 500 left → 10 s.
    await progress(db, id, 500, 1000);
    expect(secondsFromNow(await at())).toBeGreaterThan(7);
    expect(secondsFromNow(await at())).toBeLessThan(13);

    // Completed: 1000 items in exactly 50 s (started and ended by hand).
    await progress(db, id, 1000, 1000);
    await db
      .updateTable('jobs')
      .set({ started_at: new Date(Date.now() - 50_000).toISOString() })
      .where('id', '=', id)
      .execute();
    await transitionJob(db, id, 'running', 'completed', { owner: OWNER });
    await db
      .updateTable('jobs')
      .set({ completed_at: new Date(Date.now()).toISOString() })
      .where('id', '=', id)
      .execute();
    const again = await json<{ estimatedDuration: string; jobId: string }>(await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' }));
    // No count yet for the new run: the last run of the same kind took 50 s.
    expect(again.estimatedDuration).toMatch(/^(49|50|51)s$/);
    const next = (await listJobs(db, { workspaceId: t.workspaceId, groupId: again.jobId, limit: 1, offset: 0 })).jobs[0]!;
    await claim(db, next.id, 0);
    // Count known (2000), nothing measured yet: the past rate (20/s) → 100 s.
    await recordJobProgress(db, next.id, OWNER, { itemsProcessed: 0, totalItems: 2000, itemsAdded: 0, itemsUpdated: 0, itemsSkipped: 0, itemsFiltered: 0 });
    expect(secondsFromNow(await at())).toBeGreaterThan(96);
    expect(secondsFromNow(await at())).toBeLessThan(104);
  });
});

describe('job transitions over the cancel extension', () => {
  it('cancels a queued run (freeing the slot) and refuses to cancel a completed one with 409 INVALID_TRANSITION', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    await connect(db, t.workspaceId, 'google');
    const run = await json<{ jobId: string }>(await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' }));
    const cancel = await t.request(`/api/ingest/jobs/${run.jobId}/cancel?workspaceId=${t.workspaceId}`, { method: 'POST' });
    expect(cancel.status).toBe(200);
    expect(await json(cancel)).toMatchObject({ success: true, status: 'cancelled' });
    const again = await json<{ jobId: string }>(await t.request(`/api/ingest/run?workspaceId=${t.workspaceId}`, { method: 'POST' }));
    const id = (await listJobs(db, { workspaceId: t.workspaceId, groupId: again.jobId, limit: 1, offset: 0 })).jobs[0]!.id;
    await claim(db, id);
    await transitionJob(db, id, 'running', 'completed', { owner: OWNER });
    const refused = await t.request(`/api/ingest/jobs/${again.jobId}/cancel?workspaceId=${t.workspaceId}`, { method: 'POST' });
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({ code: 'INVALID_TRANSITION', status: 409 });
    expect((await getJob(db, id))!.state).toBe('completed');
  });
});

describe('GET /api/ingest/history', () => {
  it('the id a run was given is in history: one record per source, each with the run id and its own sourceJobId; status takes either id', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    const ws = t.workspaceId;
    await connect(db, ws, 'google');
    await connect(db, ws, 'hubspot');
    const single = await json<{ syncId: string }>(await t.request(`/api/integrations/hubspot/sync`, { method: 'POST', json: { workspaceId: ws } }));
    expect((await getJob(db, single.syncId))?.groupId).toBe(single.syncId); // a run of one source: its job's id is the run id
    await transitionJob(db, single.syncId, 'queued', 'cancelled');
    const run = await json<{ jobId: string; sources: string[] }>(await t.request(`/api/ingest/run?workspaceId=${ws}`, { method: 'POST' }));
    expect(run.sources).toEqual(['google', 'hubspot']);
    const { jobs } = await listJobs(db, { workspaceId: ws, groupId: run.jobId, limit: 10, offset: 0 });
    await claim(db, jobs.find((j) => j.source === 'google')!.id);
    await progress(db, jobs.find((j) => j.source === 'google')!.id, 30, 60, 20);

    const history = await json<{ syncHistory: Array<{ jobId: string; sourceJobId: string; source: string; itemsProcessed: number; itemsAdded: number }> }>(
      await t.request(`/api/ingest/history?workspaceId=${ws}`),
    );
    const ofRun = history.syncHistory.filter((r) => r.jobId === run.jobId);
    expect(ofRun.map((r) => [r.source, r.sourceJobId]).sort()).toEqual([
      ['google', `${run.jobId}.google`],
      ['hubspot', `${run.jobId}.hubspot`],
    ]);
    expect(ofRun.find((r) => r.source === 'google')).toMatchObject({ itemsProcessed: 30, itemsAdded: 20 });
    expect(history.syncHistory.find((r) => r.jobId === single.syncId)).toMatchObject({ sourceJobId: single.syncId, source: 'hubspot', status: 'cancelled' });
    for (const id of [run.jobId, `${run.jobId}.google`]) {
      const st = await json<{ currentJob: { jobId: string; sources: Record<string, { itemsProcessed: number }> } }>(
        await t.request(`/api/ingest/status?workspaceId=${ws}&jobId=${id}`),
      );
      expect(st.currentJob.jobId, id).toBe(run.jobId);
      expect(st.currentJob.sources.google?.itemsProcessed).toBe(30);
    }
  });

  it('one record per job with every field; limit/offset paging; source and status filters; limits refused', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    const ws = t.workspaceId;
    // 25 finished jobs: i % 3 == 0 google failed, else hubspot (odd) / intercom (even) completed; then one running google job.
    const base = Date.now() - 3_600_000;
    for (let i = 0; i < 25; i++) {
      const source = i % 3 === 0 ? 'google' : i % 2 ? 'hubspot' : 'intercom';
      const j = await enqueueJob(db, { workspaceId: ws, kind: 'sync', source }, new Date(base + i * 60_000));
      await transitionJob(db, j.id, 'queued', 'running', { now: new Date(base + i * 60_000 + 1000), patch: { leaseOwner: OWNER } });
      await recordJobProgress(db, j.id, OWNER, { itemsProcessed: 10 + i, itemsAdded: i, itemsUpdated: 1, itemsSkipped: 9, itemsFiltered: 0 });
      if (i % 3 === 0) {
        await transitionJob(db, j.id, 'running', 'failed', {
          owner: OWNER,
          now: new Date(base + i * 60_000 + 31_000),
          patch: { lastError: 'token revoked', error: { message: 'token revoked', count: 1, severity: 'fatal', recoverable: false } },
        });
      } else {
        await transitionJob(db, j.id, 'running', 'completed', { owner: OWNER, now: new Date(base + i * 60_000 + 76_000) });
      }
    }
    const running = await enqueueJob(db, { workspaceId: ws, kind: 'sync', source: 'google' });
    const h = async (q: string) => t!.request(`/api/ingest/history?workspaceId=${ws}${q}`);

    const page1 = await json<{ syncHistory: Array<Record<string, unknown>>; pagination: Record<string, unknown> }>(await h(''));
    expect(page1.pagination).toEqual({ total: 26, limit: 20, offset: 0, hasMore: true });
    expect(page1.syncHistory).toHaveLength(20);
    // Newest first: the queued google job, then job 24 (google, failed after 30 s), then job 23 (hubspot, completed in 75 s).
    expect(page1.syncHistory[0]).toMatchObject({
      jobId: running.id,
      source: 'google',
      status: 'queued',
      startedAt: null,
      completedAt: null,
      duration: 'unknown',
      itemsProcessed: 0,
      errors: [],
    });
    expect(page1.syncHistory[1]).toEqual({
      jobId: expect.any(String),
      sourceJobId: expect.any(String),
      source: 'google',
      status: 'failed',
      startedAt: new Date(base + 24 * 60_000 + 1000).toISOString(),
      completedAt: new Date(base + 24 * 60_000 + 31_000).toISOString(),
      duration: '30s',
      itemsProcessed: 34,
      itemsAdded: 24,
      itemsUpdated: 1,
      itemsSkipped: 9,
      errors: [{ message: 'token revoked', count: 1, severity: 'fatal' }],
    });
    expect(page1.syncHistory[2]).toEqual({
      jobId: expect.any(String),
      sourceJobId: expect.any(String),
      source: 'hubspot',
      status: 'completed',
      startedAt: new Date(base + 23 * 60_000 + 1000).toISOString(),
      completedAt: new Date(base + 23 * 60_000 + 76_000).toISOString(),
      duration: '1m 15s',
      itemsProcessed: 33,
      itemsAdded: 23,
      itemsUpdated: 1,
      itemsSkipped: 9,
      errors: [],
    });
    const page2 = await json<{ syncHistory: unknown[]; pagination: unknown }>(await h('&limit=20&offset=20'));
    expect(page2.pagination).toEqual({ total: 26, limit: 20, offset: 20, hasMore: false });
    expect(page2.syncHistory).toHaveLength(6);

    const failed = await json<{ syncHistory: Array<{ source: string; status: string; duration: string; errors: unknown[] }>; pagination: { total: number } }>(
      await h('&status=failed&limit=100'),
    );
    expect(failed.pagination.total).toBe(9); // i = 0, 3, …, 24
    expect(failed.syncHistory.every((r) => r.source === 'google' && r.status === 'failed' && r.duration === '30s')).toBe(true);
    expect(failed.syncHistory[0]!.errors).toEqual([{ message: 'token revoked', count: 1, severity: 'fatal' }]);
    const hub = await json<{ pagination: { total: number } }>(await h('&source=hubspot&status=completed'));
    expect(hub.pagination.total).toBe(8); // odd i not divisible by 3: 1,5,7,11,13,17,19,23
    const runningOnly = await json<{ syncHistory: Array<{ jobId: string }>; pagination: { total: number } }>(await h('&status=running'));
    expect(runningOnly.syncHistory.map((r) => r.jobId)).toEqual([running.id]);
    const googleCompleted = await json<{ pagination: { total: number } }>(await h('&source=google&status=completed'));
    expect(googleCompleted.pagination.total).toBe(0);

    for (const bad of ['&limit=0', '&limit=101', '&limit=1.5', '&limit=abc', '&offset=-1', '&source=slack', '&status=queued']) {
      const r = await h(bad);
      expect(r.status, bad).toBe(400);
      expect(await json(r)).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    const max = await json<{ syncHistory: unknown[]; pagination: { limit: number } }>(await h('&limit=100'));
    expect(max.pagination.limit).toBe(100);
    expect(max.syncHistory).toHaveLength(26);
  });
});

describe('POST /api/ingest/backfill', () => {
  it('queues a windowed job: every field, toDate defaulting to now (CHS_NOW), dataTypes defaulted and validated per provider', async () => {
    t = await startTestApp({ now: '2024-05-20T12:00:00.000Z' });
    const db = t.engine.store.db;
    const url = `/api/ingest/backfill?workspaceId=${t.workspaceId}`;
    const notConnected = await t.request(url, { method: 'POST', json: { source: 'google', fromDate: '2024-04-01T00:00:00Z' } });
    expect(notConnected.status).toBe(400);
    expect(await json(notConnected)).toMatchObject({ code: 'INTEGRATION_NOT_CONNECTED' });
    await connect(db, t.workspaceId, 'google');
    await connect(db, t.workspaceId, 'hubspot');

    const res = await t.request(url, { method: 'POST', json: { source: 'google', fromDate: '2024-04-20T12:00:00Z' } });
    expect(res.status).toBe(200);
    const body = await json<Record<string, unknown>>(res);
    expect(body).toEqual({
      success: true,
      backfillId: expect.stringMatching(/^job_/),
      estimatedItems: null,
      estimatedDuration: 'unknown',
      status: 'queued',
      source: 'google',
      dateRange: { from: '2024-04-20T12:00:00.000Z', to: '2024-05-20T12:00:00.000Z' },
      dataTypes: ['emails'],
    });
    const job = (await listJobs(db, { workspaceId: t.workspaceId, groupId: String(body.backfillId), limit: 1, offset: 0 })).jobs[0]!;
    expect(job).toMatchObject({
      kind: 'backfill',
      source: 'google',
      state: 'queued',
      params: { since: '2024-04-20T12:00:00.000Z', until: '2024-05-20T12:00:00.000Z', dataTypes: ['emails'] },
    });

    const hub = await json<{ dataTypes: string[]; dateRange: unknown }>(
      await t.request(url, {
        method: 'POST',
        json: { source: 'hubspot', fromDate: '2024-01-01T00:00:00Z', toDate: '2024-02-01T00:00:00Z', dataTypes: ['meetings', 'calls'] },
      }),
    );
    expect(hub).toMatchObject({ dataTypes: ['meetings', 'calls'], dateRange: { from: '2024-01-01T00:00:00.000Z', to: '2024-02-01T00:00:00.000Z' } });

    const bad: Array<[unknown, string]> = [
      [{ fromDate: '2024-04-01T00:00:00Z' }, 'VALIDATION_ERROR'],
      [{ source: 'google' }, 'VALIDATION_ERROR'],
      [{ source: 'slack', fromDate: '2024-04-01T00:00:00Z' }, 'VALIDATION_ERROR'],
      [{ source: 'google', fromDate: '2024-04-01' }, 'VALIDATION_ERROR'],
      [{ source: 'google', fromDate: 'yesterday' }, 'VALIDATION_ERROR'],
      [{ source: 'intercom', fromDate: '2024-04-01T00:00:00Z', dataTypes: ['conversations'] }, 'INTEGRATION_NOT_CONNECTED'],
      [{ source: 'google', fromDate: '2024-04-01T00:00:00Z', dataTypes: ['conversations'] }, 'INVALID_INPUT'],
      [{ source: 'google', fromDate: '2024-04-01T00:00:00Z', dataTypes: [] }, 'VALIDATION_ERROR'],
      [{ source: 'google', fromDate: '2024-05-01T00:00:00Z', toDate: '2024-04-01T00:00:00Z' }, 'INVALID_INPUT'],
      [{ source: 'google', fromDate: '2024-06-01T00:00:00Z' }, 'INVALID_INPUT'],
    ];
    for (const [b, code] of bad) {
      const r = await t.request(url, { method: 'POST', json: b });
      expect(r.status, JSON.stringify(b)).toBe(400);
      expect((await json(r)).code, JSON.stringify(b)).toBe(code);
    }
  });

  it('estimatedItems from the density of stored items of that source; estimatedDuration from the last completed run’s throughput', async () => {
    t = await startTestApp({ now: '2024-05-20T12:00:00.000Z' });
    const db = t.engine.store.db;
    const ws = t.workspaceId;
    await connect(db, ws, 'google');
    const at = '2024-05-01T00:00:00.000Z';
    await db
      .insertInto('clients')
      .values({
        id: 'cl_1',
        workspace_id: ws,
        name: 'Globex',
        name_source: 'domain',
        primary_domain: 'globex.com',
        mrr: null,
        renewal_date: null,
        csm_owner: null,
        is_excluded: 0,
        status: 'active',
        health_score: null,
        health_updated_at: null,
        last_interaction_at: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    // 31 Gmail interactions over 30 days: 31/30 per day → 62 in a 60-day window.
    for (let i = 0; i <= 30; i++) {
      const when = new Date(Date.parse('2024-04-01T00:00:00Z') + i * DAY_MS).toISOString();
      await db
        .insertInto('interactions')
        .values({
          id: `in_${i}`,
          workspace_id: ws,
          client_id: 'cl_1',
          type: 'email',
          source: 'google',
          dedupe_key: `k${i}`,
          provider_id: `g${i}`,
          thread_id: null,
          subject: 's',
          summary: 's',
          sentiment_label: 'neutral',
          sentiment_score: 0,
          occurred_at: when,
          from_email: 'a@globex.com',
          to_emails: 'rep@acme.com',
          direction: 'inbound',
          opened: null,
          signals: 0,
          addressed: 1,
          content_hash: 'h',
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
    // A past run: 310 items in 31 s → 10 items/s.
    const past = await enqueueJob(db, { workspaceId: ws, kind: 'sync', source: 'google' });
    await claim(db, past.id);
    await progress(db, past.id, 310, 310);
    await transitionJob(db, past.id, 'running', 'completed', { owner: OWNER });
    await db.updateTable('jobs').set({ started_at: '2024-05-20T10:00:00.000Z', completed_at: '2024-05-20T10:00:31.000Z' }).where('id', '=', past.id).execute();

    const body = await json<{ estimatedItems: number; estimatedDuration: string }>(
      await t.request(`/api/ingest/backfill?workspaceId=${ws}`, { method: 'POST', json: { source: 'google', fromDate: '2024-03-21T12:00:00Z' } }),
    );
    expect(body.estimatedItems).toBe(62);
    expect(body.estimatedDuration).toBe('6s'); // 62 / 10 per s
  });
});

describe('POST /api/integrations/:provider/sync and /backfill', () => {
  it('sync: the documented fields, 400 when not connected or the body lacks workspaceId, 409 on a second active sync', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    const url = '/api/integrations/google/sync';
    const not = await t.request(url, { method: 'POST', json: { workspaceId: t.workspaceId } });
    expect(not.status).toBe(400);
    expect(await json(not)).toMatchObject({ code: 'INTEGRATION_NOT_CONNECTED' });
    await connect(db, t.workspaceId, 'google');
    expect((await t.request(url, { method: 'POST', json: {} })).status).toBe(400);
    expect((await t.request('/api/integrations/slack/sync', { method: 'POST', json: { workspaceId: t.workspaceId } })).status).toBe(400);
    const before = Date.now();
    const res = await t.request(url, { method: 'POST', json: { workspaceId: t.workspaceId } });
    expect(res.status).toBe(200);
    const body = await json<{ success: boolean; message: string; syncId: string; startedAt: string; estimatedDuration: number | null }>(res);
    expect(body).toEqual({
      success: true,
      message: 'google sync queued',
      syncId: expect.stringMatching(/^job_/),
      startedAt: expect.any(String),
      estimatedDuration: null,
    });
    expect(Date.parse(body.startedAt)).toBeGreaterThanOrEqual(before - 5);
    const job = (await listJobs(db, { workspaceId: t.workspaceId, groupId: body.syncId, limit: 1, offset: 0 })).jobs[0]!;
    expect(job).toMatchObject({ kind: 'sync', source: 'google', state: 'queued', params: { mode: 'quick' } });
    const second = await t.request(url, { method: 'POST', json: { workspaceId: t.workspaceId } });
    expect(second.status).toBe(409);
    expect(await json(second)).toMatchObject({ code: 'JOB_CONFLICT', status: 409 });
    // needs-reauth is refused before queuing
    await transitionJob(db, job.id, 'queued', 'cancelled');
    await markNeedsReauth(db, t.workspaceId, 'google', 'invalid_grant');
    const reauth = await t.request(url, { method: 'POST', json: { workspaceId: t.workspaceId } });
    expect(reauth.status).toBe(409);
    expect(await json(reauth)).toMatchObject({ code: 'INTEGRATION_NEEDS_REAUTH' });
  });

  it('backfill: sinceDays required, an integer 1-365; the window ends now (CHS_NOW); status processing', async () => {
    t = await startTestApp({ now: '2024-05-20T12:00:00.000Z' });
    const db = t.engine.store.db;
    await connect(db, t.workspaceId, 'hubspot');
    const url = '/api/integrations/hubspot/backfill';
    for (const sinceDays of [undefined, 0, 366, 1.5, '30', -1]) {
      const r = await t.request(url, { method: 'POST', json: { workspaceId: t.workspaceId, ...(sinceDays !== undefined ? { sinceDays } : {}) } });
      expect(r.status, String(sinceDays)).toBe(400);
    }
    const res = await t.request(url, { method: 'POST', json: { workspaceId: t.workspaceId, sinceDays: 365 } });
    expect(res.status).toBe(200);
    const body = await json<Record<string, unknown>>(res);
    expect(body).toEqual({
      success: true,
      message: 'hubspot backfill of 365 day(s) queued',
      jobId: expect.stringMatching(/^job_/),
      startDate: '2023-05-21T12:00:00.000Z',
      endDate: '2024-05-20T12:00:00.000Z',
      estimatedRecords: null,
      status: 'processing',
    });
    const job = (await listJobs(db, { workspaceId: t.workspaceId, groupId: String(body.jobId), limit: 1, offset: 0 })).jobs[0]!;
    expect(job).toMatchObject({ kind: 'backfill', source: 'hubspot', params: { since: '2023-05-21T12:00:00.000Z', until: '2024-05-20T12:00:00.000Z' } });
    expect((await t.request('/api/integrations/google/backfill', { method: 'POST', json: { workspaceId: t.workspaceId, sinceDays: 1 } })).status).toBe(400);
  });
});

describe('POST /api/ingest/v2/start and GET /api/ingest/v2/status (no worker)', () => {
  it('limits and defaults; google only; a second start returns the running session; status fields; 404 before any', async () => {
    t = await startTestApp({ now: '2024-05-20T12:00:00.000Z' });
    const db = t.engine.store.db;
    const ws = t.workspaceId;
    const none = await t.request(`/api/ingest/v2/status?workspaceId=${ws}`);
    expect(none.status).toBe(404);
    expect(await json(none)).toMatchObject({ code: 'NOT_FOUND' });
    const start = (b: Record<string, unknown>) => t!.request('/api/ingest/v2/start', { method: 'POST', json: { workspaceId: ws, ...b } });
    const notConnected = await start({ sinceDays: 30 });
    expect(notConnected.status).toBe(400);
    expect(await json(notConnected)).toMatchObject({ code: 'INTEGRATION_NOT_CONNECTED' });
    await connect(db, ws, 'google');
    for (const b of [
      {},
      { sinceDays: 0 },
      { sinceDays: 366 },
      { sinceDays: 30, maxEmails: 50_001 },
      { sinceDays: 30, maxEmails: 0 },
      { sinceDays: 30, batchSize: 1001 },
      { sinceDays: 30, batchSize: 0 },
      { sinceDays: 30, batchSize: 10.5 },
    ]) {
      const r = await start(b);
      expect(r.status, JSON.stringify(b)).toBe(400);
      expect(await json(r)).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    const res = await start({ sinceDays: 30 });
    expect(res.status).toBe(200);
    const body = await json<{
      sessionId: string;
      config: Record<string, unknown>;
      status: string;
      estimatedDuration: string;
      success: boolean;
      message: string;
    }>(res);
    expect(body).toEqual({
      success: true,
      message: expect.stringContaining('batches of 500'),
      sessionId: expect.stringMatching(/^ing_/),
      config: { workspaceId: ws, sinceDays: 30, maxEmails: 10_000, batchSize: 500, startDate: '2024-04-20T12:00:00.000Z' },
      status: 'initializing',
      estimatedDuration: 'unknown',
    });
    const again = await start({ sinceDays: 90, maxEmails: 50_000, batchSize: 1000 });
    expect(again.status).toBe(200);
    expect(await json(again)).toMatchObject({
      sessionId: body.sessionId,
      status: 'initializing',
      config: { sinceDays: 30, maxEmails: 10_000, batchSize: 500 },
    });
    // The job behind it holds google's slot: a sync is refused while it is active.
    expect((await t.request('/api/integrations/google/sync', { method: 'POST', json: { workspaceId: ws } })).status).toBe(409);

    const job = (await listJobs(db, { workspaceId: ws, kinds: ['ingest'], limit: 1, offset: 0 })).jobs[0]!;
    expect(job.params).toEqual({ sessionId: body.sessionId, sinceDays: 30, maxEmails: 10_000, batchSize: 500 });
    expect(job.id).toBe(body.sessionId); // the session id is the run id: status and history find it
    const inHistory = await json<{ syncHistory: Array<{ jobId: string; source: string }> }>(await t.request(`/api/ingest/history?workspaceId=${ws}`));
    expect(inHistory.syncHistory).toMatchObject([{ jobId: body.sessionId, source: 'google', status: 'queued' }]);
    expect((await t.request(`/api/ingest/status?workspaceId=${ws}&jobId=${body.sessionId}`)).status).toBe(200);
    let s = await json<Record<string, Record<string, unknown>>>(await t.request(`/api/ingest/v2/status?workspaceId=${ws}`));
    expect(s).toMatchObject({
      sessionId: body.sessionId,
      status: 'initializing',
      progress: { emailsProcessed: 0, totalEmails: null, percentComplete: 0, batchesCompleted: 0, totalBatches: null },
      timing: { estimatedCompletionAt: null },
      stats: { clientsIdentified: 0, contactsCreated: 0, interactionsCreated: 0, errorsCount: 0 },
      errors: [],
    });
    // The job fails (e.g. revoked token): the session ends as failed, with the error, never "processing" forever.
    await claim(db, job.id, 4);
    await db.updateTable('ingestion_sessions').set({ status: 'processing' }).where('id', '=', body.sessionId).execute();
    await transitionJob(db, job.id, 'running', 'failed', {
      owner: OWNER,
      patch: { lastError: 'token revoked', error: { message: 'token revoked', count: 1, severity: 'fatal', recoverable: false } },
    });
    s = await json(await t.request(`/api/ingest/v2/status?workspaceId=${ws}`));
    expect(s.status).toBe('failed');
    expect(s.errors).toEqual([{ timestamp: expect.any(String), message: 'token revoked', recoverable: false }]);
    // A new start is a new session now.
    const third = await json<{ sessionId: string }>(await start({ sinceDays: 7, batchSize: 100 }));
    expect(third.sessionId).not.toBe(body.sessionId);
  });
});
