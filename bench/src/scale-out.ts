/**
 * Scale-out: 1, 2 and 3 `chs serve` processes on one PostgreSQL database (a fresh database per
 * runner count) and one Redis for the rate-limit counters, as in docs/scale-out.md.
 *
 * For each runner count:
 *   - one v2 ingestion of `messages` messages from the fake Gmail server: one job, so one runner
 *     works it; the figure shows what a second runner does not change;
 *   - `workspaces` ingestions at once, `perWorkspace` messages each: jobs spread over the runners'
 *     workers (CHS_JOB_CONCURRENCY each), so this is the throughput that scales;
 *   - API latency: autocannon on GET /api/clients, `connections` connections split evenly over the
 *     runners (what a round-robin load balancer does), every request checked against Redis.
 * The fake Gmail servers (one mailbox per workspace, routed by access token) and autocannon run in
 * this process; with several runners they share this machine's cores with the runners and
 * PostgreSQL, so the figures are an upper bound on a single host, not a cluster's.
 *
 * Run: `npm run bench -- scale-out` (or `node bench/dist/scale-out.js [--json]`). Needs PostgreSQL
 * (CHS_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres) and Redis
 * (CHS_BENCH_REDIS_URL, default redis://127.0.0.1:6379).
 */
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { connectIntegration, createEngine, createWorkspace, parseSecretKey } from '@chs/core';
import { createTestDatabase, type FakeGmailMessage, type FakeGmailServer, startFakeGmailServer, type TestDatabase } from '@chs/core/testing';
import { percentile, round } from './measure.js';
import { CHS_BIN } from './paths.js';
import { CHS_SERVING, startServer, stopServer, type ServerProcess } from './spawn.js';
import { metric, type BenchResult } from './results.js';
import { startResult } from './scenarios/common.js';

export interface ScaleOutOptions {
  /** Runner counts to measure. Default [1, 2, 3]. */
  runners?: number[];
  /** Messages of the single large ingestion. Default 5,000. */
  messages?: number;
  /** Workspaces ingesting at once. Default 6. */
  workspaces?: number;
  /** Messages per workspace in the parallel ingestion. Default 1,000. */
  perWorkspace?: number;
  /** autocannon seconds per runner count. Default 10. */
  duration?: number;
  /** autocannon connections in all, split over the runners. Default 12. */
  connections?: number;
  log?: (line: string) => void;
}

export interface ScaleOutRun {
  runners: number;
  single: { messages: number; seconds: number; messagesPerSec: number; runnersThatWorked: number };
  parallel: { workspaces: number; messages: number; seconds: number; messagesPerSec: number; runnersThatWorked: number };
  api: { requests: number; requestsPerSec: number; p50Ms: number; p95Ms: number; p99Ms: number; non2xx: number; errors: number };
}

export interface ScaleOutReport {
  config: Required<Omit<ScaleOutOptions, 'log'>>;
  runs: ScaleOutRun[];
}

const SECRET = 'bench-scale-out-secret-key-of-32-bytes-or-more';
const REDIS_URL = process.env.CHS_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** `n` messages from five client domains to `rep@<ws>`, newest first, one a minute. */
function mailbox(ws: string, n: number, prefix: string): FakeGmailMessage[] {
  const domains = ['globex.com', 'initech.com', 'umbrella.com', 'hooli.com', 'stark.com'];
  const newest = Date.now() - 60_000;
  return Array.from({ length: n }, (_, i) => {
    const domain = domains[i % domains.length]!;
    const date = new Date(newest - i * 60_000);
    return {
      id: `${prefix}${String(i).padStart(7, '0')}`,
      internalDate: date.getTime(),
      raw: [
        `From: Contact ${i % 7} <contact${i % 7}@${domain}>`,
        `To: Rep <rep@${ws}>`,
        `Subject: Renewal question ${i}`,
        `Date: ${date.toUTCString()}`,
        `Message-ID: <${prefix}${i}@${domain}>`,
        'Content-Type: text/plain; charset=utf-8',
        '',
        `Hello, thanks for the update on item ${i}. The rollout went well and the team is happy.`,
        '',
      ].join('\r\n'),
    };
  });
}

/** One URL for every workspace's fake Gmail: requests go to the server whose access token they carry. */
async function startRouter(byToken: Map<string, FakeGmailServer>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const token = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const target = byToken.get(token);
    if (!target) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":401}}');
      return;
    }
    const t = new URL(target.url);
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Ws {
  domain: string;
  apiKey: string;
  token: string;
  messages: FakeGmailMessage[];
}

