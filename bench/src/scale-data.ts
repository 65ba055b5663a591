/**
 * The scale projection's workspace: N clients (default 10,000) and M interactions over the year
 * before SCALE_NOW, inserted straight into the database through the product's own store (its
 * schema, its migrations; parsing mail would take far longer and is measured elsewhere), never
 * scored: the scenario times the rebuild. The same data on SQLite and PostgreSQL (one seeded
 * stream), built once and reused while its marker exists: on SQLite a file in bench/tmp/ copied
 * for each run, on PostgreSQL a database each run's database is created from (`TEMPLATE`), with
 * its marker as the database's comment, written last.
 *
 * Like the api scenario's workspace (api-data.ts): activity skewed towards big accounts (client c
 * of N gets a share ∝ (c/N)^-0.375, so even the quietest writes every week or so), threads of one
 * to five messages, 85 % e-mail; here also the signals of the client's own mail (40 % ask for an
 * answer, 2 % chase, 0.5 % say they may leave), as health-metrics.ts draws them.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { DAY_MS, createEngine, createWorkspace, type Db } from '@chs/core';
import { rng } from './api-data.js';
import { pgAdmin } from './command.js';
import { REPO_DIR } from './paths.js';

export const SCALE_WORKSPACE = 'scale.test';
/** The data's "now": the last interaction is just before it. The daily run is a day later. */
export const SCALE_NOW = '2025-06-30T12:00:00.000Z';
const DAYS = 365;
/** Part of the cache key: bump it when the generated data changes. */
const DATA_VERSION = 1;
/** Rows per INSERT (20 columns: 20,000 parameters, under both dialects' limits) and per transaction. */
const ROWS_PER_INSERT = 1000;
const ROWS_PER_TRANSACTION = 100_000;

export interface ScaleDataset {
  dialect: 'sqlite' | 'postgres';
  /** SQLite: the file to copy. PostgreSQL: the database to use as a template. */
  source: string;
  clients: number;
  interactions: number;
  /** Time it took to build (when it was built, by this run or an earlier one). */
  insertMs: number;
  builtAt: string;
  /** True when this call built it. */
  built: boolean;
}

interface Marker {
  version: number;
  /** schemaFingerprint() when it was built: other migrations make other data. */
  schema: string;
  clients: number;
  interactions: number;
  insertMs: number;
  builtAt: string;
}

const baseName = (clients: number, interactions: number, tag: string | undefined): string =>
  `scale-v${DATA_VERSION}-${clients}c-${interactions}i${tag === undefined ? '' : `-${tag}`}`;

/**
 * The dataset on `dialect`, building it first when absent. `pgUrl`: the server's admin URL;
 * `tag`: a name of its own (a test's, dropped after with dropScaleDataset).
 */
