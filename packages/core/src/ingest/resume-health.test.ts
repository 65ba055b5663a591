/**
 * A run is complete only when its health rebuild is (issue 30). A rebuild that stops half-way (it
 * fails: a full disk, a lost database) leaves the run `failed` and the clients it had not written
 * stale; the same ingest run again reads nothing new, rebuilds exactly those clients, and the
 * history then equals a clean run's. So does a run that stopped mid-read (what it stored is
 * rebuilt by the run that resumes it), and one that adds mail to clients scored before (each is
 * rebuilt from its own first touched day). Both dialects, through the engine as an embedder calls it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToPath } from '@chs/fixtures';
import { dropTestSchemas, testDialects, type TestDialect } from '../store/testing.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { mboxSource } from '../source/index.js';
import { healthAsRead, type HealthAsRead } from '../test-support/health-history.js';

const NOW = new Date('2025-06-30T12:00:00Z');
const WS = 'ourco.com';
let dir: string;
let mbox: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chs-resume-health-'));
  mbox = join(dir, 'year.mbox');
  // A year of mail with some 40 clients: a rebuild of several batches (~5,000 snapshots each).
  await generateToPath({ format: 'mbox', out: mbox, count: 700, clientCount: 40, seed: 30, attachmentRate: 0, endDate: '2025-06-29T18:00:00Z' });
});
afterAll(async () => {
  await dropTestSchemas();
  rmSync(dir, { recursive: true, force: true });
});

/** An engine on a fresh store; `rebuild(n)` is called before each batch of its health rebuild. */
async function open(dialect: TestDialect, rebuild?: { at?: (n: number) => void }): Promise<Engine> {
  const engine = await createEngine({
    database: await dialect.open(),
    clock: () => NOW,
    faults: (point, n) => {
      if (point === 'rebuild') rebuild?.at?.(n);
    },
  });
  await createWorkspace(engine.store.db, { domain: WS, name: 'Our Co', ownerEmail: 'lead@ourco.com' });
  return engine;
}

const ingest = (engine: Engine, extra: Partial<Parameters<Engine['ingest']>[0]> = {}) =>
  engine.ingest({ workspaceId: WS, source: mboxSource(mbox), workers: 0, ...extra });

async function runs(engine: Engine): Promise<string[]> {
  return (await engine.store.db.selectFrom('ingestion_runs').select('status').orderBy('started_at').execute()).map((r) => r.status);
}

async function snapshots(engine: Engine): Promise<number> {
  const r = await engine.store.db
    .selectFrom('health_snapshots')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe.each(await testDialects())('a run whose health rebuild did not finish, on $name', (dialect) => {
  let clean: { health: HealthAsRead; snapshots: number };
  beforeAll(async () => {
    const engine = await open(dialect);
    try {
      const r = await ingest(engine);
      expect(r.health.snapshotsWritten).toBeGreaterThan(10_000);
      clean = { health: await healthAsRead(engine.store.db, WS, NOW), snapshots: await snapshots(engine) };
      expect(clean.health).toMatchObject({ unscored: 0, stale: 0 });
      expect(clean.health.scored).toBeGreaterThan(20);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('a rebuild that fails half-way: the run is failed, and the same ingest again rebuilds exactly the clients not written, as a clean run would', async () => {
    const rebuild = {
      at: (n: number): void => {
        if (n === 2) throw new Error('the machine went down (test)');
      },
    };
    const engine = await open(dialect, rebuild);
    try {
      await expect(ingest(engine)).rejects.toThrow(/^the mail was stored, but the health rebuild did not finish .*: the machine went down \(test\)$/);
      expect(await runs(engine)).toEqual(['failed']);
      const half = await healthAsRead(engine.store.db, WS, NOW);
      // The first batch was written; the clients of the others have no score and are marked.
      expect(half.scored).toBeGreaterThan(0);
      expect(half.unscored).toBeGreaterThan(0);
      expect(half.stale).toBe(half.unscored);
      const written = await snapshots(engine);

      rebuild.at = () => undefined;
      const again = await ingest(engine);
      expect(again).toMatchObject({ status: 'completed', itemsProcessed: 0 });
      expect(again.resumedFrom).not.toBeNull();
      // Exactly the clients and days the first rebuild had not written.
      expect(again.health.clientsScored).toBe(half.stale);
      expect(written + again.health.snapshotsWritten).toBe(clean.snapshots);
      expect(await runs(engine)).toEqual(['failed', 'completed']);
      expect(await healthAsRead(engine.store.db, WS, NOW)).toEqual(clean.health);

      // Once a run has finished, nothing is left to redo: the next reads the mailbox whole and adds nothing.
      const third = await ingest(engine);
      expect(third.resumedFrom).toBeNull();
      expect(third).toMatchObject({ itemsAdded: 0, health: { clientsScored: 0 } });
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('mail added in a second run: each client it touched is rebuilt from its own first touched day, as a clean run of all of it would', async () => {
    const engine = await open(dialect);
    try {
      const first = await ingest(engine, { maxItems: 350 });
      expect(first.itemsProcessed).toBe(350);
      const second = await ingest(engine);
      expect(second.itemsAdded).toBeGreaterThan(0);
      // Fewer days than a whole rebuild of the clients it touched.
      expect(second.health.snapshotsWritten).toBeLessThan(clean.snapshots);
      // The same history and scores; what was announced follows the runs (two runs, two announcements).
      const unannounced = (h: HealthAsRead) =>
        Object.fromEntries(Object.entries(h.clients).map(([domain, c]) => [domain, { ...(c as object), announcedScore: undefined }]));
      expect(unannounced(await healthAsRead(engine.store.db, WS, NOW))).toEqual(unannounced(clean.health));
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('a run that stops mid-read: what it stored stays stale, and the run that resumes it rebuilds it with its own', async () => {
    const engine = await open(dialect);
    try {
      await expect(
        ingest(engine, {
          batchSize: 100,
          checkpoint: async (_trx, counts) => {
            if (counts.processed > 200) throw new Error('killed (test)');
          },
        }),
      ).rejects.toThrow('killed (test)');
      expect(await runs(engine)).toEqual(['failed']);
      const stopped = await healthAsRead(engine.store.db, WS, NOW);
      expect(stopped.scored).toBe(0);
      expect(stopped.stale).toBeGreaterThan(0);

      const resumed = await ingest(engine);
      expect(resumed.resumedFrom).not.toBeNull();
      expect(resumed.itemsProcessed).toBe(500);
      expect(await runs(engine)).toEqual(['failed', 'completed']);
      expect(await healthAsRead(engine.store.db, WS, NOW)).toEqual(clean.health);
    } finally {
      await engine.close();
    }
  }, 120_000);
});
