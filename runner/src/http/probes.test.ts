/**
 * Running it like a service: a load balancer probes `/api/health` and `/api/ready` every few
 * seconds without a key and is never rate-limited; readiness says 503 when the database or Redis
 * is gone; Prometheus scrapes `/metrics` (behind a token when one is set, on a port of its own when
 * asked) and gets text that Prometheus' own checker accepts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { countJobsByState, enqueueJob, loadOrCreateSecretKey, WebhookDispatcher } from '@chs/core';
import { createTestDatabase, postgresAvailable, TEST_PG_URL, type TestDatabase } from '../../../packages/core/src/store/testing.js';
import { CHS_BIN, killServes, serve, startTcpProxy, until, type Serve } from '../jobs/testing.js';
import { RedisRateLimitStore } from './redis-rate-limit.js';
import { startTestApp, type TestApp } from './testing.js';
import { DEFAULT_WEBHOOKS_CONFIG, loadConfig } from '../config.js';
import { startWebhookReceiver } from './webhook-testing.js';

const apps: TestApp[] = [];
const serves: Serve[] = [];
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killServes(serves);
  for (const a of apps.splice(0)) await a.close();
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function app(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const a = await startTestApp(options);
  apps.push(a);
  return a;
}

/** `promtool` (Debian's `prometheus` package; `.ci/run` installs it) when present. */
function promtool(): string | undefined {
  const r = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (r.status === 0) return 'promtool';
  if (process.env.CI === 'true') throw new Error('promtool is required in CI (apt-get install prometheus)');
  return undefined;
}

describe('liveness and readiness probes', () => {
  it('answer without a key, are never rate-limited, and carry no rate-limit headers', async () => {
    const a = await app({ config: { rateLimits: { perKeyMinute: 2, perKeyHour: 2, perWorkspaceMinute: 2, perWorkspaceDay: 2 } } });
    for (let i = 0; i < 30; i++) {
      const health = await a.request('/api/health', { key: null });
      expect(health.status).toBe(200);
      expect(health.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const body = await (await a.request('/api/health', { key: null })).json();
    expect(body).toMatchObject({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const ready = await a.request('/api/ready', { key: null });
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'not_configured' } });
    // A keyless caller of anything else is still counted per IP: the probes did not use its budget,
    // and other routes still answer 401 without a key.
    const other = await a.request('/api/clients?workspaceId=acme.com', { key: null });
    expect(other.status).toBe(401);
    expect(other.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('are in the OpenAPI document, with their answers', async () => {
    const a = await app();
    const doc = (await (await a.request('/api/openapi.json', { key: null })).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
    };
    expect(doc.paths['/api/health']?.get?.responses['200']).toBeDefined();
    expect(doc.paths['/api/ready']?.get?.responses['503']).toBeDefined();
    expect(doc.paths['/api/ready']?.get?.security).toEqual([]);
  });

  it('ready is 503 NOT_READY, with the error body, when the database is not migrated', async () => {
    const a = await app();
    const last = await a.engine.store.db
      .selectFrom('kysely_migration' as never)
      .select('name' as never)
      .orderBy('name' as never, 'desc')
      .executeTakeFirstOrThrow();
    await a.engine.store.db
      .deleteFrom('kysely_migration' as never)
      .where('name' as never, '=', (last as { name: string }).name as never)
      .execute();
    const ready = await a.request('/api/ready', { key: null });
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { code: string; status: number; error: string; checks: Record<string, string> };
    expect(body).toMatchObject({ code: 'NOT_READY', status: 503, checks: { database: 'failed', redis: 'not_configured' } });
    expect(body.error).toMatch(/not run/);
    // Liveness is about the process, not its dependencies.
    expect((await a.request('/api/health', { key: null })).status).toBe(200);
  });

  it('ready is 503 when Redis is configured and does not answer; 200 while it does', async () => {
    const live = new RedisRateLimitStore({
      url: process.env.CHS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      prefix: `chs-probe-${process.pid}-${Date.now()}:`,
    });
    const up = await app({ rateLimitStore: live });
    if ((await up.request('/api/ready', { key: null })).status !== 200 && process.env.CI !== 'true') return; // no local Redis
    expect(await (await up.request('/api/ready', { key: null })).json()).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });

    const dead = await startTcpProxy(6379);
    await dead.cut(); // nothing listens there any more
    const gone = new RedisRateLimitStore({ url: `redis://127.0.0.1:${dead.port}`, prefix: 'chs-probe-gone:' });
    const down = await app({ rateLimitStore: gone });
    const ready = await down.request('/api/ready', { key: null });
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ code: 'NOT_READY', checks: { database: 'ok', redis: 'failed' } });
    // The API itself keeps serving on the in-process fallback.
    expect((await down.request('/api/clients?workspaceId=acme.com')).status).toBe(200);
  });

  it('a `chs serve` on PostgreSQL answers ready, then 503 once the database server is gone, and ready again when it is back', async () => {
    if (!(await postgresAvailable())) {
      if (process.env.CI === 'true') throw new Error('PostgreSQL is required in CI');
      return;
    }
    const db: TestDatabase = await createTestDatabase('postgres');
    cleanup.push(() => db.drop());
    let proxy = await startTcpProxy(Number(new URL(TEST_PG_URL).port || 5432));
    const viaProxy = (port: number) => {
      const u = new URL(db.url);
      u.port = String(port);
      return u.toString();
    };
    const url = viaProxy(proxy.port);
    const runner = await serve(serves, { ...(process.env as Record<string, string>), CHS_DATABASE_URL: url, CHS_LOG_LEVEL: 'silent', CHS_SCHEDULER: 'off' });
    expect((await fetch(`${runner.base}/api/ready`)).status).toBe(200);

    const port = proxy.port;
    await proxy.cut();
    const down = await until(
      'ready to say 503',
      async () => {
        const r = await fetch(`${runner.base}/api/ready`);
        return r.status === 503 ? r : undefined;
      },
      20_000,
    );
    const body = await down.json();
    expect(body).toMatchObject({ code: 'NOT_READY', status: 503, checks: { database: 'failed' } });
    // No key is needed here: the answer names no host, port or driver message (the log has them).
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONN|:\d{4,5}/);
    expect((await fetch(`${runner.base}/api/health`)).status).toBe(200);

    // The server comes back on the same address: ready again, without a restart of the runner.
    proxy = await startTcpProxy(Number(new URL(TEST_PG_URL).port || 5432), port);
    cleanup.push(() => proxy.cut());
    await until('ready again', async () => ((await fetch(`${runner.base}/api/ready`)).status === 200 ? true : undefined), 20_000);
  }, 60_000);
});

