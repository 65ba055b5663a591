/**
 * The runner redoes a health rebuild that did not finish (issue 30): an ingest whose rebuild failed
 * left clients stale; once nobody has written to the workspace for `staleQuietMs` and no job of it
 * is running, the scheduler's tick rebuilds exactly those clients, and the workspace then reads as
 * if the rebuild had never failed. Both dialects.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, enqueueJob, mboxSource, transitionJob, type Engine } from '@chs/core';
import { dropTestSchemas, testDialects, type TestDialect } from '@chs/core/testing';
import { generateToPath } from '@chs/fixtures';
import { healthAsRead } from '../../../packages/core/src/test-support/health-history.js';
import { Scheduler } from './scheduler.js';

const NOW = new Date('2025-06-30T12:00:00Z');
const WS = 'ourco.com';
const MIN = 60_000;
let dir: string;
let mbox: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chs-scheduler-stale-'));
  mbox = join(dir, 'year.mbox');
  await generateToPath({ format: 'mbox', out: mbox, count: 700, clientCount: 40, seed: 30, attachmentRate: 0, endDate: '2025-06-29T18:00:00Z' });
});
afterAll(async () => {
  await dropTestSchemas();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(await testDialects())('the scheduler and a rebuild that did not finish ($name)', (dialect: TestDialect) => {
  /** An engine on a fresh store whose health rebuild fails while `failing.on` is true. */
  async function open(failing: { on: boolean }): Promise<Engine> {
    const engine = await createEngine({
      database: await dialect.open(),
      clock: () => NOW,
      faults: (point, n) => {
        if (failing.on && point === 'rebuild' && n === 2) throw new Error('the disk is full (test)');
      },
    });
    await createWorkspace(engine.store.db, { domain: WS, name: 'Our Co', ownerEmail: 'lead@ourco.com' });
    return engine;
  }
  /** Half the mailbox, then all of it (the second run adds the rest). */
  const firstHalf = (engine: Engine) => engine.ingest({ workspaceId: WS, source: mboxSource(mbox), workers: 0, maxItems: 350 });
  const whole = (engine: Engine) => engine.ingest({ workspaceId: WS, source: mboxSource(mbox), workers: 0 });

  it('rebuilds exactly the stale clients of a workspace nobody writes to, once no job of it runs', async () => {
    const cleanEngine = await open({ on: false });
    await firstHalf(cleanEngine);
    await whole(cleanEngine);
    const clean = await healthAsRead(cleanEngine.store.db, WS, NOW);
    await cleanEngine.close();

    const failing = { on: false };
    const engine = await open(failing);
    const db = engine.store.db;
    try {
      const scheduler = new Scheduler({ db, dataClock: () => NOW, staleQuietMs: 5 * MIN });
      await firstHalf(engine);
      // The daily work of the day is done before the failed run (it would rebuild stale clients too).
      const t0 = Date.now();
      expect((await scheduler.tick(new Date(t0))).daily).toHaveLength(1);
      failing.on = true;
      await expect(whole(engine)).rejects.toThrow(/health rebuild did not finish.*the disk is full \(test\)/);
      const half = await healthAsRead(db, WS, NOW);
      expect(half.stale).toBeGreaterThan(0);

      // Marked a moment ago: whoever marked them may still be writing, and rebuilds them itself.
      expect(await scheduler.tick(new Date(t0 + MIN))).toMatchObject({ redone: [], errors: [] });
      // A job of the workspace is running: its rebuild covers them.
      const job = await enqueueJob(db, { workspaceId: WS, kind: 'sync', source: 'google', params: {} });
      await transitionJob(db, job.id, 'queued', 'running', { patch: { leaseOwner: 'w', leaseExpiresAt: new Date(t0 + 60 * MIN).toISOString() } });
      expect(await scheduler.tick(new Date(t0 + 10 * MIN))).toMatchObject({ redone: [], errors: [] });
      await transitionJob(db, job.id, 'running', 'cancelled', { owner: 'w' });

      failing.on = false;
      const tick = await scheduler.tick(new Date(t0 + 10 * MIN));
      expect(tick.errors).toEqual([]);
      expect(tick.daily).toEqual([]);
      expect(tick.redone).toEqual([{ workspaceId: WS, clientsScored: half.stale, snapshotsWritten: expect.any(Number) }]);
      expect(await healthAsRead(db, WS, NOW)).toEqual(clean);
      // Nothing left to redo.
      expect((await scheduler.tick(new Date(t0 + 20 * MIN))).redone).toEqual([]);
    } finally {
      await engine.close();
    }
  }, 120_000);
});
