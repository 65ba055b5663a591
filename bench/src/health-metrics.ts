/**
 * Health and metrics benchmark: a synthetic workspace (default 500 clients, 100,000 interactions
 * over 365 days), a full recomputeHealth rebuild and a daily incremental run, then GET
 * /metrics/summary and /metrics/trends/health through app.inject, p50/p95.
 *
 *   node bench/dist/health-metrics.js [--clients 500] [--interactions 100000] [--requests 200] [--db file]
 *     [--base file] [--skip-full]
 *
 * `--base file`: the generated, never-scored database is kept there and copied (not regenerated)
 * by later runs with the same file, so runs compare on identical data. `--skip-full`: only the
 * daily run (the database must already be scored, e.g. `--db` of an earlier run).
 *
 * Rows are generated with one prepared statement (not through the engine) so generation time
 * stays out of the numbers. SQLite only.
 */
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import SqliteDatabase from 'better-sqlite3';
import { DAY_MS, createApiKey, createEngine, createWorkspace, fixedClock, recomputeHealth, revokeAllApiKeys } from '@chs/core';
import { buildApp, loadConfig } from '@chs/runner';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const CLIENTS = arg('clients', 500);
const INTERACTIONS = arg('interactions', 100_000);
const REQUESTS = arg('requests', 200);
const dbArg = process.argv.indexOf('--db');
const DB = dbArg >= 0 ? process.argv[dbArg + 1]! : join(mkdtempSync(join(tmpdir(), 'chs-bench-')), 'chs.db');
const baseArg = process.argv.indexOf('--base');
const BASE = baseArg >= 0 ? process.argv[baseArg + 1] : undefined;
const SKIP_FULL = process.argv.includes('--skip-full');
const NOW = '2024-06-30T12:00:00.000Z';
const WS = 'bench.test';

