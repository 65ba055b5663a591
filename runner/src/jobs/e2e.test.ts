/**
 * End to end through the built `chs` binary (run `npx tsc -b` first) against a local fake Gmail
 * server over a real socket (CHS_GOOGLE_API_URL / CHS_GOOGLE_TOKEN_URL), on SQLite files (a fresh
 * PostgreSQL database per test when CHS_TEST_DATABASE=postgres, the second pass of `.ci/run`):
 * (a) `chs serve`: POST /ingest/run, poll GET /ingest/status to completion, then history and clients;
 * (b) a crash: SIGKILL mid-way through a large ingestion, restart, and exactly the expected
 *     interactions — none lost, none doubled;
 * (c) `chs sync --json` in the foreground, with a token refresh, then incremental, then a conflict.
 * Every stored access token starts expired, so each run begins with a refresh.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueJob, openStore, type Store } from '@chs/core';
import { createTestDatabase, judgeProgress, type FakeGmailServer, startFakeGmailServer, type TestDatabase } from '@chs/core/testing';
import { chs, chsEnv, initAndConnect, tearDown, makeMailbox, serve, startDelayProxy, until, watchStatus, type Env, type Serve } from './testing.js';

// Generous: these spawn processes that share the CPUs with the rest of the suite (two forks), and
// PostgreSQL (CHS_TEST_DATABASE=postgres) writes each batch with more round trips than SQLite.
const SLOW = 240_000;

/** The database of the current test: a SQLite file, or a fresh PostgreSQL database when CHS_TEST_DATABASE=postgres. */
let database: TestDatabase | undefined;
async function freshDatabase(): Promise<string> {
  database = await createTestDatabase();
  return database.url;
}

function baseEnv(dir: string, api: string, token: string, extra: Env = {}): Env {
  return chsEnv(database?.url ?? join(dir, 'chs.db'), dir, api, token, extra);
}

const serves: Serve[] = [];

let fake: FakeGmailServer | undefined;
let store: Store | undefined;
// Taken from the test first, so a teardown still running cannot clear the next test's; PostgreSQL
// may take a while to drop a database on a loaded machine.
afterEach(async () => {
  const opened = [store, fake, database] as const;
  [store, fake, database] = [undefined, undefined, undefined];
  await tearDown(serves, ...opened);
}, 120_000);

/** The stored Gmail interactions: how many rows, and their distinct Message-IDs. */
async function storedInteractions(dbPath: string): Promise<{ rows: number; keys: Set<string> }> {
  store ??= await openStore({ url: dbPath });
  const rows = await store.db.selectFrom('interactions').select(['dedupe_key']).where('workspace_id', '=', 'acme.com').where('source', '=', 'google').execute();
  return { rows: rows.length, keys: new Set(rows.map((r) => r.dedupe_key.replace(/^<|>$/g, '').toLowerCase())) };
}