/** Starts a v2 ingestion for each workspace (round-robin over the runners) and waits for them all. */
async function ingestAll(
  runners: ServerProcess[],
  list: Ws[],
  db: TestDatabase,
  engineDb: Awaited<ReturnType<typeof createEngine>>['store']['db'],
): Promise<{ seconds: number; runnersThatWorked: number }> {
  const t0 = performance.now();
  await Promise.all(
    list.map(async (w, i) => {
      const r = runners[i % runners.length]!;
      const res = await fetch(`${r.base}/api/ingest/v2/start`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workspaceId: w.domain, sinceDays: 30, batchSize: 200 }),
      });
      if (res.status !== 200) throw new Error(`ingest/v2/start ${w.domain}: ${res.status} ${await res.text()}`);
    }),
  );
  const owners = new Set<string>();
  for (;;) {
    const rows = await engineDb.selectFrom('jobs').select(['state', 'lease_owner', 'workspace_id']).where('kind', '=', 'ingest').execute();
    for (const r of rows) if (r.lease_owner) owners.add(r.lease_owner.split(':')[1] ?? '');
    const mine = rows.filter((r) => list.some((w) => w.domain === r.workspace_id));
    if (mine.length === list.length && mine.every((r) => r.state === 'completed' || r.state === 'failed')) {
      const failed = mine.filter((r) => r.state === 'failed');
      if (failed.length) throw new Error(`${failed.length} ingestion job(s) failed (database ${db.url})`);
      break;
    }
    await sleep(100);
  }
  const seconds = (performance.now() - t0) / 1000;
  // Every message must be stored once: the figure is only worth something if the work was done.
  for (const w of list) {
    const n = await engineDb
      .selectFrom('interactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', w.domain)
      .executeTakeFirstOrThrow();
    if (Number(n.n) !== w.messages.length) throw new Error(`${w.domain}: ${n.n} interactions stored, expected ${w.messages.length}`);
  }
  return { seconds, runnersThatWorked: owners.size };
}

