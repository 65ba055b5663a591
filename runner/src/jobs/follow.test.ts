/**
 * Jobs a user can follow, through real HTTP with `chs serve` processes (the built binary; run
 * `npx tsc -b` first) and a fake Gmail, on a SQLite file (a fresh PostgreSQL database per test
 * when CHS_TEST_DATABASE=postgres, the second pass of `.ci/run`):
 * (a) the id each of the five start endpoints gives is found in /ingest/status and in
 *     /ingest/history, with the exact totals of that run;
 * (b) SIGKILL at three points of a job (while fetching, inside a write batch, during the health
 *     rebuild; CHS_TEST_FAULT makes the runner kill itself there and say so), then a restart:
 *     history shows the exact totals of all attempts, progress never went backwards, and the
 *     store holds each message once.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS, openStore, type Store } from '@chs/core';
import { createTestDatabase, type FakeGmailServer, postgresAvailable, startFakeGmailServer, TEST_PG_URL, type TestDatabase } from '@chs/core/testing';
import { chsEnv, initAndConnect, tearDown, makeMailbox, serve, sleep, startDelayProxy, startTcpProxy, until, type Env, type Serve } from './testing.js';

// Spawned runners share the CPUs with the rest of the suite; PostgreSQL writes a batch in more round trips.
const SLOW = 240_000;

const serves: Serve[] = [];
let fake: FakeGmailServer | undefined;
let database: TestDatabase | undefined;
let store: Store | undefined;
// Taken from the test first, so a teardown still running cannot clear the next test's; PostgreSQL
// may take a while to drop a database on a loaded machine.
afterEach(async () => {
  const opened = [store, fake, database] as const;
  [store, fake, database] = [undefined, undefined, undefined];
  await tearDown(serves, ...opened);
}, 120_000);

interface Totals {
  itemsProcessed: number;
  itemsAdded: number;
  itemsUpdated: number;
  itemsSkipped: number;
}
interface HistoryRecord extends Totals {
  jobId: string;
  sourceJobId: string;
  source: string;
  status: string;
  errors: unknown[];
}
interface Status {
  currentJob: { jobId: string; status: string; progress: number; sources: Record<string, { status: string; itemsProcessed: number }> };
}

async function setup(messages: number, extra: Env = {}): Promise<{ env: Env; key: string; box: ReturnType<typeof makeMailbox> }> {
  const box = makeMailbox(messages);
  fake = await startFakeGmailServer({ messages: box.messages, accessTokens: [], emailAddress: 'rep@acme.com' });
  database = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'chs-follow-'));
  // No client-side Gmail quota: pacing 1,200 fetches at 15,000 units a minute would take half a minute a run.
  const env = chsEnv(database.url, dir, fake.apiUrl, fake.tokenUrl, { CHS_GOOGLE_QUOTA_UNITS_PER_MINUTE: '0', ...extra });
  return { env, key: await initAndConnect(env), box };
}

function client(base: string, key: string) {
  return async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as T;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/** The stored Gmail interactions: how many rows, and their distinct Message-IDs. */
async function stored(): Promise<{ rows: number; keys: Set<string> }> {
  store ??= await openStore({ url: database!.url });
  const rows = await store.db.selectFrom('interactions').select(['dedupe_key']).where('workspace_id', '=', 'acme.com').where('source', '=', 'google').execute();
  return { rows: rows.length, keys: new Set(rows.map((r) => r.dedupe_key.replace(/^<|>$/g, '').toLowerCase())) };
}

async function closeStore(): Promise<void> {
  await store?.close();
  store = undefined;
}

