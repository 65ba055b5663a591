/**
 * The API bench's workspace: N clients and M interactions inserted straight into SQLite with
 * multi-row INSERTs in large transactions (parsing mail would take far longer and is measured
 * elsewhere), then the real health rebuild for the snapshots. Cached in bench/tmp/ behind a
 * marker file written last.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { DAY_MS, createEngine, createWorkspace, fixedClock, recomputeHealth } from '@chs/core';
import { TMP_DIR } from './paths.js';

export const API_WORKSPACE = 'bench.test';
/** "Now" of the data (CHS_NOW for the server): the last interaction is just before it. */
export const API_NOW = '2025-06-30T12:00:00.000Z';
const DAYS = 365;

export interface ApiDataset {
  path: string;
  clients: number;
  interactions: number;
  snapshots: number;
  /** Ids of a spread of clients for GET /clients/{id}. */
  sampleClientIds: string[];
  insertMs: number;
  healthMs: number;
  /** True when this call built it. */
  built: boolean;
}

/** mulberry32: a tiny seeded PRNG so the dataset is the same on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Row = ReadonlyArray<string | number | null>;

/** Inserts rows `per` at a time with one prepared multi-row statement (and one for the tail). */
function bulkInsert(db: SqliteDatabase.Database, table: string, columns: readonly string[], rows: Iterable<Row>, per = 100): number {
  const one = `(${columns.map(() => '?').join(',')})`;
  const sql = (n: number) => `insert into ${table} (${columns.join(',')}) values ${Array.from({ length: n }, () => one).join(',')}`;
  const full = db.prepare(sql(per));
  let buf: Array<string | number | null> = [];
  let inBuf = 0;
  let total = 0;
  for (const r of rows) {
    for (const v of r) buf.push(v);
    inBuf += 1;
    if (inBuf === per) {
      full.run(buf);
      total += inBuf;
      buf = [];
      inBuf = 0;
    }
  }
  if (inBuf > 0) {
    db.prepare(sql(inBuf)).run(buf);
    total += inBuf;
  }
  return total;
}

const INTERACTION_COLUMNS = [
  'id',
  'workspace_id',
  'client_id',
  'type',
  'source',
  'dedupe_key',
  'provider_id',
  'thread_id',
  'subject',
  'summary',
  'sentiment_label',
  'sentiment_score',
  'occurred_at',
  'from_email',
  'to_emails',
  'direction',
  'opened',
  'content_hash',
  'created_at',
  'updated_at',
] as const;

function* interactionRows(clients: number, total: number, rand: () => number, lastAt: string[]): Generator<Row> {
  const end = Date.parse(API_NOW) - 3_600_000;
  const span = DAYS * DAY_MS;
  let n = 0;
  let thread = 0;
  while (n < total) {
    // Skewed: a few big accounts, a long tail of quiet ones (like a real book of business).
    const c = Math.floor(rand() ** 1.6 * clients);
    const client = `cli_b${c}`;
    let t = end - Math.floor(rand() * span);
    const len = 1 + Math.floor(rand() * 5);
    thread += 1;
    for (let k = 0; k < len && n < total; k++, n++) {
      const s = Math.round((rand() * 2 - 1) * 100) / 100;
      const r = rand();
      const type = r < 0.85 ? 'email' : r < 0.92 ? 'meeting' : r < 0.97 ? 'support_ticket' : 'call';
      const at = new Date(Math.min(t, end)).toISOString();
      if ((lastAt[c] ?? '') < at) lastAt[c] = at;
      const inbound = k % 2 === 0;
      yield [
        `int_b${n}`,
        API_WORKSPACE,
        client,
        type,
        'mbox',
        `m${n}@client${c}.example`,
        null,
        type === 'email' ? `t${thread}` : null,
        `Re: project update ${thread}`,
        'Thanks for the update, the rollout looks good so far.',
        s > 0.05 ? 'positive' : s < -0.05 ? 'negative' : 'neutral',
        s,
        at,
        inbound ? `p${c % 7}@client${c}.example` : 'csm@bench.test',
        inbound ? 'csm@bench.test' : `p${c % 7}@client${c}.example`,
        inbound ? 'inbound' : 'outbound',
        type === 'email' && !inbound && rand() < 0.5 ? (rand() < 0.6 ? 1 : 0) : null,
        `h${n}`,
        at,
        at,
      ];
      t += Math.floor((1 + rand() * 47) * 3_600_000);
    }
  }
}