describe('chs serve + fake Gmail (end to end)', () => {
  it(
    '(a) POST /ingest/run, GET /ingest/status to completion, then history and clients show the mail',
    async () => {
      const t0 = Date.now();
      const box = makeMailbox(40);
      fake = await startFakeGmailServer({ messages: box.messages, accessTokens: [], emailAddress: 'rep@acme.com' });
      const dir = mkdtempSync(join(tmpdir(), 'chs-e2e-a-'));
      await freshDatabase();
      const env = baseEnv(dir, fake.apiUrl, fake.tokenUrl);
      const key = await initAndConnect(env);
      const s = await serve(serves, env, 'runner', 20_000);
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${s.base}/api${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });

      const run = await api('/ingest/run?workspaceId=acme.com', { method: 'POST' });
      expect(run.status).toBe(200);
      const started = (await run.json()) as { jobId: string; status: string; sources: string[] };
      expect(started).toMatchObject({ success: true, status: 'started', sources: ['google'] });

      const seen = new Set<string>();
      const final = await until('the run to finish', async () => {
        const st = (await (await api(`/ingest/status?workspaceId=acme.com&jobId=${started.jobId}`)).json()) as {
          currentJob: {
            status: string;
            progress: number;
            sources: { google: { status: string; itemsProcessed: number; totalItems?: number; lastSyncAt?: string } };
          };
        };
        seen.add(st.currentJob.status);
        return ['completed', 'failed'].includes(st.currentJob.status) ? st : undefined;
      });
      expect(final.currentJob.status, s.stderr()).toBe('completed');
      expect(final.currentJob.progress).toBe(100);
      expect(final.currentJob.sources.google).toMatchObject({ status: 'completed', itemsProcessed: 40, progress: 100 });
      expect(final.currentJob.sources.google.lastSyncAt).toBeDefined();
      expect(fake.stats.tokenRefreshes).toBeGreaterThanOrEqual(1);

      const history = (await (await api('/ingest/history?workspaceId=acme.com')).json()) as {
        syncHistory: Array<Record<string, unknown>>;
        pagination: unknown;
      };
      expect(history.pagination).toEqual({ total: 1, limit: 20, offset: 0, hasMore: false });
      expect(history.syncHistory[0]).toMatchObject({
        source: 'google',
        status: 'completed',
        itemsProcessed: 40,
        itemsAdded: 40,
        itemsUpdated: 0,
        itemsSkipped: 0,
        errors: [],
      });

      const clients = (await (await api('/clients?workspaceId=acme.com')).json()) as Array<{ id: string; domain: string }>;
      expect(clients.map((c) => c.domain).sort()).toEqual([...box.perDomain.keys()].sort());
      for (const c of clients) {
        const page = (await (await api(`/clients/${c.id}/interactions?workspaceId=acme.com&limit=200`)).json()) as { pagination: { total: number } };
        expect(page.pagination.total, c.domain).toBe(box.perDomain.get(c.domain));
      }
      const stored = await storedInteractions(database!.url);
      expect(stored.rows).toBe(40);
      expect(stored.keys).toEqual(box.messageIds);

      // SIGTERM: drains and exits cleanly.
      s.proc.kill('SIGTERM');
      expect(await s.exited).toBe(0);
      console.info(`[e2e] (a) ingest/run end to end: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    },
    SLOW,
  );

  it(
    '(b) crash: SIGKILL mid-way through /ingest/v2, restart, the job completes with exactly the expected interactions',
    async () => {
      const t0 = Date.now();
      const N = 3000;
      const box = makeMailbox(N, { spacingMs: 30_000 });
      fake = await startFakeGmailServer({ messages: box.messages, accessTokens: [], emailAddress: 'rep@acme.com' });
      // Each message fetch waits 8 ms, so the job is still mid-way when we look.
      const proxy = await startDelayProxy(fake.url, 8);
      try {
        const dir = mkdtempSync(join(tmpdir(), 'chs-e2e-b-'));
        await freshDatabase();
        const env = baseEnv(dir, `${proxy.url}/`, `${proxy.url}/token`, { CHS_JOB_LEASE_MS: '2000' });
        const key = await initAndConnect(env);
        let s = await serve(serves, env, 'runner', 20_000);
        const api = (base: string, path: string, init: RequestInit = {}) =>
          fetch(`${base}/api${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
        const start = await api(s.base, '/ingest/v2/start', {
          method: 'POST',
          body: JSON.stringify({ workspaceId: 'acme.com', sinceDays: 30, batchSize: 100 }),
        });
        expect(start.status).toBe(200);
        const session = (await start.json()) as { sessionId: string; status: string; config: { batchSize: number; maxEmails: number } };
        expect(session).toMatchObject({ status: 'initializing', config: { batchSize: 100, maxEmails: 10_000 } });

        type V2 = {
          sessionId: string;
          status: string;
          progress: { emailsProcessed: number; totalEmails: number | null; batchesCompleted: number; percentComplete: number };
          timing: { estimatedCompletionAt: string | null };
          stats: { interactionsCreated: number };
        };
        const status = async (base: string) => (await (await api(base, '/ingest/v2/status?workspaceId=acme.com')).json()) as V2;
        const mid = await until(
          'progress between 0 and the total',
          async () => {
            const st = await status(s.base);
            return st.progress.emailsProcessed > 0 && st.progress.emailsProcessed < N ? st : undefined;
          },
          40_000,
          50,
        );
        expect(mid.status).toBe('processing');
        // Gmail's count of the window is known from the start.
        expect(mid.progress.totalEmails).toBe(N);
        // A second start while it runs answers with the running session.
        const second = (await (
          await api(s.base, '/ingest/v2/start', { method: 'POST', body: JSON.stringify({ workspaceId: 'acme.com', sinceDays: 30 }) })
        ).json()) as { sessionId: string };
        expect(second.sessionId).toBe(session.sessionId);

        s.proc.kill('SIGKILL');
        await s.exited;
        const before = await storedInteractions(database!.url);
        await store?.close();
        store = undefined;
        expect(before.rows).toBeGreaterThan(0);
        expect(before.rows).toBeLessThan(N);

        s = await serve(serves, env, 'runner', 20_000);
        // Progress after the restart resumes from the stored totals, not from 0, and goes on from there.
        const restarted = Date.now();
        const watched = await watchStatus('v2', () => s.base, key, restarted, { everyMs: 100, timeoutMs: SLOW - 40_000 });
        // Until the dead attempt's lease runs out its last live counters may still show (LIVE_STALE_MS); once the
        // new attempt starts, the read counter stands at what was stored, and moves on from there.
        expect(watched.samples.every((x) => x.total === N || x.status === 'completed')).toBe(true);
        const low = watched.samples.reduce((m, x, i) => (x.progress < watched.samples[m]!.progress ? i : m), 0);
        expect(watched.samples[low]!.progress).toBeGreaterThanOrEqual(Math.floor((before.rows / N) * 1000) / 10);
        // The lowest sample stands at the stored count, or a page above it when the status answered
        // only after the new attempt had read on (a loaded machine: once in CI, 201 for 200).
        expect(watched.samples[low]!.read).toBeGreaterThanOrEqual(before.rows);
        expect(watched.samples[low]!.read).toBeLessThan(before.rows + 100);
        expect(judgeProgress(watched.samples, watched.endAt, watched.samples[low]!.at).backwards).toBe(0);
        expect(watched.samples.every((x) => x.progress > 0 && x.read <= N)).toBe(true);
        const done = await status(s.base);
        expect(done.status, s.stderr()).toBe('completed');
        expect(done.sessionId).toBe(session.sessionId);
        expect(done.progress.percentComplete).toBe(100);

        const after = await storedInteractions(database!.url);
        expect(after.rows).toBe(N); // none doubled
        expect(after.keys).toEqual(box.messageIds); // none lost
        const job = await store!.db.selectFrom('jobs').selectAll().where('kind', '=', 'ingest').executeTakeFirstOrThrow();
        expect(job.state).toBe('completed');
        expect(job.attempts).toBe(2);
        const events = await store!.db.selectFrom('job_events').select(['type', 'data_json']).where('job_id', '=', job.id).orderBy('id').execute();
        expect(events.some((e) => e.type === 'job:queued' && e.data_json.includes('lease expired'))).toBe(true);
        console.info(`[e2e] (b) crash and resume of ${N} messages: killed at ${before.rows} stored, ${((Date.now() - t0) / 1000).toFixed(1)} s in all`);
      } finally {
        await proxy.close();
      }
    },
    SLOW,
  );
});

