/**
 * Smoke tests of the history's storage figures: the storage scenario (the demo and a small client
 * mailbox through `chs demo` and `chs ingest`) and the scale projection at 200 clients, on both
 * dialects, through the real commands and child processes (bench/dist and the `chs` bundle, built
 * by `npm test`). They check the results' shape and that the figures add up, never speed or size.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BENCH_PG_URL } from './command.js';
import { CHILD_FILE } from './paths.js';
import { scaleScenario } from './scenarios/scale.js';
import { storageScenario } from './scenarios/storage.js';
import { CLIENT_DAY_TABLE, HISTORY_TABLES, type StorageReport } from './storage.js';

const dir = mkdtempSync(join(tmpdir(), 'chs-bench-storage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The scale scenario's data on the server (other tests' fresh databases come and go meanwhile). */
async function scaleDatabases(): Promise<string[]> {
  const c = new pg.Client({ connectionString: DEFAULT_BENCH_PG_URL });
  await c.connect();
  try {
    return (await c.query<{ datname: string }>("select datname from pg_database where datname like 'chs_bench_scale_%'")).rows.map((r) => r.datname);
  } finally {
    await c.end();
  }
}

/** The figures of one database add up: history = its tables and indexes, ÷ the client-days. */
function checkReport(size: StorageReport): void {
  expect(size.history.missing.filter((t) => t === CLIENT_DAY_TABLE)).toEqual([]);
  const history = size.tables.filter((t) => HISTORY_TABLES.includes(t.table));
  expect(history.map((t) => t.table).sort()).toEqual([...size.history.tables].sort());
  expect(size.history.bytes).toBe(history.reduce((a, t) => a + t.totalBytes, 0));
  expect(size.history.clientDays).toBe(size.tables.find((t) => t.table === CLIENT_DAY_TABLE)!.rows);
  expect(size.history.clientDays).toBeGreaterThan(0);
  expect(size.history.bytesPerClientDay).toBeCloseTo(size.history.bytes / size.history.clientDays!, 6);
  expect(size.history.bytes).toBeLessThan(size.totalBytes);
  for (const t of size.tables) expect(t.totalBytes).toBe(t.tableBytes + t.indexBytes);
  expect(size.tables.find((t) => t.table === 'interactions')!.rows).toBeGreaterThan(0);
}

describe('storage scenario (the demo and 300 messages)', () => {
  it('reports history bytes per client-day on both dialects, and the targets', { timeout: 300_000 }, async () => {
    expect(existsSync(CHILD_FILE)).toBe(true);
    const r = await storageScenario({ messages: 300, dir });
    expect(r.scenario).toBe('storage');
    for (const d of ['sqlite', 'postgres'])
      for (const dataset of ['demo', 'mbox300']) {
        for (const name of ['db.totalMB', 'history.MB', 'history.clientDays', 'history.bytesPerClientDay', 'commandSec'])
          expect(r.metrics[`storage.${dataset}.${d}.${name}`]?.value, `${dataset} ${d} ${name}`).toBeGreaterThan(0);
        checkReport(r.details[`${dataset}.${d}`] as StorageReport);
        expect(r.targets.find((t) => t.metric === `storage.${dataset}.${d}.history.bytesPerClientDay`)?.threshold).toBe(250);
      }
    // The demo holds ~56 clients over a year; the same data on both dialects.
    expect(r.metrics['storage.demo.sqlite.history.clientDays']!.value).toBeGreaterThan(10_000);
    expect(r.metrics['storage.demo.postgres.history.clientDays']!.value).toBe(r.metrics['storage.demo.sqlite.history.clientDays']!.value);
    expect(r.metrics['storage.mbox300.sqlite.history.clientDays']!.value).toBe(r.metrics['storage.mbox300.sqlite.snapshotsWritten']!.value);
  });
});

describe('scale scenario (200 clients)', () => {
  it('rebuilds, measures, runs the daily work and loads /metrics/summary on both dialects, leaving nothing behind', { timeout: 300_000 }, async () => {
    const before = await scaleDatabases();
    const r = await scaleScenario({ clients: 200, duration: 1, dir, ephemeral: true });
    expect(r.scenario).toBe('scale');
    expect(r.config).toMatchObject({ clients: 200, interactions: 20_000 });
    for (const d of ['sqlite', 'postgres']) {
      const m = (name: string): number => r.metrics[`scale.${d}.${name}`]!.value;
      expect(m('rebuild.clientsScored')).toBe(200);
      // A year of history for nearly every client.
      expect(m('history.clientDays')).toBeGreaterThan(200 * 300);
      expect(m('history.clientDays')).toBeLessThanOrEqual(200 * 366);
      expect(m('daily.snapshots')).toBeGreaterThan(0);
      for (const name of ['generateSec', 'rebuild.sec', 'db.totalMB', 'history.MB', 'history.bytesPerClientDay', 'daily.sec', 'daily.recomputeSec'])
        expect(m(name), `${d} ${name}`).toBeGreaterThan(0);
      for (const name of ['reqPerSec', 'p50Ms', 'p95Ms', 'p99Ms', 'c1.p95Ms']) expect(m(`metricsSummary.${name}`), `${d} ${name}`).toBeGreaterThan(0);
      checkReport(r.details[`${d}.storage`] as StorageReport);
      expect(r.targets.find((t) => t.metric === `scale.${d}.daily.sec`)?.threshold).toBe(60);
    }
    expect(r.metrics['scale.postgres.history.clientDays']!.value).toBe(r.metrics['scale.sqlite.history.clientDays']!.value);
    // Its data (ephemeral) is gone: the template database and the SQLite file.
    expect((await scaleDatabases()).filter((n) => !before.includes(n))).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.startsWith('scale-'))).toEqual([]);
  });
});