export async function ensureScaleDataset(
  dialect: 'sqlite' | 'postgres',
  clients: number,
  interactions: number,
  o: { dir: string; pgUrl: string; log: (s: string) => void; tag?: string },
): Promise<ScaleDataset> {
  const wanted = { version: DATA_VERSION, schema: schemaFingerprint(), clients, interactions };
  const reusable = (m: Marker): boolean => m.version === wanted.version && m.schema === wanted.schema;
  if (dialect === 'sqlite') {
    const file = join(o.dir, `${baseName(clients, interactions, o.tag)}.db`);
    const markerPath = `${file}.done.json`;
    if (existsSync(markerPath) && existsSync(file)) {
      const m = JSON.parse(readFileSync(markerPath, 'utf8')) as Marker;
      if (reusable(m)) return { dialect, source: file, clients, interactions, insertMs: m.insertMs, builtAt: m.builtAt, built: false };
    }
    for (const s of ['', '-wal', '-shm', '.done.json']) rmSync(`${file}${s}`, { force: true });
    const insertMs = await build('sqlite', file, clients, interactions, o.log);
    const marker: Marker = { ...wanted, insertMs, builtAt: new Date().toISOString() };
    writeFileSync(markerPath, `${JSON.stringify(marker, null, 2)}\n`);
    return { dialect, source: file, clients, interactions, insertMs, builtAt: marker.builtAt, built: true };
  }
  const name = `chs_bench_${baseName(clients, interactions, o.tag).replace(/-/g, '_')}`;
  const found = await pgMarker(o.pgUrl, name);
  if (found && reusable(found)) return { dialect, source: name, clients, interactions, insertMs: found.insertMs, builtAt: found.builtAt, built: false };
  await pgAdmin(o.pgUrl, `drop database if exists ${name} with (force)`);
  await pgAdmin(o.pgUrl, `create database ${name}`);
  const u = new URL(o.pgUrl);
  u.pathname = `/${name}`;
  const insertMs = await build('postgres', u.toString(), clients, interactions, o.log);
  // Statistics as autovacuum would have them on a workspace a year old; then the database only
  // serves as a template (no connection may be open to it while it is copied).
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  await c.query('vacuum analyze').finally(() => c.end());
  const marker: Marker = { ...wanted, insertMs, builtAt: new Date().toISOString() };
  await pgAdmin(o.pgUrl, `alter database ${name} with allow_connections false`);
  await pgAdmin(o.pgUrl, `comment on database ${name} is '${JSON.stringify(marker)}'`);
  return { dialect, source: name, clients, interactions, insertMs, builtAt: marker.builtAt, built: true };
}

/** Removes a dataset (its file and marker, or its database). */
export async function dropScaleDataset(ds: ScaleDataset, pgUrl: string): Promise<void> {
  if (ds.dialect === 'sqlite') for (const s of ['', '-wal', '-shm', '.done.json']) rmSync(`${ds.source}${s}`, { force: true });
  else await pgAdmin(pgUrl, `drop database if exists ${ds.source} with (force)`);
}

/**
 * The product's migrations as built (their compiled files): the data is rebuilt when they change,
 * since a copy of data made under other migrations may not be what the code would make.
 */
function schemaFingerprint(): string {
  const dir = join(REPO_DIR, 'packages', 'core', 'dist', 'store', 'migrations');
  const h = createHash('sha256');
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.js'))
    .sort()) {
    h.update(f);
    h.update(readFileSync(join(dir, f)));
  }
  return h.digest('hex').slice(0, 12);
}

async function pgMarker(pgUrl: string, name: string): Promise<Marker | null> {
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  try {
    const r = await c.query<{ comment: string | null }>("select shobj_description(oid, 'pg_database') as comment from pg_database where datname = $1", [name]);
    const comment = r.rows[0]?.comment;
    return comment ? (JSON.parse(comment) as Marker) : null;
  } finally {
    await c.end();
  }
}

type Row = Record<string, string | number | null>;
type Tables = 'clients' | 'client_domains' | 'contacts' | 'contact_emails' | 'interactions';
/** Inserts rows into a table, ROWS_PER_TRANSACTION to a transaction; `progress` after each but the last. */
type Sink = (table: Tables, rows: Iterable<Row>, progress?: (n: number) => void) => Promise<void>;