describe('chs sync (foreground, end to end)', () => {
  it(
    '(c) --provider google --json with a token refresh; a second run doubles nothing; a conflict is refused',
    async () => {
      const t0 = Date.now();
      const box = makeMailbox(25);
      fake = await startFakeGmailServer({ messages: box.messages, accessTokens: [], emailAddress: 'rep@acme.com' });
      const dir = mkdtempSync(join(tmpdir(), 'chs-e2e-c-'));
      await freshDatabase();
      const env = baseEnv(dir, fake.apiUrl, fake.tokenUrl);
      await initAndConnect(env);

      const first = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'google', '--json');
      expect(first.code, first.stderr).toBe(0);
      const summary = JSON.parse(first.stdout) as Record<string, unknown> & { providers: Record<string, Record<string, unknown>> };
      expect(summary).toMatchObject({ status: 'completed', itemsProcessed: 25, itemsAdded: 25, itemsSkipped: 0, errorsCount: 0 });
      expect(summary.providers.google).toMatchObject({ status: 'completed', itemsProcessed: 25, itemsAdded: 25, itemsSkipped: 0, errorsCount: 0 });
      expect(fake.stats.tokenRefreshes).toBe(1);
      let stored = await storedInteractions(database!.url);
      expect(stored.rows).toBe(25);
      expect(stored.keys).toEqual(box.messageIds);

      // Again (providers default to the connected ones): the refreshed token was kept, and nothing is doubled.
      const second = await chs(env, 'sync', '--workspace', 'acme.com', '--json');
      expect(second.code, second.stderr).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ status: 'completed', itemsAdded: 0, errorsCount: 0 });
      expect(fake.stats.tokenRefreshes).toBe(1);

      // New mail since: a quick sync reads the history since the saved cursor and brings just it.
      const extra = makeMailbox(26).messages[25]!;
      fake.addMessage({ ...extra, id: 'gnew', raw: extra.raw.replace('<m25@', '<new-m25@') });
      const third = await chs(env, 'sync', '--workspace', 'acme.com', '--json');
      expect(third.code, third.stderr).toBe(0);
      expect(JSON.parse(third.stdout)).toMatchObject({ status: 'completed', itemsProcessed: 1, itemsAdded: 1, errorsCount: 0 });
      await store?.close();
      store = undefined;
      stored = await storedInteractions(database!.url);
      expect(stored.rows).toBe(26);

      // An active job of the same source (e.g. a server's) refuses the foreground sync, naming it.
      const active = await enqueueJob(store!.db, { workspaceId: 'acme.com', kind: 'backfill', source: 'google' });
      const refused = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'google', '--json');
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trim()).toMatch(new RegExp(`^chs: .*${active.id}.*\\[JOB_CONFLICT\\]$`));
      const bad = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'slack');
      expect(bad.stderr.trim()).toMatch(/\[INVALID_INPUT\]$/);
      console.info(`[e2e] (c) chs sync: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    },
    SLOW,
  );
});
