/**
 * `chs ingest` and a health rebuild that does not finish (issue 30), as its user judges it: the
 * mail is stored, then the rebuild stops — the disk fills up (SQLite: `max_page_count` reached once
 * the rebuild's first batch is written), or the process is SIGKILLed (CHS_TEST_FAULT, the built
 * binary) — and the run is not `completed`. The same command again, after space is freed or the
 * process restarted, reads nothing new and leaves every client scored, with the history a clean
 * run of the same mailbox gives. The kill runs on both dialects; a full disk is SQLite's (run the
 * built binary: `npx tsc -b && npm run bundle -w runner` first; `npm test` does).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, fixedClock, openStore, type Engine } from '@chs/core';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '@chs/core/testing';
import { generateToPath } from '@chs/fixtures';
import { healthAsRead, type HealthAsRead } from '../../../../packages/core/src/test-support/health-history.js';
import { loadConfig } from '../../config.js';
import type { CliContext } from '../context.js';
import { main } from '../main.js';
import { chs, type Env } from '../../jobs/testing.js';

const NOW = '2025-06-30T12:00:00Z';
const WS = 'ourco.com';
let dir: string;
let mbox: string;
const databases: TestDatabase[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chs-ingest-rebuild-'));
  mbox = join(dir, 'year.mbox');
  // A year of mail with some 40 clients: a rebuild of three batches.
  await generateToPath({ format: 'mbox', out: mbox, count: 700, clientCount: 40, seed: 30, attachmentRate: 0, endDate: '2025-06-29T18:00:00Z' });
});
afterAll(async () => {
  for (const d of databases.splice(0)) await d.drop();
  rmSync(dir, { recursive: true, force: true });
});

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

/** A fresh database with the workspace, by URL (a SQLite file or a PostgreSQL database). */
async function newDatabase(dialect: 'sqlite' | 'postgres'): Promise<string> {
  const d = await createTestDatabase(dialect);
  databases.push(d);
  const engine = await createEngine({ database: d.url });
  await createWorkspace(engine.store.db, { domain: WS, name: 'Our Co', ownerEmail: `lead@${WS}` });
  await engine.close();
  return d.url;
}

/** What a reader sees of the workspace's health, and how its runs ended. */
async function read(url: string): Promise<{ health: HealthAsRead; runs: string[] }> {
  const store = await openStore({ url });
  try {
    const runs = (await store.db.selectFrom('ingestion_runs').select('status').orderBy('started_at').execute()).map((r) => r.status);
    return { health: await healthAsRead(store.db, WS, new Date(NOW)), runs };
  } finally {
    await store.close();
  }
}

const ingestArgs = (url: string) => ['--db', url, 'ingest', '--workspace', WS, '--mbox', mbox, '--json', '--workers', '0'];

/** `chs` (the built binary) with this process's environment minus the settings a developer may have set. */
const run = (env: Env, ...args: string[]) =>
  chs({ ...(process.env as Env), CHS_DATABASE_URL: '', CHS_DATA_DIR: dir, CHS_SECRET_KEY: '', CHS_TEST_FAULT: '', CHS_NOW: NOW, ...env }, ...args);

const cleanRuns = new Map<string, Promise<HealthAsRead>>();
/** The health a clean `chs ingest` of the mailbox leaves (once per dialect). */
function clean(dialect: 'sqlite' | 'postgres'): Promise<HealthAsRead> {
  let p = cleanRuns.get(dialect);
  if (!p) {
    p = (async () => {
      const url = await newDatabase(dialect);
      const r = await run({}, ...ingestArgs(url));
      expect(r.code, r.stderr).toBe(0);
      const { health, runs } = await read(url);
      expect(runs).toEqual(['completed']);
      expect(health).toMatchObject({ unscored: 0, stale: 0 });
      return health;
    })();
    cleanRuns.set(dialect, p);
  }
  return p;
}

describe('chs ingest when the disk fills up during the health rebuild (SQLite only)', () => {
  it('exits 1 saying the rebuild did not finish, the run is failed; the same command after space is freed scores every client as a clean run does', async () => {
    const url = await newDatabase('sqlite');
    /** `chs` in this process; `full`: the disk is full once the rebuild's first batch is written. */
    const context = (full: boolean) => {
      const stdout = new Capture();
      const stderr = new Capture();
      const ctx: CliContext = {
        env: {},
        stdout,
        stderr,
        stdin: process.stdin,
        config: (flags) => loadConfig({ CHS_NOW: NOW }, flags),
        openEngine: async (config): Promise<Engine> => {
          const store = await openStore({ url: config.databaseUrl });
          return createEngine({
            database: store,
            clock: fixedClock(config.now!),
            // Before the rebuild's second batch: the file may not grow past its size from now on (a
            // limit below the size sets it to the size).
            faults: (point, n) => {
              if (full && point === 'rebuild' && n === 2) void sql`pragma max_page_count = 1`.execute(store.db);
            },
          });
        },
      };
      return { ctx, stdout, stderr };
    };

    const first = context(true);
    expect(await main(['node', 'chs', ...ingestArgs(url)], first.ctx)).toBe(1);
    expect(first.stdout.text).toBe('');
    expect(first.stderr.text).toMatch(
      /^chs: the mail was stored, but the health rebuild did not finish \(the next ingest or sync, or chs serve, redoes it for the clients it had not written\): the disk holding the SQLite database .*chs\.db is full \(SQLITE_FULL\).*free some space and run again.* \[STORAGE_FULL\]\n$/,
    );
    const stopped = await read(url);
    expect(stopped.runs).toEqual(['failed']);
    expect(stopped.health.scored).toBeGreaterThan(0);
    expect(stopped.health.unscored).toBeGreaterThan(0);
    expect(stopped.health.stale).toBe(stopped.health.unscored);

    // Space freed (a new process: no size limit): the same command.
    const again = context(false);
    expect(await main(['node', 'chs', ...ingestArgs(url)], again.ctx), again.stderr.text).toBe(0);
    const summary = JSON.parse(again.stdout.text) as { status: string; itemsProcessed: number; health: { clientsScored: number } };
    expect(summary).toMatchObject({ status: 'completed', itemsProcessed: 0, health: { clientsScored: stopped.health.stale } });
    const done = await read(url);
    expect(done.runs).toEqual(['failed', 'completed']);
    expect(done.health).toEqual(await clean('sqlite'));
  }, 120_000);
});

const dialects: Array<'sqlite' | 'postgres'> = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(dialects)('chs ingest SIGKILLed during the health rebuild (%s)', (dialect) => {
  it('the run is not completed; the same command again scores every client as a clean run does', async () => {
    const url = await newDatabase(dialect);
    const killed = await run({ CHS_TEST_FAULT: 'rebuild:2' }, ...ingestArgs(url));
    expect(killed.code).toBe(-1); // no exit code: killed
    expect(killed.stdout).toBe('');
    expect(killed.stderr).toContain('chs: test fault at rebuild #2: SIGKILL');
    const stopped = await read(url);
    expect(stopped.runs).toEqual(['running']);
    // Killed before the second batch of the rebuild (the first may or may not have committed).
    expect(stopped.health.unscored).toBeGreaterThan(0);
    expect(stopped.health.stale).toBe(stopped.health.unscored);

    const again = await run({}, ...ingestArgs(url));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'completed', itemsProcessed: 0, health: { clientsScored: stopped.health.stale } });
    const done = await read(url);
    // The killed run stays as it was left: never completed.
    expect(done.runs).toEqual(['running', 'completed']);
    expect(done.health).toEqual(await clean(dialect));
  }, 120_000);
});
