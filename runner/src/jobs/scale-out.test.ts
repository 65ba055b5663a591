/**
 * Several `chs serve` processes (the built binary; run `npx tsc -b` first) on one PostgreSQL
 * database — a fresh database per test — and one Redis:
 * (a) a large ingestion survives SIGKILL of the runner holding its lease: the other runner's
 *     sweeper returns it to the queue and its worker finishes it, with exactly the expected rows;
 *     meanwhile neither runner holds more connections than CHS_PG_POOL_SIZE;
 * (b) rate limits hold across runners (150 requests with one key, alternating runners: exactly
 *     100 answered, then 429 from both); a key deleted through one runner is refused by the other
 *     on the next request;
 * (c) three runners starting at once on an empty database migrate it once, without error.
 * PostgreSQL and Redis are required in CI; locally, without them, these cases are left out.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrateToLatest, openStore, type Store } from '@chs/core';
import { createTestDatabase, type FakeGmailServer, pgUrlFor, postgresAvailable, startFakeGmailServer, type TestDatabase } from '@chs/core/testing';
import { redisAvailable, TEST_REDIS_URL } from '../http/redis-testing.js';
import { chs, initAndConnect, tearDown, makeMailbox, serve as serveOne, sleep, startDelayProxy, until as untilAny, type Env, type Serve } from './testing.js';

const SLOW = 240_000;
const hasPg = await postgresAvailable();
const hasRedis = await redisAvailable();

function baseEnv(db: string, dir: string, extra: Env = {}): Env {
  return {
    ...(process.env as Env),
    CHS_DATABASE_URL: db,
    CHS_DATA_DIR: dir,
    CHS_LOG_LEVEL: 'warn',
    CHS_SMTP_URL: '',
    CHS_NOW: '',
    CHS_REDIS_URL: '',
    CHS_SECRET_KEY: 'scale-out-test-secret-key-32-bytes!',
    CHS_SCHEDULER: 'off',
    CHS_JOB_POLL_MS: '200',
    ...extra,
  };
}

const serves: Serve[] = [];
const serve = (name: string, env: Env) => serveOne(serves, env, name, 30_000);
const until = <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 100) => untilAny(what, fn, timeoutMs, everyMs);

let fake: FakeGmailServer | undefined;
let store: Store | undefined;
let database: TestDatabase | undefined;
// Taken from the test first, so a teardown still running cannot clear the next test's; PostgreSQL
// may take a while to drop a database on a loaded machine.
afterEach(async () => {
  const opened = [store, fake, database] as const;
  [store, fake, database] = [undefined, undefined, undefined];
  await tearDown(serves, ...opened);
}, 120_000);

/** A workspace of its own per test: the per-workspace day counter lives in the shared Redis. */
const freshWorkspace = () => `acme-${randomBytes(4).toString('hex')}.com`;

/** Connections a runner holds now, told apart by the application_name in its database URL. */
async function connectionsByApp(dbName: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: pgUrlFor('postgres') });
  await client.connect();
  try {
    const r = await client.query<{ application_name: string; n: number }>(
      'select application_name, count(*)::int as n from pg_stat_activity where datname = $1 group by application_name',
      [dbName],
    );
    return new Map(r.rows.map((row) => [row.application_name, row.n]));
  } finally {
    await client.end();
  }
}