/** Creates the workspace (the product's schema), inserts the rows; returns the time the inserts took. */
async function build(dialect: 'sqlite' | 'postgres', database: string, clients: number, interactions: number, log: (s: string) => void): Promise<number> {
  log(
    `building the scale workspace: ${clients.toLocaleString('en-US')} clients, ${interactions.toLocaleString('en-US')} interactions → ${database.replace(/\/\/[^@/]*@/, '//')} …`,
  );
  const engine = await createEngine({ database });
  try {
    await createWorkspace(engine.store.db, { domain: SCALE_WORKSPACE, name: 'Scale', ownerEmail: `owner@${SCALE_WORKSPACE}` });
  } finally {
    await engine.close();
  }
  const t0 = performance.now();
  if (dialect === 'sqlite') {
    // Straight into the file with a large page cache: through the product's connection (2 MB of
    // cache) the inserts slow down several times over once the indexes outgrow it.
    const native = new SqliteDatabase(database);
    try {
      native.pragma('journal_mode = WAL');
      native.pragma('synchronous = OFF');
      native.pragma('cache_size = -262144');
      await insertRows(sqliteSink(native), clients, interactions, log);
      native
        .prepare(
          `update clients set last_interaction_at = (select max(i.occurred_at) from interactions i where i.client_id = clients.id) where workspace_id = ?`,
        )
        .run(SCALE_WORKSPACE);
      native.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      native.close();
    }
  } else {
    const pgEngine = await createEngine({ database });
    try {
      const db = pgEngine.store.db;
      await insertRows(kyselySink(db), clients, interactions, log);
      await db
        .updateTable('clients')
        .set((eb) => ({
          last_interaction_at: eb
            .selectFrom('interactions as i')
            .select((e) => e.fn.max('i.occurred_at').as('m'))
            .whereRef('i.client_id', '=', 'clients.id'),
        }))
        .where('workspace_id', '=', SCALE_WORKSPACE)
        .execute();
    } finally {
      await pgEngine.close();
    }
  }
  const insertMs = Math.round(performance.now() - t0);
  log(`inserted in ${(insertMs / 1000).toFixed(1)} s`);
  return insertMs;
}

async function insertRows(sink: Sink, clients: number, interactions: number, log: (s: string) => void): Promise<void> {
  const rand = rng(11);
  const created = '2024-06-01T00:00:00.000Z';
  await sink(
    'clients',
    (function* () {
      for (let c = 0; c < clients; c++) {
        yield {
          id: `cli_s${c}`,
          workspace_id: SCALE_WORKSPACE,
          name: `Client ${c}`,
          name_source: 'domain',
          primary_domain: `client${c}.example`,
          mrr: Math.round(rand() * 5000),
          renewal_date: new Date(Date.parse(SCALE_NOW) + Math.floor(rand() * 365) * DAY_MS).toISOString().slice(0, 10),
          is_excluded: rand() < 0.01 ? 1 : 0,
          status: 'active',
          created_at: created,
          updated_at: created,
        };
      }
    })(),
  );
  await sink(
    'client_domains',
    (function* () {
      for (let c = 0; c < clients; c++) yield { workspace_id: SCALE_WORKSPACE, domain: `client${c}.example`, client_id: `cli_s${c}` };
    })(),
  );
  await sink(
    'contacts',
    (function* () {
      for (let c = 0; c < clients; c++)
        for (let k = 0; k < 3; k++)
          yield {
            id: `con_s${c}_${k}`,
            workspace_id: SCALE_WORKSPACE,
            client_id: `cli_s${c}`,
            name: `Person ${k} of ${c}`,
            title: '',
            last_seen_at: SCALE_NOW,
            created_at: created,
            updated_at: created,
          };
    })(),
  );
  await sink(
    'contact_emails',
    (function* () {
      for (let c = 0; c < clients; c++)
        for (let k = 0; k < 3; k++) yield { workspace_id: SCALE_WORKSPACE, email: `p${k}@client${c}.example`, contact_id: `con_s${c}_${k}` };
    })(),
  );
  await sink('interactions', interactionRows(clients, interactions, rand), (n) => log(`  ${n.toLocaleString('en-US')} interactions …`));
}

/** Batches of ROWS_PER_INSERT rows, ROWS_PER_TRANSACTION rows to a batch group, to `write`. */
async function inGroups(rows: Iterable<Row>, write: (group: Row[][]) => Promise<void>, progress?: (n: number) => void): Promise<void> {
  const it = rows[Symbol.iterator]();
  let total = 0;
  for (;;) {
    const group: Row[][] = [];
    let inGroup = 0;
    let done = false;
    while (!done && inGroup < ROWS_PER_TRANSACTION) {
      const batch: Row[] = [];
      while (batch.length < ROWS_PER_INSERT) {
        const next = it.next();
        if (next.done) {
          done = true;
          break;
        }
        batch.push(next.value);
      }
      if (batch.length > 0) group.push(batch);
      inGroup += batch.length;
    }
    if (group.length > 0) await write(group);
    total += inGroup;
    if (done) return;
    progress?.(total);
  }
}

