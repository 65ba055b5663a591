/**
 * The API under load: `chs serve` (a child process, rate limits raised by its environment) on a
 * generated workspace, hit by autocannon from this process; a bare Fastify route in another
 * child process is measured in the same run as the ceiling.
 */
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createApiKey, createEngine, revokeAllApiKeys } from '@chs/core';
import { API_NOW, API_WORKSPACE, ensureApiDataset } from '../api-data.js';
import { percentile, round } from '../measure.js';
import { BENCH_DIR, CHS_BIN, TMP_DIR } from '../paths.js';
import { metric, target, type BenchResult } from '../results.js';
import { CHS_SERVING, startServer, stopServer, type ServerProcess } from '../spawn.js';
import { startResult, type Log } from './common.js';

export interface ApiScenarioOptions {
  /** Default 5,000. */
  clients?: number;
  /** Default 1,000,000. */
  interactions?: number;
  /** Seconds per endpoint at `connections` (plus a 2 s warm-up and half as long on one connection). Default 10. */
  duration?: number;
  /** Concurrent connections. Default 10. */
  connections?: number;
  dir?: string;
  log?: Log;
}

export interface LoadResult {
  requests: number;
  requestsPerSec: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** One autocannon run; latencies are kept per response so p95 can be read (autocannon reports 97.5). */
export async function load(
  url: string,
  opts: { duration: number; connections: number; headers?: Record<string, string>; paths?: string[] },
): Promise<LoadResult> {
  const latencies: number[] = [];
  let i = 0;
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: opts.connections,
        duration: opts.duration,
        ...(opts.headers ? { headers: opts.headers } : {}),
        ...(opts.paths && opts.paths.length > 1
          ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: opts.paths![i++ % opts.paths!.length]! }) }] }
          : {}),
      },
      (err: Error | null, result: autocannon.Result) => (err ? reject(err) : resolve(result)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
  return {
    requests: latencies.length,
    requestsPerSec: round(r.requests.total / opts.duration, 0),
    p50Ms: round(percentile(latencies, 50), 2),
    p95Ms: round(percentile(latencies, 95), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    maxMs: round(
      latencies.reduce((a, b) => (b > a ? b : a), 0),
      2,
    ),
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

export async function apiScenario(o: ApiScenarioOptions = {}): Promise<BenchResult> {
  const log = o.log ?? (() => undefined);
  const clients = o.clients ?? 5000;
  const interactions = o.interactions ?? 1_000_000;
  const duration = o.duration ?? 10;
  const connections = o.connections ?? 10;
  const soloDuration = Math.max(2, Math.round(duration / 2));
  const data = await ensureApiDataset(clients, interactions, o.dir ?? TMP_DIR, log);

  // A fresh key each run: the full key is never written anywhere. The earlier runs' keys are
  // revoked first, so the reused dataset never reaches the workspace's cap of active keys.
  const engine = await createEngine({ database: data.path });
  await revokeAllApiKeys(engine.store.db, API_WORKSPACE);
  const key = (await createApiKey(engine.store.db, { workspaceId: API_WORKSPACE, name: `bench ${new Date().toISOString()}` })).key;
  await engine.close();

  const r = startResult('api', { clients, interactions, snapshots: data.snapshots, duration, connections, logLevel: 'warn', now: API_NOW });
  const { metrics: m, details } = r;
  details.dataset = { ...data, path: data.path };

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CHS_DATABASE_URL: data.path,
    CHS_DATA_DIR: join(o.dir ?? TMP_DIR, 'api-data'),
    CHS_NOW: API_NOW,
    CHS_LOG_LEVEL: 'warn',
    // Steady state: the scheduler's first tick would rebuild today's health of all 5,000 clients
    // (~5 s of SQLite work, in batches) inside whichever endpoint's window it falls.
    CHS_SCHEDULER: 'off',
    CHS_RATE_LIMIT_PER_MINUTE: '1000000000',
    CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: '1000000000',
    CHS_RATE_LIMIT_PER_HOUR: '1000000000',
    CHS_RATE_LIMIT_PER_DAY: '1000000000',
  };
  const bare = await startServer([join(BENCH_DIR, 'dist', 'bare-server.js')], process.env, /listening (http:\S+)/);
  let chs: ServerProcess | undefined;
  try {
    chs = await startServer([CHS_BIN, 'serve', '--port', '0', '--host', '127.0.0.1'], env, CHS_SERVING);
    const headers = { authorization: `Bearer ${key}` };
    const ws = `workspaceId=${API_WORKSPACE}`;
    const endpoints: Array<{ name: string; base: string; paths: string[]; headers?: Record<string, string> }> = [
      { name: 'bare', base: bare.base, paths: ['/bare'] },
      { name: 'clients', base: chs.base, paths: [`/api/clients?${ws}`], headers },
      { name: 'clientById', base: chs.base, paths: data.sampleClientIds.map((id) => `/api/clients/${id}?${ws}`), headers },
      { name: 'metricsSummary', base: chs.base, paths: [`/api/metrics/summary?${ws}`], headers },
      { name: 'trendsHealth', base: chs.base, paths: [`/api/metrics/trends/health?${ws}`], headers },
    ];
    for (const e of endpoints) {
      const first = await fetch(`${e.base}${e.paths[0]}`, e.headers ? { headers: e.headers } : {});
      const body = await first.text();
      if (first.status !== 200) throw new Error(`${e.name}: GET ${e.paths[0]} → ${first.status} ${body.slice(0, 300)}`);
      log(`${e.name}: warm-up 2 s, then ${duration} s × ${connections} connections (${body.length} B response) …`);
      await load(`${e.base}${e.paths[0]}`, { duration: 2, connections, ...(e.headers ? { headers: e.headers } : {}), paths: e.paths });
      const res = await load(`${e.base}${e.paths[0]}`, { duration, connections, ...(e.headers ? { headers: e.headers } : {}), paths: e.paths });
      details[e.name] = { ...res, path: e.paths[0], responseBytes: body.length };
      m[`${e.name}.reqPerSec`] = metric(res.requestsPerSec, 'req/s', 'throughput');
      m[`${e.name}.p50Ms`] = metric(res.p50Ms, 'ms', 'latency');
      m[`${e.name}.p95Ms`] = metric(res.p95Ms, 'ms', 'latency');
      m[`${e.name}.p99Ms`] = metric(res.p99Ms, 'ms', 'latency');
      if (res.non2xx + res.errors + res.timeouts > 0) log(`  ${e.name}: ${res.non2xx} non-2xx, ${res.errors} errors, ${res.timeouts} timeouts`);
      // Requests autocannon gave up on are still being computed (SQLite is synchronous): wait
      // for the backlog to clear before measuring a request alone.
      await fetch(`${e.base}${e.paths[0]}`, e.headers ? { headers: e.headers } : {}).then((x) => x.text());
      // One connection: the time of one request alone, without queueing behind the others.
      const solo = await load(`${e.base}${e.paths[0]}`, {
        duration: soloDuration,
        connections: 1,
        ...(e.headers ? { headers: e.headers } : {}),
        paths: e.paths,
      });
      details[`${e.name}.c1`] = solo;
      if (solo.requests > 0) {
        m[`${e.name}.c1.p50Ms`] = metric(solo.p50Ms, 'ms', 'latency', 'one connection');
        m[`${e.name}.c1.p95Ms`] = metric(solo.p95Ms, 'ms', 'latency', 'one connection');
      }
      await fetch(`${e.base}${e.paths[0]}`, e.headers ? { headers: e.headers } : {}).then((x) => x.text());
    }
    const bareRate = m['bare.reqPerSec']!.value;
    m['clientById.shareOfBare'] = metric(
      round((m['clientById.reqPerSec']!.value / bareRate) * 100, 1),
      '%',
      'ratio',
      'GET /clients/{id} req/s ÷ bare Fastify route req/s',
    );
    r.targets.push(target('/metrics/summary p95 < 50 ms at 1M interactions', m, 'metricsSummary.p95Ms', '<=', 50));
    r.targets.push(target('/clients/{id} ≥ 50% of the bare route', m, 'clientById.shareOfBare', '>=', 50));
  } finally {
    if (chs) await stopServer(chs);
    await stopServer(bare);
  }
  return r.finish();
}