/** autocannon on every runner at once, the connections split evenly; latencies merged. */
async function apiLoad(runners: ServerProcess[], w: Ws, duration: number, connections: number): Promise<ScaleOutRun['api']> {
  const latencies: number[] = [];
  const per = Math.max(1, Math.round(connections / runners.length));
  const results = await Promise.all(
    runners.map(
      (r) =>
        new Promise<autocannon.Result>((resolve, reject) => {
          const inst = autocannon(
            { url: `${r.base}/api/clients?workspaceId=${w.domain}`, connections: per, duration, headers: { authorization: `Bearer ${w.apiKey}` } },
            (err: Error | null, res: autocannon.Result) => (err ? reject(err) : resolve(res)),
          );
          inst.on('response', (_c, status, _b, ms) => {
            if (status >= 200 && status < 300) latencies.push(ms);
          });
        }),
    ),
  );
  const requests = results.reduce((s, r) => s + r.requests.total, 0);
  return {
    requests,
    requestsPerSec: round(requests / duration, 0),
    p50Ms: round(percentile(latencies, 50), 2),
    p95Ms: round(percentile(latencies, 95), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
  };
}

async function measure(n: number, o: Required<Omit<ScaleOutOptions, 'log' | 'runners'>>, log: (l: string) => void): Promise<ScaleOutRun> {
  const db = await createTestDatabase('postgres');
  const fakes: FakeGmailServer[] = [];
  const runners: ServerProcess[] = [];
  let router: Awaited<ReturnType<typeof startRouter>> | undefined;
  const engine = await createEngine({ database: db.url, poolSize: 2 });
  try {
    const tag = randomBytes(3).toString('hex');
    const key = parseSecretKey(SECRET);
    const setup = async (domain: string, count: number): Promise<Ws> => {
      const created = await createWorkspace(engine.store.db, { domain, name: domain, ownerEmail: `ops@${domain}` });
      const token = `tok-${domain}`;
      const messages = mailbox(domain, count, `${domain.split('.')[0]}-`);
      await connectIntegration(engine.store.db, key, {
        workspaceId: domain,
        provider: 'google',
        credentials: { accessToken: token, email: `rep@${domain}` },
        accountEmail: `rep@${domain}`,
      });
      return { domain, apiKey: created.apiKey.key, token, messages };
    };
    const big = await setup(`big-${tag}.com`, o.messages);
    const many: Ws[] = [];
    for (let i = 0; i < o.workspaces; i++) many.push(await setup(`ws${i}-${tag}.com`, o.perWorkspace));
    const byToken = new Map<string, FakeGmailServer>();
    for (const w of [big, ...many]) {
      const f = await startFakeGmailServer({ messages: w.messages, accessTokens: [w.token], emailAddress: `rep@${w.domain}` });
      fakes.push(f);
      byToken.set(w.token, f);
    }
    router = await startRouter(byToken);
    const dir = mkdtempSync(join(tmpdir(), 'chs-bench-scale-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CHS_DATABASE_URL: db.url,
      CHS_DATA_DIR: dir,
      CHS_SECRET_KEY: SECRET,
      CHS_REDIS_URL: REDIS_URL,
      CHS_LOG_LEVEL: 'warn',
      CHS_SMTP_URL: '',
      CHS_NOW: '',
      CHS_SCHEDULER: 'off',
      CHS_JOB_POLL_MS: '100',
      CHS_GOOGLE_API_URL: `${router.url}/`,
      CHS_GOOGLE_TOKEN_URL: `${router.url}/token`,
      // The fake Gmail has no quota; Gmail's real 15,000 units/minute would make this a quota benchmark.
      CHS_GOOGLE_QUOTA_UNITS_PER_MINUTE: '0',
      CHS_RATE_LIMIT_PER_MINUTE: '1000000000',
      CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: '1000000000',
      CHS_RATE_LIMIT_PER_HOUR: '1000000000',
      CHS_RATE_LIMIT_PER_DAY: '1000000000',
    };
    runners.push(...(await Promise.all(Array.from({ length: n }, () => startServer([CHS_BIN, 'serve', '--port', '0'], env, CHS_SERVING)))));
    log(`${n} runner(s) up on ${db.url.replace(/\/\/[^@]*@/, '//')}`);

    const single = await ingestAll(runners, [big], db, engine.store.db);
    log(`  single ingestion of ${o.messages}: ${single.seconds.toFixed(1)} s`);
    const parallel = await ingestAll(runners, many, db, engine.store.db);
    const pm = o.workspaces * o.perWorkspace;
    log(`  ${o.workspaces} ingestions at once (${pm} messages): ${parallel.seconds.toFixed(1)} s over ${parallel.runnersThatWorked} runner(s)`);
    // Warm-up, then the measured pass.
    await apiLoad(runners, big, 2, o.connections);
    const api = await apiLoad(runners, big, o.duration, o.connections);
    log(`  GET /api/clients: ${api.requestsPerSec} req/s, p50 ${api.p50Ms} ms, p95 ${api.p95Ms} ms, p99 ${api.p99Ms} ms (non-2xx ${api.non2xx})`);
    return {
      runners: n,
      single: {
        messages: o.messages,
        seconds: round(single.seconds, 2),
        messagesPerSec: round(o.messages / single.seconds, 0),
        runnersThatWorked: single.runnersThatWorked,
      },
      parallel: {
        workspaces: o.workspaces,
        messages: pm,
        seconds: round(parallel.seconds, 2),
        messagesPerSec: round(pm / parallel.seconds, 0),
        runnersThatWorked: parallel.runnersThatWorked,
      },
      api,
    };
  } finally {
    await Promise.all(runners.map(stopServer));
    await router?.close();
    for (const f of fakes) await f.close();
    await engine.close();
    await db.drop();
  }
}

export async function scaleOut(options: ScaleOutOptions = {}): Promise<ScaleOutReport> {
  const config = {
    runners: options.runners ?? [1, 2, 3],
    messages: options.messages ?? 5000,
    workspaces: options.workspaces ?? 6,
    perWorkspace: options.perWorkspace ?? 1000,
    duration: options.duration ?? 10,
    connections: options.connections ?? 12,
  };
  const log = options.log ?? (() => undefined);
  const runs: ScaleOutRun[] = [];
  for (const n of config.runners) runs.push(await measure(n, config, log));
  return { config, runs };
}

export function formatScaleOut(r: ScaleOutReport): string {
  const lines = ['runners | single ingestion msg/s | parallel ingestion msg/s (runners used) | API req/s | p50 ms | p95 ms | p99 ms'];
  for (const x of r.runs) {
    lines.push(
      `${x.runners} | ${x.single.messagesPerSec} | ${x.parallel.messagesPerSec} (${x.parallel.runnersThatWorked}) | ${x.api.requestsPerSec} | ${x.api.p50Ms} | ${x.api.p95Ms} | ${x.api.p99Ms}`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const json = process.argv.includes('--json');
  scaleOut({ log: (l) => process.stderr.write(`  · ${l}\n`) }).then(
    (r) => process.stdout.write(`${json ? JSON.stringify(r, null, 2) : formatScaleOut(r)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}

/** The `npm run bench -- scale-out` scenario: the report as a result file (metrics per runner count). */
export async function scaleOutScenario(options: ScaleOutOptions = {}): Promise<BenchResult> {
  const report = await scaleOut(options);
  const r = startResult('scale-out', { ...report.config });
  for (const x of report.runs) {
    const n = `${x.runners}r`;
    r.metrics[`single_ingest_msgs_per_sec_${n}`] = metric(
      x.single.messagesPerSec,
      'msg/s',
      'throughput',
      `one v2 ingestion of ${x.single.messages} messages, ${x.runners} runner(s)`,
    );
    r.metrics[`parallel_ingest_msgs_per_sec_${n}`] = metric(
      x.parallel.messagesPerSec,
      'msg/s',
      'throughput',
      `${x.parallel.workspaces} v2 ingestions at once, ${x.parallel.messages} messages, ${x.runners} runner(s)`,
    );
    r.metrics[`api_clients_rps_${n}`] = metric(
      x.api.requestsPerSec,
      'req/s',
      'throughput',
      `GET /api/clients, ${report.config.connections} connections over ${x.runners} runner(s)`,
    );
    r.metrics[`api_clients_p95_ms_${n}`] = metric(x.api.p95Ms, 'ms', 'latency');
    r.metrics[`api_clients_p99_ms_${n}`] = metric(x.api.p99Ms, 'ms', 'latency');
  }
  r.details.runs = report.runs;
  r.details.table = formatScaleOut(report);
  return r.finish();
}