/** PostgreSQL: through the product's store, one transaction per group. */
function kyselySink(db: Db): Sink {
  return (table, rows, progress) =>
    inGroups(
      rows,
      (group) =>
        db.transaction().execute(async (trx) => {
          // The rows follow the tables' columns (the generators above); Kysely's row types are not spelled out here.
          for (const batch of group)
            await trx
              .insertInto(table)
              .values(batch as never)
              .execute();
        }),
      progress,
    );
}

/** SQLite: one prepared multi-row INSERT per batch size, one transaction per group. */
function sqliteSink(native: SqliteDatabase.Database): Sink {
  return (table, rows, progress) => {
    const statements = new Map<number, SqliteDatabase.Statement>();
    let columns: string[] | undefined;
    const statement = (n: number): SqliteDatabase.Statement => {
      let st = statements.get(n);
      if (!st) {
        const one = `(${columns!.map(() => '?').join(',')})`;
        st = native.prepare(`insert into ${table} (${columns!.join(',')}) values ${Array.from({ length: n }, () => one).join(',')}`);
        statements.set(n, st);
      }
      return st;
    };
    const write = native.transaction((group: Row[][]) => {
      for (const batch of group) {
        columns ??= Object.keys(batch[0]!);
        statement(batch.length).run(batch.flatMap((r) => columns!.map((c) => r[c] ?? null)));
      }
    });
    return inGroups(rows, async (group) => write(group), progress);
  };
}

function* interactionRows(clients: number, total: number, rand: () => number): Generator<Row> {
  const end = Date.parse(SCALE_NOW) - 3_600_000;
  const span = DAYS * DAY_MS;
  let n = 0;
  let thread = 0;
  while (n < total) {
    // Skewed: a few big accounts, a long tail of quieter ones (like a real book of business).
    const c = Math.floor(rand() ** 1.6 * clients);
    let t = end - Math.floor(rand() * span);
    const len = 1 + Math.floor(rand() * 5);
    thread += 1;
    for (let k = 0; k < len && n < total; k++, n++) {
      const s = Math.round((rand() * 2 - 1) * 100) / 100;
      const r = rand();
      const type = r < 0.85 ? 'email' : r < 0.92 ? 'meeting' : r < 0.97 ? 'support_ticket' : 'call';
      const at = new Date(Math.min(t, end)).toISOString();
      const inbound = k % 2 === 0;
      const sr = rand();
      const signals = inbound ? (sr < 0.4 ? 4 : 0) | (sr < 0.02 ? 2 : 0) | (sr < 0.005 ? 1 : 0) : 0;
      yield {
        id: `int_s${n}`,
        workspace_id: SCALE_WORKSPACE,
        client_id: `cli_s${c}`,
        type,
        source: 'mbox',
        dedupe_key: `m${n}@client${c}.example`,
        thread_id: type === 'email' ? `t${thread}` : null,
        subject: `Re: project update ${thread}`,
        summary: 'Thanks for the update, the rollout looks good so far.',
        sentiment_label: s > 0.05 ? 'positive' : s < -0.05 ? 'negative' : 'neutral',
        sentiment_score: s,
        occurred_at: at,
        from_email: inbound ? `p${c % 3}@client${c}.example` : `csm@${SCALE_WORKSPACE}`,
        to_emails: inbound ? `csm@${SCALE_WORKSPACE}` : `p${c % 3}@client${c}.example`,
        direction: inbound ? 'inbound' : 'outbound',
        opened: type === 'email' && !inbound && rand() < 0.5 ? (rand() < 0.6 ? 1 : 0) : null,
        signals,
        addressed: 1,
        role: type === 'email' ? (inbound ? 'direct' : 'wrote_to') : null,
        topic: type === 'email' ? 'work' : null,
        content_hash: `h${n}`,
        created_at: at,
        updated_at: at,
      };
      t += Math.floor((1 + rand() * 47) * 3_600_000);
    }
  }
}
