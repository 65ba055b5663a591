/**
 * The scale projection (issue 30): a workspace of 10,000 clients over a year (scale-data.ts), on
 * SQLite and on PostgreSQL, measured with the product's own code. For each dialect, on a fresh
 * copy of the generated data:
 * 1. the full health rebuild (`recomputeHealth` over every client, from its first day), in a
 *    fresh child process;
 * 2. the database's size and the health history's bytes per client-day (storage.ts);
 * 3. the daily run a day later (`recomputeHealth` from today for every client, then
 *    `pruneHistory`: what the scheduler does once a day), in a fresh child process;
 * 4. `GET /metrics/summary` under autocannon against `chs serve` (as the api scenario: 10
 *    connections, then one), the data's clock at the day of the daily run.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { addDays, createApiKey, createEngine } from '@chs/core';
import { DEFAULT_BENCH_PG_URL, freshDatabase, benchDialects } from '../command.js';
import { MB, round } from '../measure.js';
import { CHS_BIN, TMP_DIR } from '../paths.js';
import { metric, target, type BenchResult } from '../results.js';
import { SCALE_NOW, SCALE_WORKSPACE, dropScaleDataset, ensureScaleDataset } from '../scale-data.js';
import { CHS_SERVING, runChild, startServer, stopServer, type ServerProcess } from '../spawn.js';
import { measureStorage, storageMetrics } from '../storage.js';
import { load, type LoadResult } from './api.js';
import { startResult, type Log } from './common.js';

export interface ScaleScenarioOptions {
  /** Default 10,000. */
  clients?: number;
  /** Default 100 a client (1,000,000 for 10,000 clients). */
  interactions?: number;
  /** Seconds of `/metrics/summary` at `connections` (after a 2 s warm-up; then half as long on one). Default 10. */
  duration?: number;
  /** Default 10. */
  connections?: number;
  /** PostgreSQL admin URL, or `none`. Default CHS_TEST_PG_URL or loopback. */
  pgUrl?: string;
  /**
   * Generate the data under a name of its own and remove it at the end (tests). Default false:
   * the data is kept in bench/tmp/ and on the server, and reused by the next run.
   */
  ephemeral?: boolean;
  dir?: string;
  log?: Log;
}