export async function ensureApiDataset(clients: number, interactions: number, dir = TMP_DIR, log: (s: string) => void = () => undefined): Promise<ApiDataset> {
  const path = join(dir, `api-${clients}c-${interactions}i.db`);
  const markerPath = `${path}.done.json`;
  if (existsSync(markerPath) && existsSync(path)) {
    return { ...(JSON.parse(readFileSync(markerPath, 'utf8')) as Omit<ApiDataset, 'built'>), path, built: false };
  }
  for (const s of ['', '-wal', '-shm']) rmSync(`${path}${s}`, { force: true });
  log(`building the API dataset: ${clients} clients, ${interactions.toLocaleString('en-US')} interactions → ${path} …`);
  const created = '2024-06-01T00:00:00.000Z';
  const setup = await createEngine({ database: path });
  await createWorkspace(setup.store.db, { domain: API_WORKSPACE, name: 'Bench', ownerEmail: `owner@${API_WORKSPACE}` });
  await setup.close();

  const t0 = performance.now();
  const db = new SqliteDatabase(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const rand = rng(7);
  const lastAt: string[] = [];
  db.transaction(() => {
    bulkInsert(
      db,
      'clients',
      [
        'id',
        'workspace_id',
        'name',
        'name_source',
        'primary_domain',
        'mrr',
        'renewal_date',
        'csm_owner',
        'is_excluded',
        'health_score',
        'health_updated_at',
        'last_interaction_at',
        'created_at',
        'updated_at',
      ],
      (function* () {
        for (let c = 0; c < clients; c++) {
          const renewal = new Date(Date.parse(API_NOW) + Math.floor(rand() * 365) * DAY_MS).toISOString().slice(0, 10);
          yield [
            `cli_b${c}`,
            API_WORKSPACE,
            `Client ${c}`,
            'domain',
            `client${c}.example`,
            Math.round(rand() * 5000),
            renewal,
            null,
            rand() < 0.01 ? 1 : 0,
            null,
            null,
            null,
            created,
            created,
          ];
        }
      })(),
    );
    bulkInsert(
      db,
      'client_domains',
      ['workspace_id', 'domain', 'client_id'],
      (function* () {
        for (let c = 0; c < clients; c++) yield [API_WORKSPACE, `client${c}.example`, `cli_b${c}`];
      })(),
    );
    bulkInsert(
      db,
      'contacts',
      ['id', 'workspace_id', 'client_id', 'name', 'title', 'last_seen_at', 'created_at', 'updated_at'],
      (function* () {
        for (let c = 0; c < clients; c++)
          for (let k = 0; k < 3; k++) yield [`con_b${c}_${k}`, API_WORKSPACE, `cli_b${c}`, `Person ${k} of ${c}`, '', API_NOW, created, created];
      })(),
    );
    bulkInsert(
      db,
      'contact_emails',
      ['workspace_id', 'email', 'contact_id'],
      (function* () {
        for (let c = 0; c < clients; c++) for (let k = 0; k < 3; k++) yield [API_WORKSPACE, `p${k}@client${c}.example`, `con_b${c}_${k}`];
      })(),
    );
  })();
  // One transaction per 100k rows keeps the WAL from growing to the whole table.
  const gen = interactionRows(clients, interactions, rand, lastAt);
  let done = 0;
  while (done < interactions) {
    const chunk = Math.min(100_000, interactions - done);
    db.transaction(() => {
      bulkInsert(
        db,
        'interactions',
        INTERACTION_COLUMNS,
        (function* () {
          for (let i = 0; i < chunk; i++) {
            const next = gen.next();
            if (next.done) return;
            yield next.value;
          }
        })(),
      );
    })();
    done += chunk;
  }
  const setLast = db.prepare('update clients set last_interaction_at = ? where id = ?');
  db.transaction(() => lastAt.forEach((at, c) => at && setLast.run(at, `cli_b${c}`)))();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const insertMs = performance.now() - t0;
  log(`inserted in ${(insertMs / 1000).toFixed(1)} s; health rebuild …`);

  const engine = await createEngine({ database: path, clock: fixedClock(API_NOW) });
  const t1 = performance.now();
  const health = await recomputeHealth(engine.store.db, { workspaceId: API_WORKSPACE, now: new Date(API_NOW) });
  const healthMs = performance.now() - t1;
  await engine.close();
  log(`health rebuilt in ${(healthMs / 1000).toFixed(1)} s (${health.snapshotsWritten} snapshots)`);
  const step = Math.max(1, Math.floor(clients / 50));
  const dataset: Omit<ApiDataset, 'built' | 'path'> = {
    clients,
    interactions,
    snapshots: health.snapshotsWritten,
    sampleClientIds: Array.from({ length: Math.min(50, clients) }, (_, i) => `cli_b${i * step}`),
    insertMs: Math.round(insertMs),
    healthMs: Math.round(healthMs),
  };
  writeFileSync(markerPath, `${JSON.stringify(dataset, null, 2)}\n`);
  return { ...dataset, path, built: true };
}