describe('one id per run, from start to history (chs serve + fake Gmail)', () => {
  it(
    '(a) the ids of /ingest/run, /integrations/google/sync, /integrations/google/backfill, /ingest/backfill and /ingest/v2/start are in status and history with their exact totals',
    async () => {
      const t0 = Date.now();
      const { env, key, box } = await setup(40);
      const s = await serve(serves, env, 'runner', 60_000);
      const api = client(s.base, key);
      const finished = (id: string) =>
        until(
          `run ${id} to finish`,
          async () => {
            const st = await api<Status>(`/ingest/status?workspaceId=acme.com&jobId=${id}`);
            return ['completed', 'failed', 'cancelled'].includes(st.currentJob.status) ? st : undefined;
          },
          60_000,
          100,
        );

      // Each start, then what its run must have done: the first reads all 40, a quick sync the one
      // new message, the three windowed reads see all 41 again and store none of them twice.
      const starts: Array<{ name: string; start: () => Promise<string>; expect: Totals; before?: () => void }> = [
        {
          name: 'POST /ingest/run',
          start: async () => (await api<{ jobId: string }>('/ingest/run?workspaceId=acme.com', { sources: ['google'] })).jobId,
          expect: { itemsProcessed: 40, itemsAdded: 40, itemsUpdated: 0, itemsSkipped: 0 },
        },
        {
          name: 'POST /integrations/google/sync',
          before: () => {
            const m = makeMailbox(41).messages[40]!;
            fake!.addMessage({ ...m, id: 'gnew' });
          },
          start: async () => (await api<{ syncId: string }>('/integrations/google/sync', { workspaceId: 'acme.com' })).syncId,
          expect: { itemsProcessed: 1, itemsAdded: 1, itemsUpdated: 0, itemsSkipped: 0 },
        },
        {
          name: 'POST /integrations/google/backfill',
          start: async () => (await api<{ jobId: string }>('/integrations/google/backfill', { workspaceId: 'acme.com', sinceDays: 30 })).jobId,
          expect: { itemsProcessed: 41, itemsAdded: 0, itemsUpdated: 0, itemsSkipped: 41 },
        },
        {
          name: 'POST /ingest/backfill',
          start: async () =>
            (
              await api<{ backfillId: string }>('/ingest/backfill?workspaceId=acme.com', {
                source: 'google',
                fromDate: new Date(Date.now() - DAY_MS).toISOString(),
              })
            ).backfillId,
          expect: { itemsProcessed: 41, itemsAdded: 0, itemsUpdated: 0, itemsSkipped: 41 },
        },
        {
          name: 'POST /ingest/v2/start',
          start: async () => (await api<{ sessionId: string }>('/ingest/v2/start', { workspaceId: 'acme.com', sinceDays: 30, batchSize: 10 })).sessionId,
          expect: { itemsProcessed: 41, itemsAdded: 0, itemsUpdated: 0, itemsSkipped: 41 },
        },
      ];
      const given: string[] = [];
      for (const step of starts) {
        step.before?.();
        const id = await step.start();
        given.push(id);
        const st = await finished(id);
        expect(st.currentJob, step.name).toMatchObject({
          jobId: id,
          status: 'completed',
          progress: 100,
          sources: { google: { status: 'completed', itemsProcessed: step.expect.itemsProcessed } },
        });
        const history = await api<{ syncHistory: HistoryRecord[] }>('/ingest/history?workspaceId=acme.com&limit=100');
        const records = history.syncHistory.filter((r) => r.jobId === id);
        expect(records, step.name).toHaveLength(1);
        expect(records[0], step.name).toMatchObject({ source: 'google', status: 'completed', sourceJobId: id, errors: [], ...step.expect });
      }
      expect(new Set(given).size).toBe(5);
      const history = await api<{ syncHistory: HistoryRecord[]; pagination: { total: number } }>('/ingest/history?workspaceId=acme.com&limit=100');
      expect(history.pagination.total).toBe(5);
      expect(history.syncHistory.map((r) => r.jobId).reverse()).toEqual(given);

      const after = await stored();
      expect(after.rows).toBe(41);
      expect(after.keys).toEqual(new Set([...box.messageIds, 'm40@globex.com']));
      console.info(`[follow] (a) five start endpoints found in status and history: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    },
    SLOW,
  );
});

describe('counts that survive a crash (chs serve SIGKILLed by CHS_TEST_FAULT, then restarted)', () => {
  const N = 1200; // three Gmail pages of 500, 500 and 200

  /**
   * Starts a run on a runner that kills itself at `fault`, checks where it landed with `landed`,
   * restarts a clean runner and follows the run to its end, asserting progress never goes back.
   */
  async function crashAndResume(
    fault: string,
    start: (api: ReturnType<typeof client>) => Promise<string>,
    landed: (killedAt: { rows: number; job: JobRow }) => void,
  ): Promise<{ id: string; final: HistoryRecord; reads: { before: number; after: number } }> {
    const { env, key, box } = await setup(N, { CHS_JOB_LEASE_MS: '2000' });
    const doomed = await serve(serves, { ...env, CHS_TEST_FAULT: fault }, 'doomed', 60_000);
    const id = await start(client(doomed.base, key));
    await until('the runner to kill itself', async () => (doomed.proc.signalCode !== null ? true : undefined), 60_000, 50);
    expect(doomed.proc.signalCode).toBe('SIGKILL');
    const [point, n] = fault.split(':');
    expect(doomed.stderr()).toContain(`chs: test fault at ${point} #${n}: SIGKILL`);

    const killedAt = { rows: (await stored()).rows, job: await jobRow(id) };
    await closeStore();
    landed(killedAt);
    const reads = { before: fake!.stats.byPath['/gmail/v1/users/me/messages/{id}'] ?? 0, after: 0 };

    // A longer lease for the runner that finishes: a loaded machine must not take the job from it
    // mid-way; it sweeps often, so it takes up the dead runner's 2-second lease at once.
    const s = await serve(serves, { ...env, CHS_JOB_LEASE_MS: '20000', CHS_JOB_SWEEP_MS: '300' }, 'restarted', 60_000);
    const api = client(s.base, key);
    let seen = killedAt.job.items_processed;
    const done = await until(
      'the run to finish after the restart',
      async () => {
        const st = await api<Status>(`/ingest/status?workspaceId=acme.com&jobId=${id}`);
        const processed = st.currentJob.sources.google?.itemsProcessed ?? 0;
        expect(processed, 'progress never goes backwards').toBeGreaterThanOrEqual(seen);
        seen = processed;
        return ['completed', 'failed'].includes(st.currentJob.status) ? st : undefined;
      },
      SLOW - 90_000,
      100,
    );
    expect(done.currentJob.status, s.stderr()).toBe('completed');
    reads.after = fake!.stats.byPath['/gmail/v1/users/me/messages/{id}'] ?? 0;

    const history = await api<{ syncHistory: HistoryRecord[] }>('/ingest/history?workspaceId=acme.com');
    const records = history.syncHistory.filter((r) => r.jobId === id);
    expect(records).toHaveLength(1);
    const after = await stored();
    expect(after.rows).toBe(N); // none doubled
    expect(after.keys).toEqual(box.messageIds); // none lost
    const job = await jobRow(id);
    expect(job.attempts).toBeGreaterThanOrEqual(2); // taken up again after the kill
    return { id, final: records[0]!, reads };
  }

  interface JobRow {
    items_processed: number;
    items_added: number;
    attempts: number;
    cursor_json: string | null;
  }
  async function jobRow(id: string): Promise<JobRow> {
    store ??= await openStore({ url: database!.url });
    return store.db.selectFrom('jobs').select(['items_processed', 'items_added', 'attempts', 'cursor_json']).where('id', '=', id).executeTakeFirstOrThrow();
  }

  const exact = { status: 'completed', itemsProcessed: N, itemsAdded: N, itemsUpdated: 0, itemsSkipped: 0, errors: [] };

  it(
    '(b1) SIGKILL while fetching (page 2 arriving, page 1 half stored): /ingest/v2 resumes inside the page and reports exactly 1,200',
    async () => {
      const t0 = Date.now();
      let killedRows = 0;
      const r = await crashAndResume(
        'fetch:2',
        async (api) => (await api<{ sessionId: string }>('/ingest/v2/start', { workspaceId: 'acme.com', sinceDays: 30, batchSize: 100 })).sessionId,
        ({ rows, job }) => {
          killedRows = rows;
          // Killed with page 1 in the pipeline: whole batches of it stored, its counts equal to them.
          expect(rows).toBeLessThanOrEqual(500);
          expect(rows % 100).toBe(0);
          expect(job.items_processed).toBe(rows);
        },
      );
      expect(r.final).toMatchObject({ ...exact, sourceJobId: r.id });
      console.info(`[follow] (b1) killed while fetching at ${killedRows} stored; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    },
    SLOW,
  );

  it(
    '(b2) SIGKILL inside a write batch (the third, not committed): /ingest/v2 reports exactly 1,200, the session too',
    async () => {
      const t0 = Date.now();
      const r = await crashAndResume(
        'batch:3',
        async (api) => (await api<{ sessionId: string }>('/ingest/v2/start', { workspaceId: 'acme.com', sinceDays: 30, batchSize: 100 })).sessionId,
        ({ rows, job }) => {
          // Batches 1 and 2 committed with their counts; batch 3 died in its transaction.
          expect(rows).toBe(200);
          expect(job.items_processed).toBe(200);
          expect(job.items_added).toBe(200);
        },
      );
      expect(r.final).toMatchObject(exact);
      store ??= await openStore({ url: database!.url });
      const session = await store.db.selectFrom('ingestion_sessions').select(['status', 'stats_json']).where('id', '=', r.id).executeTakeFirstOrThrow();
      expect(session.status).toBe('completed');
      expect(JSON.parse(session.stats_json)).toMatchObject({ emailsProcessed: N, interactionsCreated: N, batchesCompleted: 12 });
      console.info(`[follow] (b2) killed inside batch 3; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    },
    SLOW,
  );

  it(
    '(b3) SIGKILL during the health rebuild: /ingest/run reads nothing again, rebuilds health and reports exactly 1,200',
    async () => {
      const t0 = Date.now();
      const r = await crashAndResume(
        'rebuild:1',
        async (api) => (await api<{ jobId: string }>('/ingest/run?workspaceId=acme.com', { sources: ['google'] })).jobId,
        ({ rows, job }) => {
          // Everything was stored and counted; the job had moved on to the rebuild.
          expect(rows).toBe(N);
          expect(job.items_processed).toBe(N);
          expect(JSON.parse(job.cursor_json ?? '{}')).toMatchObject({ phase: 'rebuild' });
        },
      );
      expect(r.final).toMatchObject(exact);
      expect(r.reads.after).toBe(r.reads.before); // the second attempt fetched no message
      store ??= await openStore({ url: database!.url });
      const scored = await store.db
        .selectFrom('health_snapshots')
        .select('client_id')
        .where('client_id', 'in', store.db.selectFrom('clients').select('id').where('workspace_id', '=', 'acme.com'))
        .groupBy('client_id')
        .execute();
      expect(scored).toHaveLength(5); // every client touched by the first attempt has its health history
      console.info(`[follow] (b3) killed during the rebuild; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    },
    SLOW,
  );
});

describe('PostgreSQL going away mid-job (a restart, as the runner sees it)', () => {
  it(
    'the job is taken up again when the database answers again, and reports exactly what the store holds, each message once',
    async () => {
      const N = 600;
      if (!(await postgresAvailable())) {
        if (process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');
        return;
      }
      const t0 = Date.now();
      const box = makeMailbox(N);
      fake = await startFakeGmailServer({ messages: box.messages, accessTokens: [], emailAddress: 'rep@acme.com' });
      database = await createTestDatabase('postgres');
      // The runner reaches PostgreSQL through a proxy the test cuts: every connection dies at once
      // and new ones are refused, as while the server restarts; then it is back on the same address.
      const pgPort = Number(new URL(TEST_PG_URL).port || 5432);
      let proxy = await startTcpProxy(pgPort);
      const viaProxy = new URL(database.url);
      viaProxy.port = String(proxy.port);
      // Message reads slowed down a little, so the cut lands mid-run.
      const slow = await startDelayProxy(fake.url, 10);
      const dir = mkdtempSync(join(tmpdir(), 'chs-pg-restart-'));
      const env = chsEnv(viaProxy.toString(), dir, `${slow.url}/`, `${slow.url}/token`, {
        CHS_GOOGLE_QUOTA_UNITS_PER_MINUTE: '0',
        CHS_JOB_LEASE_MS: '3000',
        CHS_JOB_SWEEP_MS: '500',
        CHS_LOG_LEVEL: 'error',
      });
      const key = await initAndConnect(env);
      const s = await serve(serves, env);
      const api = client(s.base, key);
      try {
        const id = (await api<{ jobId: string }>('/ingest/run?workspaceId=acme.com', { sources: ['google'] })).jobId;
        await until('part of the mailbox stored', async () => ((await stored()).rows >= 100 ? true : undefined), 120_000, 100);
        const port = proxy.port;
        await proxy.cut();
        await sleep(3_000);
        proxy = await startTcpProxy(pgPort, port);

        const done = await until(
          'the run to finish once the database is back',
          async () => {
            try {
              const st = await api<Status>(`/ingest/status?workspaceId=acme.com&jobId=${id}`);
              return ['completed', 'failed', 'cancelled'].includes(st.currentJob.status) ? st : undefined;
            } catch {
              return undefined; // the API itself may answer 5xx while the database is away
            }
          },
          120_000,
          200,
        ).catch((err: unknown) => {
          throw new Error(`${String(err)}; runner stderr: ${s.stderr().slice(-3000)}`);
        });
        expect(done.currentJob.status, s.stderr()).toBe('completed');
        const history = await api<{ syncHistory: HistoryRecord[] }>('/ingest/history?workspaceId=acme.com');
        expect(history.syncHistory.filter((r) => r.jobId === id)).toEqual([
          expect.objectContaining({ status: 'completed', itemsProcessed: N, itemsAdded: N, itemsUpdated: 0, itemsSkipped: 0 }),
        ]);
        const after = await stored();
        expect(after.rows).toBe(N);
        expect(after.keys).toEqual(box.messageIds);
        console.info(`[follow] PostgreSQL cut for 3 s mid-run, run finished with exactly ${N}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      } finally {
        await proxy.cut();
        await slow.close();
      }
    },
    SLOW,
  );
});
