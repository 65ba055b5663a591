/**
 * A large rebuild reads and scores in a thread of its own while the rebuild's thread writes
 * (score-thread.ts), on SQLite and on PostgreSQL. A CS lead must not be able to tell: the history
 * is the one a rebuild in one thread writes, day by day, and a rebuild that stops half-way leaves
 * the rest to the next run as before. The thread reads the store through a connection of its own
 * (the SQLite file, the PostgreSQL database and schema).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToPath } from '@chs/fixtures';
import { createEngine, type Engine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { mboxSource } from '../source/index.js';
import { openStore, type Store } from '../store/database.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { isChsError } from '../errors.js';
import { healthAsRead } from '../test-support/health-history.js';
import { recomputeHealth } from './recompute.js';
import { ScoreThread, scoreThreadsStarted } from './score-thread.js';
import type { BatchContext } from './score-batch.js';
import { normaliseWeights } from './model.js';
import { DEFAULT_HEALTH_WEIGHTS } from '../settings/settings.js';
import { readSnapshots } from './test-fixtures.js';

const NOW = new Date('2025-06-30T12:00:00Z');
const DEFAULT_OPTIONS = { weights: normaliseWeights(DEFAULT_HEALTH_WEIGHTS), replySlaBusinessDays: 2 };
const WS = 'ourco.com';
let dir: string;
let mbox: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chs-score-thread-'));
  mbox = join(dir, 'year.mbox');
  // A year of mail with some 40 clients: a rebuild of several batches (~5,000 snapshots each).
  await generateToPath({ format: 'mbox', out: mbox, count: 700, clientCount: 40, seed: 31, attachmentRate: 0, endDate: '2025-06-29T18:00:00Z' });
}, 120_000);

afterAll(async () => {
  await dropTestSchemas();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(await testDialects())('a rebuild scored in a thread of its own, on $name', (dialect) => {
  let engine: Engine;
  let store: Store;

  beforeAll(async () => {
    // A store with a location another thread can open: a SQLite file (not :memory:), or a PostgreSQL schema.
    const opened = dialect.name === 'sqlite' ? await openStore({ url: join(dir, 'chs.db') }) : await dialect.open();
    engine = await createEngine({ database: opened, clock: () => NOW });
    store = engine.store;
    await createWorkspace(store.db, { domain: WS, name: 'Our Co', ownerEmail: 'lead@ourco.com' });
    await engine.ingest({ workspaceId: WS, source: mboxSource(mbox), workers: 0 });
  }, 120_000);

  afterAll(async () => {
    await engine?.close();
  });

  /** Every stored day, as the readers get it back (ids, scores, components, reason, evidence). */
  const allDays = async () => JSON.stringify(await readSnapshots(store.db));

  it('writes the very history a rebuild in one thread writes', async () => {
    const before = scoreThreadsStarted();
    const inline = await recomputeHealth(store.db, { workspaceId: WS, now: NOW, scoreThread: false });
    expect(scoreThreadsStarted()).toBe(before);
    expect(inline.snapshotsWritten).toBeGreaterThan(10_000);
    const expected = { health: await healthAsRead(store.db, WS, NOW), days: await allDays() };
    expect(expected.health).toMatchObject({ unscored: 0, stale: 0 });

    const threaded = await recomputeHealth(store.db, { workspaceId: WS, now: NOW, scoreThread: true });
    expect(scoreThreadsStarted()).toBe(before + 1);
    expect(threaded).toEqual(inline);
    expect(await healthAsRead(store.db, WS, NOW)).toEqual(expected.health);
    expect(await allDays()).toBe(expected.days);
  }, 120_000);

  it('stopped half-way, has written the batches before the stop, and the next run rebuilds the rest as a clean run would', async () => {
    await recomputeHealth(store.db, { workspaceId: WS, now: NOW, scoreThread: false });
    const clean = await healthAsRead(store.db, WS, NOW);
    await store.db.deleteFrom('health_snapshots').execute();
    // As after an ingest whose rebuild has not run yet: every client unscored and marked out of date.
    await store.db
      .updateTable('clients')
      .set({ health_score: null, health_updated_at: null, health_stale_from: '2000-01-01', health_stale_at: NOW.toISOString() })
      .execute();

    const stop = new Error('the machine went down (test)');
    await expect(
      recomputeHealth(store.db, {
        workspaceId: WS,
        now: NOW,
        scoreThread: true,
        onBatch: (n) => {
          if (n === 3) throw stop;
        },
      }),
    ).rejects.toBe(stop);
    const half = await healthAsRead(store.db, WS, NOW);
    expect(half.scored).toBeGreaterThan(0);
    expect(half.unscored).toBeGreaterThan(0);
    expect(half.stale).toBe(half.unscored);

    const rest = await recomputeHealth(store.db, { workspaceId: WS, now: NOW, scoreThread: true, fromDays: new Map(), includeStale: true });
    expect(rest.clientsScored).toBe(half.unscored);
    expect(await healthAsRead(store.db, WS, NOW)).toEqual(clean);
  }, 120_000);
});

describe('a scoring thread that cannot open its store', () => {
  it('reports a SQLite file it cannot read as the typed error it is, and nothing is scored', async () => {
    const thread = new ScoreThread({ sqlite: { file: join(dir, 'missing', 'chs.db'), busyTimeoutMs: 100 } });
    try {
      const err: unknown = await thread.score(WS, [oneClient], CTX).catch((e: unknown) => e);
      expect(isChsError(err, 'DATABASE_UNREACHABLE')).toBe(true);
      expect((err as Error).message).toMatch(/cannot open SQLite database at .*missing/);
    } finally {
      await thread.close();
    }
    await expect(thread.score(WS, [], {} as BatchContext)).rejects.toThrow(/the health scoring thread was closed/);
  });

  it('reports a PostgreSQL database that does not answer as the typed error it is, without its password, and closes', async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const thread = new ScoreThread({ postgres: { url: 'postgres://postgres:s3cret@127.0.0.1:1/none' } });
    try {
      const err: unknown = await thread.score(WS, [oneClient], CTX).catch((e: unknown) => e);
      expect(isChsError(err, 'DATABASE_UNREACHABLE')).toBe(true);
      expect((err as Error).message).toMatch(/cannot connect to PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none/);
      expect((err as Error).message).not.toContain('s3cret');
    } finally {
      await thread.close();
    }
    await expect(thread.score(WS, [], {} as BatchContext)).rejects.toThrow(/the health scoring thread was closed/);
  });
});

const CTX: BatchContext = { today: '2025-06-30', now: NOW, retentionStart: '2024-06-30', fromDay: undefined, options: DEFAULT_OPTIONS, timeZone: 'UTC' };
const oneClient = { id: 'cl_1', health_updated_at: null, health_stale_from: null, health_stale_seq: null, first_at: null, last_at: null };