/** Deterministic PRNG (mulberry32) so runs compare. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

async function main(): Promise<void> {
  if (BASE !== undefined && existsSync(BASE)) {
    copyFileSync(BASE, DB);
    console.log(`copied ${BASE} to ${DB}`);
  } else if (!SKIP_FULL) await generate();
  const engine = await createEngine({ database: DB, clock: fixedClock(NOW) });
  const db = engine.store.db;
  // Earlier runs' keys go first, so a reused database never reaches the cap of active keys.
  await revokeAllApiKeys(db, WS);
  const key = await createApiKey(db, { workspaceId: WS, name: `bench ${Date.now()}` });
  let t = performance.now();
  if (!SKIP_FULL) {
    const full = await recomputeHealth(db, { workspaceId: WS, now: new Date(NOW) });
    const fullMs = performance.now() - t;
    console.log(`recomputeHealth full rebuild: ${full.clientsScored} clients, ${full.snapshotsWritten} snapshots in ${(fullMs / 1000).toFixed(2)} s`);
  }
  t = performance.now();
  const daily = await recomputeHealth(db, { workspaceId: WS, fromDay: NOW.slice(0, 10), now: new Date(NOW) });
  console.log(`recomputeHealth daily run (fromDay = today): ${daily.snapshotsWritten} snapshots in ${((performance.now() - t) / 1000).toFixed(2)} s`);
  t = performance.now();
  const one = await recomputeHealth(db, { workspaceId: WS, clientIds: ['c1'], fromDay: '2024-05-01', now: new Date(NOW) });
  console.log(`recomputeHealth one client from 2024-05-01: ${one.snapshotsWritten} snapshots in ${(performance.now() - t).toFixed(1)} ms`);

  const unlimited = String(1e9);
  const config = loadConfig({
    CHS_DATABASE_URL: DB,
    CHS_LOG_LEVEL: 'silent',
    CHS_DATA_DIR: mkdtempSync(join(tmpdir(), 'chs-bench-data-')),
    CHS_RATE_LIMIT_PER_MINUTE: unlimited,
    CHS_RATE_LIMIT_PER_HOUR: unlimited,
    CHS_RATE_LIMIT_PER_DAY: unlimited,
    CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: unlimited,
  });
  const app = await buildApp({ engine, config });
  const headers = { authorization: `Bearer ${key.key}` };
  for (const path of [
    '/api/metrics/summary',
    '/api/metrics/summary?windowDays=90',
    '/api/metrics/trends/health',
    '/api/metrics/trends/health?windowDays=365&interval=monthly',
    '/api/metrics/deltas',
    '/api/metrics/email-stats',
    '/api/clients/c0',
    '/api/clients/c2500',
  ]) {
    const url = `${path}${path.includes('?') ? '&' : '?'}workspaceId=${WS}`;
    for (let i = 0; i < 5; i++) await app.inject({ method: 'GET', url, headers });
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const s = performance.now();
      const res = await app.inject({ method: 'GET', url, headers });
      times.push(performance.now() - s);
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    }
    console.log(`${path.padEnd(60)} p50 ${pct(times, 50).toFixed(1)} ms  p95 ${pct(times, 95).toFixed(1)} ms`);
  }
  await app.close();
  await engine.close();
}

async function generate(): Promise<void> {
  const setup = await createEngine({ database: DB });
  await createWorkspace(setup.store.db, { domain: WS, name: 'Bench', ownerEmail: `ana@${WS}`, ownerName: 'Ana' });
  await setup.close();

  const t0 = performance.now();
  const native = new SqliteDatabase(DB);
  native.pragma('journal_mode = WAL');
  const rand = rng(42);
  // Signal bits of client messages from their own stream, so the rest of the data is the same
  // as before they existed: 40 % ask for an answer, 2 % chase, 0.5 % state churn intent.
  const signalRand = rng(7);
  const signalsOf = (inbound: boolean): number => {
    if (!inbound) return 0;
    const r = signalRand();
    return (r < 0.4 ? 4 : 0) | (r < 0.02 ? 2 : 0) | (r < 0.005 ? 1 : 0);
  };
  const at = '2023-01-01T00:00:00.000Z';
  const insClient = native.prepare(
    `insert into clients (id, workspace_id, name, name_source, primary_domain, mrr, renewal_date, csm_owner, is_excluded, created_at, updated_at)
     values (?, ?, ?, 'domain', ?, ?, ?, null, ?, ?, ?)`,
  );
  const insInteraction = native.prepare(
    `insert into interactions (id, workspace_id, client_id, type, source, dedupe_key, provider_id, thread_id, subject, summary, sentiment_label,
       sentiment_score, occurred_at, from_email, to_emails, direction, opened, signals, content_hash, created_at, updated_at)
     values (?, ?, ?, ?, 'mbox', ?, null, ?, 'subject', 'summary', ?, ?, ?, 'a@x.test', 'b@y.test', ?, ?, ?, ?, ?, ?)`,
  );
  const end = Date.parse(NOW);
  native.transaction(() => {
    for (let c = 0; c < CLIENTS; c++) {
      const renewal = new Date(end + Math.floor(rand() * 365) * DAY_MS).toISOString().slice(0, 10);
      insClient.run(`c${c}`, WS, `Client ${c}`, `client${c}.test`, Math.round(rand() * 5000), renewal, rand() < 0.02 ? 1 : 0, at, at);
    }
    let thread = 0;
    let n = 0;
    while (n < INTERACTIONS) {
      const client = `c${Math.floor(rand() ** 1.5 * CLIENTS)}`;
      let t = end - Math.floor(rand() * 365 * DAY_MS);
      const len = 1 + Math.floor(rand() * 4);
      thread++;
      for (let k = 0; k < len && n < INTERACTIONS; k++, n++) {
        const s = Math.round((rand() * 2 - 1) * 100) / 100;
        const type = rand() < 0.9 ? 'email' : rand() < 0.5 ? 'meeting' : 'support_ticket';
        const iso = new Date(t).toISOString();
        insInteraction.run(
          `i${n}`,
          WS,
          client,
          type,
          `i${n}`,
          type === 'email' ? `t${thread}` : null,
          s > 0.05 ? 'positive' : s < -0.05 ? 'negative' : 'neutral',
          s,
          iso,
          k % 2 === 0 ? 'inbound' : 'outbound',
          rand() < 0.3 ? (rand() < 0.5 ? 1 : 0) : null,
          signalsOf(k % 2 === 0),
          `h${n}`,
          iso,
          iso,
        );
        t += Math.floor(rand() * 48 * 3_600_000);
      }
    }
  })();
  native.pragma('wal_checkpoint(TRUNCATE)');
  native.close();
  console.log(`generated ${CLIENTS} clients, ${INTERACTIONS} interactions in ${((performance.now() - t0) / 1000).toFixed(1)} s (${DB})`);
  if (BASE !== undefined) copyFileSync(DB, BASE);
}

await main();