export async function scaleScenario(o: ScaleScenarioOptions = {}): Promise<BenchResult> {
  const log = o.log ?? (() => undefined);
  const clients = o.clients ?? 10_000;
  const interactions = o.interactions ?? clients * 100;
  const duration = o.duration ?? 10;
  const connections = o.connections ?? 10;
  const dir = o.dir ?? TMP_DIR;
  const pgUrl = o.pgUrl ?? DEFAULT_BENCH_PG_URL;
  const dailyNow = addDays(new Date(SCALE_NOW), 1).toISOString();
  mkdirSync(dir, { recursive: true });
  const r = startResult('scale', { clients, interactions, now: SCALE_NOW, dailyNow, duration, connections });
  const { metrics: m, details } = r;

  const dialects = await benchDialects(pgUrl, details);
  for (const dialect of dialects) {
    const p = `scale.${dialect}`;
    const tag = o.ephemeral ? `t${randomBytes(4).toString('hex')}` : undefined;
    const data = await ensureScaleDataset(dialect, clients, interactions, { dir, pgUrl, log, ...(tag ? { tag } : {}) });
    m[`${p}.generateSec`] = metric(
      round(data.insertMs / 1000, 1),
      's',
      'time',
      `inserting the clients and interactions (${data.built ? 'this run' : `built ${data.builtAt}, reused`})`,
    );
    const db = await freshDatabase(dialect, dir, pgUrl, data.source);
    try {
      log(`[${dialect}] full rebuild: recomputeHealth over ${clients.toLocaleString('en-US')} clients, fresh process …`);
      const full = await runChild('healthStep', { db: db.url, workspace: SCALE_WORKSPACE, now: SCALE_NOW, kind: 'full' });
      m[`${p}.rebuild.sec`] = metric(round(full.recomputeMs / 1000, 1), 's', 'time', 'recomputeHealth over every client from its first day, fresh process');
      m[`${p}.rebuild.snapshots`] = metric(full.snapshotsWritten, 'rows', 'count', 'what recomputeHealth reports written');
      m[`${p}.rebuild.clientsScored`] = metric(full.clientsScored, 'clients', 'count');
      m[`${p}.rebuild.peakRssMB`] = metric(round(full.peakRssBytes / MB), 'MB', 'memory', 'the rebuild process over the rebuild');
      m[`${p}.rebuild.coresUsed`] = metric(
        round(full.cpuMs / full.recomputeMs, 2),
        'cores',
        'count',
        'CPU of the process ÷ wall time (the database server not included)',
      );

      log(`[${dialect}] sizes …`);
      const size = await measureStorage(db.url);
      storageMetrics(m, p, size);
      details[`${dialect}.storage`] = size;

      log(`[${dialect}] daily run a day later: recomputeHealth from today + pruneHistory, fresh process …`);
      const daily = await runChild('healthStep', { db: db.url, workspace: SCALE_WORKSPACE, now: dailyNow, kind: 'daily' });
      m[`${p}.daily.sec`] = metric(
        round((daily.recomputeMs + (daily.pruneMs ?? 0)) / 1000, 2),
        's',
        'time',
        "the scheduler's daily work: recompute from today, then prune",
      );
      m[`${p}.daily.recomputeSec`] = metric(round(daily.recomputeMs / 1000, 2), 's', 'time', 'recomputeHealth({ fromDay: today }) for every client');
      m[`${p}.daily.pruneSec`] = metric(round((daily.pruneMs ?? 0) / 1000, 2), 's', 'time', 'pruneHistory at the workspace retention');
      m[`${p}.daily.snapshots`] = metric(daily.snapshotsWritten, 'rows', 'count');
      m[`${p}.daily.peakRssMB`] = metric(round(daily.peakRssBytes / MB), 'MB', 'memory');
      details[`${dialect}.rebuild`] = full;
      details[`${dialect}.daily`] = daily;

      log(`[${dialect}] GET /metrics/summary: warm-up 2 s, ${duration} s × ${connections} connections, then one connection …`);
      const summary = await summaryLoad(db.url, dir, dailyNow, duration, connections);
      details[`${dialect}.metricsSummary`] = summary;
      m[`${p}.metricsSummary.reqPerSec`] = metric(summary.loaded.requestsPerSec, 'req/s', 'throughput');
      m[`${p}.metricsSummary.p50Ms`] = metric(summary.loaded.p50Ms, 'ms', 'latency');
      m[`${p}.metricsSummary.p95Ms`] = metric(summary.loaded.p95Ms, 'ms', 'latency', `${connections} connections`);
      m[`${p}.metricsSummary.p99Ms`] = metric(summary.loaded.p99Ms, 'ms', 'latency');
      if (summary.solo.requests > 0) m[`${p}.metricsSummary.c1.p95Ms`] = metric(summary.solo.p95Ms, 'ms', 'latency', 'one connection');
    } finally {
      await db.drop();
      if (o.ephemeral) await dropScaleDataset(data, pgUrl);
    }
    r.targets.push(target(`${dialect}: the daily run for ${clients.toLocaleString('en-US')} clients < 60 s`, m, `${p}.daily.sec`, '<=', 60));
  }
  return r.finish();
}

/** `chs serve` on the database, a fresh API key, `/metrics/summary` under autocannon. */
async function summaryLoad(
  database: string,
  dir: string,
  now: string,
  duration: number,
  connections: number,
): Promise<{ responseBytes: number; loaded: LoadResult; solo: LoadResult }> {
  const engine = await createEngine({ database });
  const key = (await createApiKey(engine.store.db, { workspaceId: SCALE_WORKSPACE, name: 'bench scale' })).key;
  await engine.close();
  const dataDir = mkdtempSync(join(dir, 'scale-data-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CHS_DATABASE_URL: database,
    CHS_DATA_DIR: dataDir,
    CHS_NOW: now,
    CHS_LOG_LEVEL: 'warn',
    // Steady state: the scheduler's first tick would run the daily work again inside the window.
    CHS_SCHEDULER: 'off',
    CHS_RATE_LIMIT_PER_MINUTE: '1000000000',
    CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: '1000000000',
    CHS_RATE_LIMIT_PER_HOUR: '1000000000',
    CHS_RATE_LIMIT_PER_DAY: '1000000000',
  };
  let server: ServerProcess | undefined;
  try {
    server = await startServer([CHS_BIN, 'serve', '--port', '0', '--host', '127.0.0.1'], env, CHS_SERVING);
    const url = `${server.base}/api/metrics/summary?workspaceId=${SCALE_WORKSPACE}`;
    const headers = { authorization: `Bearer ${key}` };
    const first = await fetch(url, { headers });
    const body = await first.text();
    if (first.status !== 200) throw new Error(`GET /metrics/summary → ${first.status} ${body.slice(0, 300)}`);
    await load(url, { duration: 2, connections, headers });
    const loaded = await load(url, { duration, connections, headers });
    // Requests autocannon gave up on may still be computed: let the backlog clear first.
    await fetch(url, { headers }).then((x) => x.text());
    const solo = await load(url, { duration: Math.max(2, Math.round(duration / 2)), connections: 1, headers });
    return { responseBytes: body.length, loaded, solo };
  } finally {
    if (server) await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