describe('Prometheus metrics', () => {
  it('serves request durations by route pattern, jobs by state, 429s, and text promtool accepts; behind the token when set', async () => {
    const a = await app({
      config: { metricsToken: 'scrape-me', rateLimits: { perKeyMinute: 3, perKeyHour: 100, perWorkspaceMinute: 1000, perWorkspaceDay: 1000 } },
    });
    await enqueueJob(a.engine.store.db, { workspaceId: a.workspaceId, kind: 'ingest', source: 'mbox', params: {} });
    // The minute window is aligned to the clock: keep the five requests inside one minute.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    for (let i = 0; i < 5; i++) await a.request('/api/clients/cl_nope?workspaceId=acme.com'); // 404s, then 429s

    const refused = await a.request('/metrics', { key: null });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'AUTH_INVALID_KEY', status: 401 });
    expect((await a.request('/metrics', { key: 'wrong' })).status).toBe(401);

    const res = await a.request('/metrics', { key: 'scrape-me' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    // The route pattern, never the raw URL (bounded label values).
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/clients\/:clientId",status_code="404"\} 3/);
    expect(text).not.toContain('cl_nope');
    expect(text).toMatch(/^chs_rate_limited_total 2$/m);
    const jobs = await countJobsByState(a.engine.store.db);
    expect(jobs).toEqual([{ kind: 'ingest', state: 'queued', count: 1 }]);
    expect(text).toMatch(/^chs_jobs\{kind="ingest",state="queued"\} 1$/m);
    expect(text).toMatch(/^chs_job_queue_depth 1$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);

    const tool = promtool();
    if (tool) {
      const out = spawnSync(tool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(out.status, `${out.stdout}${out.stderr}`).toBe(0);
    }
  });

  it('counts webhook deliveries by kind and outcome, their durations and lag, and the backlog; text promtool accepts', async () => {
    const receiver = await startWebhookReceiver((_d, n) => (n === 1 ? { status: 200 } : { status: 500 }));
    cleanup.push(() => receiver.close());
    const a = await app({ config: { webhooks: { ...DEFAULT_WEBHOOKS_CONFIG, allowPrivate: true, allowHttp: true } } });
    const scrape = async () => (await a.request('/metrics', { key: null })).text();
    // Before any delivery: the backlog is empty, the counter has no series yet.
    const empty = await scrape();
    expect(empty).toMatch(/^chs_webhook_backlog\{state="pending"\} 0$/m);
    expect(empty).toMatch(/^chs_webhook_oldest_due_seconds 0$/m);
    expect(empty).toContain('# TYPE chs_webhook_deliveries_total counter');
    expect(empty).toContain('# TYPE chs_webhook_delivery_duration_seconds histogram');
    expect(empty).toContain('# TYPE chs_webhook_delivery_lag_seconds histogram');

    const created = await a.request(`/api/settings/webhooks?workspaceId=${a.workspaceId}`, {
      method: 'POST',
      json: { url: receiver.url, events: ['job.failed'] },
    });
    const { webhook } = (await created.json()) as { webhook: { id: string } };
    for (let i = 0; i < 3; i++)
      expect((await a.request(`/api/settings/webhooks/${webhook.id}/test?workspaceId=${a.workspaceId}`, { method: 'POST' })).status).toBe(202);
    // Three due, none sent yet (this app runs no dispatcher).
    await new Promise((r) => setTimeout(r, 20));
    const queued = await scrape();
    expect(queued).toMatch(/^chs_webhook_backlog\{state="pending"\} 3$/m);
    expect(queued).toMatch(/^chs_webhook_backlog\{state="due"\} 3$/m);
    expect(Number(/^chs_webhook_oldest_due_seconds (\S+)$/m.exec(queued)?.[1])).toBeGreaterThan(0);

    // One delivered, two answered 500 (retried later), one attempt at a time.
    const dispatcher = new WebhookDispatcher({
      db: a.engine.store.db,
      secretKey: () => loadOrCreateSecretKey(a.config.dataDir, a.config.secretKey),
      allowPrivate: true,
      concurrency: 1,
      onAttempt: (r) => a.metrics.webhookAttempt(r),
    });
    expect(await dispatcher.drain()).toBe(3);
    await dispatcher.stop(100);
    const text = await scrape();
    expect(text).toMatch(/^chs_webhook_deliveries_total\{kind="standard",outcome="delivered"\} 1$/m);
    expect(text).toMatch(/^chs_webhook_deliveries_total\{kind="standard",outcome="retry"\} 2$/m);
    expect(text).toMatch(/^chs_webhook_delivery_duration_seconds_count\{kind="standard"\} 3$/m);
    // Lag is of deliveries that succeeded.
    expect(text).toMatch(/^chs_webhook_delivery_lag_seconds_count\{kind="standard"\} 1$/m);
    expect(Number(/^chs_webhook_delivery_lag_seconds_sum\{kind="standard"\} (\S+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    // The two retries wait for their time (5 s on the default schedule).
    expect(text).toMatch(/^chs_webhook_backlog\{state="pending"\} 2$/m);
    expect(text).toMatch(/^chs_webhook_backlog\{state="due"\} 0$/m);
    expect(text).toMatch(/^chs_webhook_oldest_due_seconds 0$/m);
    const tool = promtool();
    if (tool) {
      const out = spawnSync(tool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(out.status, `${out.stdout}${out.stderr}`).toBe(0);
    }
  });

  it('`chs serve` with CHS_METRICS_PORT serves /metrics there and not on the API port; `chs --version` prints the version', async () => {
    const db = await createTestDatabase();
    cleanup.push(() => db.drop());
    const free = await new Promise<number>((r) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => r(p));
      });
    });
    const runner = await serve(serves, {
      ...(process.env as Record<string, string>),
      CHS_DATABASE_URL: db.url,
      CHS_METRICS_PORT: String(free),
      CHS_LOG_LEVEL: 'silent',
      CHS_SCHEDULER: 'off',
    });
    const metrics = await fetch(`http://127.0.0.1:${free}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('# TYPE http_request_duration_seconds histogram');
    expect((await fetch(`${runner.base}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${free}/api/health`)).status).toBe(404);

    const version = execFileSync(process.execPath, [CHS_BIN, '--version'], { encoding: 'utf8' }).trim();
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  }, 60_000);
});

describe('behind a load balancer (CHS_TRUST_PROXY)', () => {
  it('parses true, a hop count or addresses, and refuses anything else', () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ CHS_TRUST_PROXY: 'false' }).trustProxy).toBeUndefined();
    expect(loadConfig({ CHS_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ CHS_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ CHS_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => loadConfig({ CHS_TRUST_PROXY: 'the balancer' })).toThrow(/CHS_TRUST_PROXY/);
  });

  it('keyless callers behind a trusted balancer each get their own per-IP budget; without it they share the balancer’s', async () => {
    const limits = { perKeyMinute: 2, perKeyHour: 100, perWorkspaceMinute: 1000, perWorkspaceDay: 1000 };
    const from = (a: TestApp, ip: string) => a.request('/api/openapi.json', { key: null, headers: { 'x-forwarded-for': ip } });
    const trusted = await app({ config: { rateLimits: limits, trustProxy: ['127.0.0.1'] } });
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      expect((await from(trusted, ip)).status).toBe(200);
      expect((await from(trusted, ip)).status).toBe(200);
    }
    expect((await from(trusted, '203.0.113.1')).status).toBe(429);

    const untrusted = await app({ config: { rateLimits: limits } });
    expect((await from(untrusted, '203.0.113.1')).status).toBe(200);
    expect((await from(untrusted, '203.0.113.2')).status).toBe(200);
    expect((await from(untrusted, '203.0.113.3')).status).toBe(429);
  });
});
