/**
 * The job lifecycle as an embedder runs it: the engine's handlers in a JobWorker (or called
 * directly), no runner, against the fake Gmail server, on both dialects:
 * - a large ingestion whose job fails leaves its session `failed`, not `processing`; so does one
 *   whose health rebuild fails, and the next ingestion rebuilds what it had not;
 * - a job stopped mid-way (shutdown, cancel signal) and taken up again reports the totals of
 *   both attempts, equal to what the store holds, and its session stats too;
 * - so does a job parked by Gmail's daily limit and claimed again after it;
 * - a worker that lost its lease cannot commit a batch.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGmailServer, type FakeGmailServer } from '../connectors/google/fake-gmail-server.js';
import { connectIntegration } from '../integrations/repository.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { claimNextJob, getJob, transitionJob } from '../jobs/repository.js';
import { startIngestionSession } from '../jobs/runs.js';
import { getIngestionSession } from '../jobs/sessions.js';
import { JobWorker } from '../jobs/worker.js';
import type { FaultHook } from '../sync/provider-sync.js';
import { createEngine, type Engine } from './engine.js';
import { createJobHandlers } from './job-handlers.js';
import { until } from '../test-support/until.js';
import { DAY_MS } from '../util/time.js';

const NOW = Date.parse('2025-06-30T12:00:00Z');

function message(i: number) {
  const domain = ['globex.com', 'initech.com', 'hooli.com'][i % 3]!;
  const at = NOW - (i + 1) * 3_600_000;
  return {
    id: `g${String(i).padStart(5, '0')}`,
    internalDate: at,
    raw: [
      `From: Contact <c${i % 4}@${domain}>`,
      'To: Rep <rep@acme.com>',
      `Subject: Note ${i}`,
      `Date: ${new Date(at).toUTCString()}`,
      `Message-ID: <m${i}@${domain}>`,
      '',
      `Thanks for item ${i}, all good.`,
      '',
    ].join('\r\n'),
  };
}

const dialects = await testDialects();
afterAll(dropTestSchemas);

// Two Gmail pages through the whole pipeline, twice per dialect: generous for a loaded machine.
const SLOW = 120_000;

const CONFIG = { workspaceId: 'acme.com', sinceDays: 60, maxEmails: 10_000, batchSize: 50, startDate: new Date(NOW - 60 * DAY_MS).toISOString() };

describe.each(dialects)('job handlers without a runner on $name', (dialect) => {
  let server: FakeGmailServer;
  let engine: Engine;
  let worker: JobWorker | undefined;
  let fault: FaultHook = () => undefined;
  beforeEach(async () => {
    server = await startFakeGmailServer({ messages: Array.from({ length: 620 }, (_, i) => message(i)) });
    const key = randomBytes(32);
    engine = await createEngine({
      database: await dialect.open(),
      clock: () => new Date(NOW),
      secretKey: key,
      providerUrls: { googleApi: server.apiUrl, googleToken: server.tokenUrl, googleQuotaPerMinute: 0 },
      faults: (point, n) => fault(point, n),
    });
    await createWorkspace(engine.store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'rep@acme.com' });
    await connectIntegration(engine.store.db, key, {
      workspaceId: 'acme.com',
      provider: 'google',
      credentials: { accessToken: 'fake-access-token' },
      accountEmail: 'rep@acme.com',
    });
  });
  afterEach(async () => {
    fault = () => undefined;
    await worker?.stop(2000);
    worker = undefined;
    await engine.close();
    await server.close();
  });

  const stored = async () =>
    Number(
      (
        await engine.store.db
          .selectFrom('interactions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it(
    'a large ingestion whose job fails in an embedded worker ends its session failed, with the error',
    async () => {
      server.injectFailure({ path: /\/messages$/, status: 400, times: 1000 });
      const { session } = await startIngestionSession(engine.store.db, CONFIG);
      worker = new JobWorker({ db: engine.store.db, handlers: createJobHandlers(engine), pollMs: 20 });
      worker.start();
      await until(async () => (await getJob(engine.store.db, session.id))?.state === 'failed', SLOW / 2);
      const ended = await getIngestionSession(engine.store.db, session.id);
      expect(ended?.status).toBe('failed');
      expect(ended?.completedAt).not.toBeNull();
      expect(ended?.errors).toEqual([{ timestamp: expect.any(String), message: expect.stringMatching(/Gmail.*400|Injected failure/), recoverable: false }]);
    },
    SLOW,
  );

  it(
    'a large ingestion whose health rebuild fails ends failed, job and session, with the error; the next one rebuilds the clients it had not',
    async () => {
      const db = engine.store.db;
      const health = async () =>
        (await db.selectFrom('clients').select(['health_score', 'health_stale_from']).where('workspace_id', '=', 'acme.com').execute()).map((c) => [
          c.health_score === null ? 'unscored' : 'scored',
          c.health_stale_from === null ? 'fresh' : 'stale',
        ]);
      fault = (point) => {
        if (point === 'rebuild') throw new Error('the database went away (test)');
      };
      const first = await startIngestionSession(db, CONFIG);
      worker = new JobWorker({ db, handlers: createJobHandlers(engine), pollMs: 20 });
      worker.start();
      await until(async () => ['failed', 'completed'].includes((await getJob(db, first.session.id))?.state ?? ''), SLOW / 2);
      expect(await getJob(db, first.session.id)).toMatchObject({ state: 'failed', itemsProcessed: 620, itemsAdded: 620 });
      const failed = await getIngestionSession(db, first.session.id);
      expect(failed?.status).toBe('failed');
      expect(failed?.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/^the mail was stored, but the health rebuild did not finish .*: the database went away \(test\)$/),
        }),
      ]);
      expect(await health()).toEqual([
        ['unscored', 'stale'],
        ['unscored', 'stale'],
        ['unscored', 'stale'],
      ]);

      // The next ingestion stores nothing new, and rebuilds them.
      fault = () => undefined;
      const second = await startIngestionSession(db, CONFIG);
      await until(async () => ['failed', 'completed'].includes((await getJob(db, second.session.id))?.state ?? ''), SLOW / 2);
      expect(await getJob(db, second.session.id)).toMatchObject({ state: 'completed', itemsAdded: 0 });
      expect(await health()).toEqual([
        ['scored', 'fresh'],
        ['scored', 'fresh'],
        ['scored', 'fresh'],
      ]);
    },
    SLOW,
  );

  it(
    'a job stopped mid-way and taken up again reports the totals of both attempts, equal to the store, in the job and in its session',
    async () => {
      const { session, job } = await startIngestionSession(engine.store.db, CONFIG);
      const handlers = createJobHandlers(engine);
      // Attempt 1: stopped (as on shutdown) once the second Gmail page arrives, mid-way through the first.
      const first = await claimNextJob(engine.store.db, 'worker-1', 60_000);
      expect(first?.id).toBe(job.id);
      const stop = new AbortController();
      fault = (point, n) => {
        if (point === 'fetch' && n === 2) stop.abort(new Error('shutdown'));
      };
      expect(await handlers.ingest(first!, { owner: 'worker-1', signal: stop.signal })).toEqual({ outcome: 'released' });
      await transitionJob(engine.store.db, job.id, 'running', 'queued', { owner: 'worker-1' });
      const mid = await getJob(engine.store.db, job.id);
      const midStored = await stored();
      expect(midStored).toBeGreaterThan(0);
      expect(midStored).toBeLessThan(620);
      expect(mid).toMatchObject({ itemsProcessed: midStored, itemsAdded: midStored });
      expect((await getIngestionSession(engine.store.db, session.id))?.status).toBe('processing');

      // Attempt 2, by another worker.
      fault = () => undefined;
      const second = await claimNextJob(engine.store.db, 'worker-2', 60_000);
      expect(second?.attempts).toBe(2);
      expect(await handlers.ingest(second!, { owner: 'worker-2', signal: new AbortController().signal })).toEqual({ outcome: 'completed' });
      await transitionJob(engine.store.db, job.id, 'running', 'completed', { owner: 'worker-2' });
      expect(await stored()).toBe(620);
      expect(await getJob(engine.store.db, job.id)).toMatchObject({ itemsProcessed: 620, itemsAdded: 620, itemsUpdated: 0, itemsSkipped: 0, totalItems: 620 });
      const done = await getIngestionSession(engine.store.db, session.id);
      expect(done?.status).toBe('completed');
      expect(done?.stats).toMatchObject({ emailsProcessed: 620, interactionsCreated: 620, batchesCompleted: 13, errorsCount: 0 });
    },
    SLOW,
  );

  it(
    'a job parked by the daily limit mid-way and claimed again reports the totals of both attempts',
    async () => {
      const { job } = await startIngestionSession(engine.store.db, CONFIG);
      const handlers = createJobHandlers(engine);
      const first = await claimNextJob(engine.store.db, 'worker-1', 60_000);
      // Page 1 arrived; the look-ahead now fetches page 2, and Gmail says the day's quota is spent.
      fault = (point, n) => {
        if (point === 'fetch' && n === 1) server.injectFailure({ path: /\/messages\/g/, status: 403, reason: 'dailyLimitExceeded', times: 1 });
      };
      const parked = await handlers.ingest(first!, { owner: 'worker-1', signal: new AbortController().signal });
      expect(parked).toMatchObject({ outcome: 'parked' });
      await transitionJob(engine.store.db, job.id, 'running', 'parked', {
        owner: 'worker-1',
        patch: { parkedUntil: new Date(Date.now() - 1000).toISOString() },
      });
      const partial = await stored();
      expect(partial).toBeLessThan(620);
      expect(await getJob(engine.store.db, job.id)).toMatchObject({ itemsProcessed: partial, itemsAdded: partial });

      fault = () => undefined;
      const again = await claimNextJob(engine.store.db, 'worker-2', 60_000);
      expect(again?.id).toBe(job.id);
      expect(await handlers.ingest(again!, { owner: 'worker-2', signal: new AbortController().signal })).toEqual({ outcome: 'completed' });
      expect(await stored()).toBe(620);
      expect(await getJob(engine.store.db, job.id)).toMatchObject({ itemsProcessed: 620, itemsAdded: 620, itemsSkipped: 0 });
      expect((await getIngestionSession(engine.store.db, job.id))?.stats).toMatchObject({ emailsProcessed: 620, interactionsCreated: 620 });
    },
    SLOW,
  );

  it(
    'a worker that lost its lease commits nothing: its batch is rolled back',
    async () => {
      const { job } = await startIngestionSession(engine.store.db, CONFIG);
      const mine = await claimNextJob(engine.store.db, 'worker-1', 60_000);
      // Swept and taken by another worker meanwhile.
      await transitionJob(engine.store.db, job.id, 'running', 'queued', { owner: 'worker-1', event: { reason: 'lease expired' } });
      await claimNextJob(engine.store.db, 'worker-2', 60_000);
      await expect(createJobHandlers(engine).ingest(mine!, { owner: 'worker-1', signal: new AbortController().signal })).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      expect(await stored()).toBe(0);
      expect(await getJob(engine.store.db, job.id)).toMatchObject({ itemsProcessed: 0, leaseOwner: 'worker-2', state: 'running' });
      // The session is the new owner's to finish: still processing.
      expect((await getIngestionSession(engine.store.db, job.id))?.status).toBe('processing');
    },
    SLOW,
  );
});
