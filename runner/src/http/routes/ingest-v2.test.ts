/**
 * /ingest/v2 with a real in-process job service against the fake Gmail server: batches of
 * batchSize, maxEmails as a cap, and the session's final progress and stats.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { connectIntegration, createEngine } from '@chs/core';
import { startFakeGmailServer, type FakeGmailServer } from '@chs/core/testing';
import { startTestApp, type TestApp } from '../testing.js';
import { createJobService, type JobService } from '../../jobs/service.js';
import { DEFAULT_JOBS_CONFIG } from '../../config.js';
import { makeMailbox } from '../../jobs/testing.js';

let t: TestApp | undefined;
let fake: FakeGmailServer | undefined;
let jobs: JobService | undefined;
afterEach(async () => {
  await jobs?.stop();
  jobs = undefined;
  await t?.close();
  t = undefined;
  await fake?.close();
  fake = undefined;
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function setup(messages: number): Promise<TestApp> {
  const key = randomBytes(32);
  fake = await startFakeGmailServer({ messages: makeMailbox(messages).messages, emailAddress: 'rep@acme.com' });
  const app = await startTestApp({ jobs: { nudge: () => jobs?.nudge() } });
  // A second engine over the same store, with what provider syncs need (the test app's has no key).
  const engine = await createEngine({ database: app.engine.store, secretKey: key, providerUrls: { googleApi: fake.apiUrl, googleToken: fake.tokenUrl } });
  jobs = createJobService({ engine, config: { ...app.config, jobs: { ...DEFAULT_JOBS_CONFIG, pollMs: 50, schedulerEnabled: false } } });
  jobs.start();
  await connectIntegration(app.engine.store.db, key, {
    workspaceId: app.workspaceId,
    provider: 'google',
    credentials: { accessToken: 'fake-access-token', email: 'rep@acme.com' },
    accountEmail: 'rep@acme.com',
  });
  return app;
}

type V2Status = { status: string; progress: Record<string, number | null>; stats: Record<string, number>; timing: Record<string, unknown>; errors: unknown[] };

async function waitDone(app: TestApp): Promise<V2Status> {
  for (let i = 0; i < 300; i++) {
    const s = (await (await app.request(`/api/ingest/v2/status?workspaceId=${app.workspaceId}`)).json()) as V2Status;
    if (s.status === 'completed' || s.status === 'failed') return s;
    await sleep(50);
  }
  throw new Error('the ingestion did not finish');
}

describe('/ingest/v2 with a worker', () => {
  it('25 messages in batches of 10: three batches, every message once, the session completed with its stats', async () => {
    t = await setup(25);
    const res = await t.request('/api/ingest/v2/start', { method: 'POST', json: { workspaceId: t.workspaceId, sinceDays: 7, batchSize: 10 } });
    expect(res.status).toBe(200);
    const s = await waitDone(t);
    expect(s.status).toBe('completed');
    expect(s.progress).toEqual({ emailsProcessed: 25, emailsRead: 25, totalEmails: 25, percentComplete: 100, batchesCompleted: 3, totalBatches: 3 });
    expect(s.stats).toEqual({ clientsIdentified: 5, contactsCreated: expect.any(Number), interactionsCreated: 25, errorsCount: 0 });
    expect(s.timing.estimatedCompletionAt).toBe(
      (await t.engine.store.db.selectFrom('ingestion_sessions').select('completed_at').executeTakeFirstOrThrow()).completed_at,
    );
    const n = await t.engine.store.db
      .selectFrom('interactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(25);
  });

  it('maxEmails caps the ingestion: 12 of 30 messages, newest first', async () => {
    t = await setup(30);
    await t.request('/api/ingest/v2/start', { method: 'POST', json: { workspaceId: t.workspaceId, sinceDays: 7, batchSize: 5, maxEmails: 12 } });
    const s = await waitDone(t);
    expect(s.status).toBe('completed');
    expect(s.progress).toMatchObject({ emailsProcessed: 12, percentComplete: 100, batchesCompleted: 3 });
    const keys = (await t.engine.store.db.selectFrom('interactions').select('dedupe_key').execute()).map((r) => r.dedupe_key);
    expect(keys).toHaveLength(12);
  });
});