describe.runIf(hasPg)('several chs serve runners on one PostgreSQL database', () => {
  it(
    '(a) SIGKILL of the runner holding a large ingestion: the other runner finishes it with exactly the expected rows',
    async () => {
      const t0 = Date.now();
      const N = 2000;
      const POOL = 4;
      const ws = freshWorkspace();
      const box = makeMailbox(N, { workspace: ws, spacingMs: 30_000 });
      fake = await startFakeGmailServer({ messages: box.messages, accessTokens: [], emailAddress: `rep@${ws}` });
      // Each message fetch waits 8 ms, so the job is still mid-way when we act.
      const proxy = await startDelayProxy(fake.url, 8);
      try {
        database = await createTestDatabase('postgres');
        const dbName = new URL(database.url).pathname.slice(1);
        const dir = mkdtempSync(join(tmpdir(), 'chs-scale-a-'));
        const jobEnv = {
          CHS_GOOGLE_API_URL: `${proxy.url}/`,
          CHS_GOOGLE_TOKEN_URL: `${proxy.url}/token`,
          CHS_JOB_LEASE_MS: '2000',
          CHS_JOB_SWEEP_MS: '500',
          CHS_PG_POOL_SIZE: String(POOL),
        };
        const env = (app: string) => baseEnv(pgUrlFor(dbName, { application_name: app }), dir, jobEnv);
        const key = await initAndConnect(env('chs_cli'), ws);
        const [a, b] = await Promise.all([serve('A', env('chs_runner_a')), serve('B', env('chs_runner_b'))]);
        const byPid = new Map([
          [a.proc.pid, a],
          [b.proc.pid, b],
        ]);
        const api = (s: Serve, path: string, init: RequestInit = {}) =>
          fetch(`${s.base}/api${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });

        const start = await api(a, '/ingest/v2/start', { method: 'POST', body: JSON.stringify({ workspaceId: ws, sinceDays: 30, batchSize: 100 }) });
        expect(start.status).toBe(200);
        const session = (await start.json()) as { sessionId: string };

        store = await openStore({ url: database.url, poolSize: 2 });
        const db = store.db;
        // The job, mid-way, and the runner whose lease it is under (lease_owner is host:pid:random).
        const mid = await until(
          'the ingestion job to be running mid-way',
          async () => {
            const j = await db.selectFrom('jobs').selectAll().where('kind', '=', 'ingest').executeTakeFirst();
            return j && j.state === 'running' && j.items_processed > 0 && j.items_processed < N ? j : undefined;
          },
          60_000,
          50,
        );
        const holderPid = Number(mid.lease_owner!.split(':')[1]);
        const holder = byPid.get(holderPid);
        expect(holder, `lease owner ${mid.lease_owner}`).toBeDefined();
        const survivor = holder === a ? b : a;

        // Both runners busy (one ingesting, both polling, requests arriving): neither exceeds its pool.
        const peak = { a: 0, b: 0 };
        const sample = async () => {
          const m = await connectionsByApp(dbName);
          peak.a = Math.max(peak.a, m.get('chs_runner_a') ?? 0);
          peak.b = Math.max(peak.b, m.get('chs_runner_b') ?? 0);
        };
        await Promise.all([
          ...Array.from({ length: 20 }, (_, i) => api(i % 2 ? a : b, `/ingest/v2/status?workspaceId=${ws}`).then((r) => r.arrayBuffer())),
          ...Array.from({ length: 5 }, () => sample()),
        ]);

        holder!.proc.kill('SIGKILL');
        await holder!.exited;
        const before = await db
          .selectFrom('interactions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        expect(before.n).toBeGreaterThan(0);
        expect(before.n).toBeLessThan(N);

        type V2 = { sessionId: string; status: string; progress: { percentComplete: number } };
        const done = await until(
          'the survivor to finish the ingestion',
          async () => {
            await sample();
            const st = (await (await api(survivor, `/ingest/v2/status?workspaceId=${ws}`)).json()) as V2;
            return st.status === 'completed' || st.status === 'failed' ? st : undefined;
          },
          90_000,
          250,
        );
        expect(done.status, survivor.stderr()).toBe('completed');
        expect(done.sessionId).toBe(session.sessionId);
        expect(done.progress.percentComplete).toBe(100);

        // Exactly one interaction per expected Message-ID (each message is one client's): none lost, none doubled.
        const rows = await db
          .selectFrom('interactions')
          .select(['dedupe_key', 'client_id'])
          .where('workspace_id', '=', ws)
          .where('source', '=', 'google')
          .execute();
        expect(rows).toHaveLength(N);
        expect(new Set(rows.map((r) => r.dedupe_key.replace(/^<|>$/g, '').toLowerCase()))).toEqual(box.messageIds);
        const clients = await db.selectFrom('clients').select(['id', 'primary_domain']).where('workspace_id', '=', ws).execute();
        const perClient = new Map<string, number>();
        for (const r of rows) perClient.set(r.client_id ?? '', (perClient.get(r.client_id ?? '') ?? 0) + 1);
        expect(new Map(clients.map((c) => [c.primary_domain, perClient.get(c.id) ?? 0]))).toEqual(box.perDomain);

        // The job: taken up again after its lease expired, finished by the survivor on its second attempt.
        const job = await db.selectFrom('jobs').selectAll().where('id', '=', mid.id).executeTakeFirstOrThrow();
        expect([job.state, job.attempts]).toEqual(['completed', 2]);
        const events = await db.selectFrom('job_events').select(['type', 'data_json']).where('job_id', '=', job.id).orderBy('id').execute();
        const owners = events
          .filter((e) => e.type === 'job:running')
          .map((e) => Number(String((JSON.parse(e.data_json) as { owner: string }).owner).split(':')[1]));
        expect(owners).toEqual([holderPid, survivor.proc.pid]);
        expect(events.some((e) => e.type === 'job:queued' && e.data_json.includes('lease expired'))).toBe(true);

        expect(peak.a).toBeGreaterThan(0);
        expect(peak.b).toBeGreaterThan(0);
        expect(Math.max(peak.a, peak.b)).toBeLessThanOrEqual(POOL);
        console.info(
          `[scale-out] (a) ${N} messages, holder ${holder!.name} killed at ${before.n} stored, finished by ${survivor.name}; peak connections A ${peak.a}, B ${peak.b} (pool ${POOL}); ${((Date.now() - t0) / 1000).toFixed(1)} s`,
        );
      } finally {
        await proxy.close();
      }
    },
    SLOW,
  );

  it.runIf(hasRedis)(
    '(b) 150 requests with one key over two runners: exactly 100 answered, then 429 whichever runner answers; a key deleted through A is refused by B at once',
    async () => {
      const ws = freshWorkspace();
      database = await createTestDatabase('postgres');
      const dir = mkdtempSync(join(tmpdir(), 'chs-scale-b-'));
      const env = baseEnv(database.url, dir, { CHS_REDIS_URL: TEST_REDIS_URL });
      const init = await chs(env, 'init', '--workspace', ws, '--name', 'Acme', '--owner-email', `ana@${ws}`, '--json');
      expect(init.code, init.stderr).toBe(0);
      const owner = (JSON.parse(init.stdout) as { apiKey: string }).apiKey;
      const [a, b] = await Promise.all([serve('A', env), serve('B', env)]);
      const get = (s: Serve, key: string, path = `/api/clients?workspaceId=${ws}`) =>
        fetch(`${s.base}${path}`, { headers: { authorization: `Bearer ${key}` } });

      // Deletion through A is seen by B on its next request.
      const created = (await (
        await fetch(`${a.base}/api/settings/api-keys?workspaceId=${ws}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'temp' }),
        })
      ).json()) as { apiKey: { id: string; key: string } };
      expect((await get(b, created.apiKey.key)).status).toBe(200);
      const del = await fetch(`${a.base}/api/settings/api-keys/${created.apiKey.id}?workspaceId=${ws}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${owner}` },
      });
      expect(del.status).toBe(200);
      const refused = await get(b, created.apiKey.key);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { code: string }).code).toBe('AUTH_INVALID_KEY');

      // A fresh key for the burst. Windows are aligned to the clock minute: start with room left in it.
      const k = await chs(env, 'keys', 'create', '--workspace', ws, '--name', 'burst', '--json');
      expect(k.code, k.stderr).toBe(0);
      const key = (JSON.parse(k.stdout) as { key: string }).key;
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 20_000) await sleep(left + 200);
      const statuses: Array<{ runner: string; status: number; remaining: string | null; retryAfter: string | null }> = [];
      for (let i = 0; i < 150; i++) {
        const s = i % 2 === 0 ? a : b;
        const r = await get(s, key);
        await r.arrayBuffer();
        statuses.push({ runner: s.name, status: r.status, remaining: r.headers.get('x-ratelimit-remaining'), retryAfter: r.headers.get('retry-after') });
      }
      expect(statuses.slice(0, 100).every((s) => s.status === 200)).toBe(true);
      expect(statuses.slice(100).every((s) => s.status === 429)).toBe(true);
      // The 100th left nothing; every refusal says so and when to come back, from both runners.
      expect(statuses[99]!.remaining).toBe('0');
      expect(statuses.slice(100).every((s) => s.remaining === '0' && Number(s.retryAfter) >= 1)).toBe(true);
      expect(new Set(statuses.slice(100).map((s) => s.runner))).toEqual(new Set(['A', 'B']));
    },
    SLOW,
  );

  it(
    '(c) three runners starting at once on an empty database migrate it once, without error',
    async () => {
      database = await createTestDatabase('postgres');
      const dir = mkdtempSync(join(tmpdir(), 'chs-scale-c-'));
      const env = baseEnv(database.url, dir);
      const runners = await Promise.all(['A', 'B', 'C'].map((n) => serve(n, env)));
      for (const r of runners) {
        const res = await fetch(`${r.base}/api/openapi.json`);
        expect(res.status).toBe(200);
        expect(r.stderr()).toBe('');
      }
      store = await openStore({ url: database.url, poolSize: 1 });
      const applied = (await store.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute()) as Array<{ name: string }>;
      expect(applied.length).toBeGreaterThan(0);
      expect(new Set(applied.map((r) => r.name)).size).toBe(applied.length);
      // Nothing left to run: the three runners brought it to the latest version between them.
      expect((await migrateToLatest(store.db)).results ?? []).toEqual([]);
      // And they work as one: a workspace made through the CLI is seen by all three.
      const init = await chs(env, 'init', '--workspace', 'acme.com', '--name', 'Acme', '--owner-email', 'ana@acme.com', '--json');
      const { apiKey } = JSON.parse(init.stdout) as { apiKey: string };
      for (const r of runners)
        expect((await fetch(`${r.base}/api/clients?workspaceId=acme.com`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    },
    SLOW,
  );
});

describe('chs serve with CHS_REDIS_URL that does not answer', () => {
  it(
    'refuses to start, naming the setting, rather than silently counting per runner',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'chs-scale-d-'));
      // Nothing listens on port 1; the password must not be printed.
      const env = baseEnv(join(dir, 'chs.db'), dir, { CHS_REDIS_URL: 'redis://:hunter2@127.0.0.1:1' });
      const r = await chs(env, 'serve', '--port', '0');
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(/serving/);
      expect(r.stderr.trim()).toMatch(/^chs: CHS_REDIS_URL: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1\/? did not answer.*\[INVALID_INPUT\]$/);
      expect(r.stderr).not.toContain('hunter2');
    },
    SLOW,
  );
});
