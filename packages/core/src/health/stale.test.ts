/**
 * Stale health (stale.ts): how a client is marked, which rebuild starts where because of it, and
 * when its write clears it; which workspaces the runner may redo. Both dialects, hand-made rows.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Db } from '../store/database.js';
import { enqueueJob, transitionJob } from '../jobs/repository.js';
import { updateSettings } from '../settings/settings.js';
import { recomputeHealth } from './recompute.js';
import { markHealthStale, workspacesWithStaleHealth } from './stale.js';
import { encodeSnapshots, writeSnapshots } from './write.js';
import { insertClient, insertInteractions, insertWorkspace } from './test-fixtures.js';

const NOW = new Date('2024-06-30T12:00:00.000Z');
const WS = 'us.test';

afterAll(() => dropTestSchemas());

describe.each(await testDialects())('stale health on $name', (dialect) => {
  async function fixture() {
    const store = await dialect.open();
    const db = store.db;
    await insertWorkspace(db, WS);
    await insertClient(db, WS, { id: 'alpha', domain: 'alpha.com' });
    await insertClient(db, WS, { id: 'beta', domain: 'beta.io' });
    await insertClient(db, WS, { id: 'gamma', domain: 'gamma.org' });
    await insertClient(db, WS, { id: 'maybe', domain: 'maybe.net', status: 'suggested' });
    await insertInteractions(db, WS, [
      { id: 'a1', clientId: 'alpha', at: '2024-06-20T09:00:00.000Z', direction: 'inbound', sentiment: 0.5 },
      { id: 'a2', clientId: 'alpha', at: '2024-06-28T13:00:00.000Z', direction: 'outbound', sentiment: 0.2 },
      { id: 'b1', clientId: 'beta', at: '2023-09-01T10:00:00.000Z', direction: 'inbound', sentiment: 0.8 },
      { id: 'b2', clientId: 'beta', at: '2024-06-01T10:00:00.000Z', direction: 'inbound', sentiment: -0.6 },
      { id: 'm1', clientId: 'maybe', at: '2024-06-02T10:00:00.000Z', direction: 'inbound', sentiment: 0 },
    ]);
    return store;
  }
  const stale = async (db: Db) =>
    Object.fromEntries((await db.selectFrom('clients').select(['id', 'health_stale_from']).orderBy('id').execute()).map((c) => [c.id, c.health_stale_from]));
  const snapshots = async (db: Db, client: string) =>
    Number(
      (
        await db
          .selectFrom('health_snapshots')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('client_id', '=', client)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const mark = (db: Db, touched: Record<string, string>) =>
    db.transaction().execute((trx) => markHealthStale(trx, new Map(Object.entries(touched)), new Date()));

  it('marks the earliest day touched, of scored clients only', async () => {
    const store = await fixture();
    const db = store.db;
    await mark(db, { alpha: '2024-06-20', maybe: '2024-06-02' });
    await mark(db, { alpha: '2024-06-25', beta: '2024-06-01' });
    expect(await stale(db)).toEqual({ alpha: '2024-06-20', beta: '2024-06-01', gamma: null, maybe: null });
    await mark(db, { alpha: '2024-06-10' });
    expect((await stale(db)).alpha).toBe('2024-06-10');
    await store.close();
  });

  it('a rebuild of the stale clients alone starts each at its stale day and clears it', async () => {
    const store = await fixture();
    const db = store.db;
    expect(await recomputeHealth(db, { workspaceId: WS, now: NOW })).toMatchObject({ clientsScored: 3 });
    await mark(db, { alpha: '2024-06-29', beta: '2024-06-01' });
    // alpha 06-29..06-30 (2 days), beta 06-01..06-30 (30 days); gamma is not stale.
    expect(await recomputeHealth(db, { workspaceId: WS, clientIds: [], includeStale: true, now: NOW })).toEqual({ clientsScored: 2, snapshotsWritten: 32 });
    expect(await stale(db)).toEqual({ alpha: null, beta: null, gamma: null, maybe: null });
    // Nothing stale: nothing rebuilt.
    expect(await recomputeHealth(db, { workspaceId: WS, clientIds: [], includeStale: true, now: NOW })).toEqual({ clientsScored: 0, snapshotsWritten: 0 });
    await store.close();
  });

  it('each client from its own day (fromDays), or its stale day when that is earlier', async () => {
    const store = await fixture();
    const db = store.db;
    await recomputeHealth(db, { workspaceId: WS, now: NOW });
    await mark(db, { beta: '2024-06-21' });
    const r = await recomputeHealth(db, {
      workspaceId: WS,
      fromDays: new Map([
        ['alpha', '2024-06-30'],
        ['beta', '2024-06-25'],
      ]),
      now: NOW,
    });
    // alpha 1 day; beta from 06-21 (stale), not 06-25: 10 days. gamma untouched.
    expect(r).toEqual({ clientsScored: 2, snapshotsWritten: 11 });
    expect((await stale(db)).beta).toBeNull();
    await store.close();
  });

  it('a stale day before anything the rebuild can write (first interaction, retention horizon; no mail) is cleared by it', async () => {
    const store = await fixture();
    const db = store.db;
    await updateSettings(db, WS, { dataRetentionDays: 60 });
    await recomputeHealth(db, { workspaceId: WS, now: NOW });
    // As if their mail had moved or gone since: days with no snapshot to write.
    await db.updateTable('clients').set({ health_stale_from: '2020-01-01', health_stale_at: NOW.toISOString() }).execute();
    await db.updateTable('clients').set({ health_stale_from: null }).where('id', '=', 'maybe').execute();
    const r = await recomputeHealth(db, { workspaceId: WS, clientIds: [], includeStale: true, now: NOW });
    expect(r.clientsScored).toBe(3);
    expect(await stale(db)).toEqual({ alpha: null, beta: null, gamma: null, maybe: null });
    // alpha from its first interaction (06-20: 11 days); beta from the horizon (05-01: 61 days); gamma today.
    expect([await snapshots(db, 'alpha'), await snapshots(db, 'beta'), await snapshots(db, 'gamma')]).toEqual([11, 61, 1]);
    await store.close();
  });

  const seqOf = async (db: Db, id: string) =>
    (await db.selectFrom('clients').select('health_stale_seq').where('id', '=', id).executeTakeFirstOrThrow()).health_stale_seq;

  it('a write clears a mark on or after its first day, and keeps an earlier one (marked after the rebuild read the client)', async () => {
    const store = await fixture();
    const db = store.db;
    await mark(db, { alpha: '2024-06-10' });
    const seq = await seqOf(db, 'alpha');
    const written = (start: string) =>
      writeSnapshots(
        db,
        encodeSnapshots([]),
        [{ id: 'alpha', start, score: 50, lastInteractionAt: '2024-06-28T13:00:00.000Z', staleSeq: seq }],
        NOW.toISOString(),
      );
    await written('2024-06-29');
    expect((await stale(db)).alpha).toBe('2024-06-10');
    await written('2024-06-10');
    expect((await stale(db)).alpha).toBeNull();
    await store.close();
  });

  it('a write keeps a mark set after the rebuild read the client, even on a later day than the one it started at: that mail may not be in what it wrote', async () => {
    const store = await fixture();
    const db = store.db;
    await mark(db, { alpha: '2024-06-10' });
    // The rebuild reads alpha (stale from 06-10, marked once); a writer then stores 06-25 mail of alpha.
    const read = await seqOf(db, 'alpha');
    await mark(db, { alpha: '2024-06-25' });
    expect((await stale(db)).alpha).toBe('2024-06-10');
    const write = (staleSeq: number | null) =>
      writeSnapshots(
        db,
        encodeSnapshots([]),
        [{ id: 'alpha', start: '2024-06-10', score: 50, lastInteractionAt: '2024-06-28T13:00:00.000Z', staleSeq }],
        NOW.toISOString(),
      );
    await write(read);
    expect((await stale(db)).alpha).toBe('2024-06-10');
    // A rebuild that read it after the writer's mark clears it.
    await write(await seqOf(db, 'alpha'));
    expect((await stale(db)).alpha).toBeNull();
    await store.close();
  });

  it('a rebuild keeps stale a client a writer marked while it ran; the next run rebuilds it as a clean run would', async () => {
    const store = await fixture();
    const db = store.db;
    await recomputeHealth(db, { workspaceId: WS, now: NOW });
    await mark(db, { alpha: '2024-06-20' });
    // A writer stores new mail of alpha (a later day) while the rebuild of the stale clients runs.
    await recomputeHealth(db, {
      workspaceId: WS,
      now: NOW,
      clientIds: [],
      includeStale: true,
      onBatch: async () => {
        await insertInteractions(db, WS, [{ id: 'a3', clientId: 'alpha', at: '2024-06-29T09:00:00.000Z', direction: 'inbound', sentiment: -0.8 }]);
        await mark(db, { alpha: '2024-06-29' });
      },
    });
    expect((await stale(db)).alpha).toBe('2024-06-20');
    await recomputeHealth(db, { workspaceId: WS, now: NOW, clientIds: [], includeStale: true });
    expect((await stale(db)).alpha).toBeNull();
    const history = async (d: Db) =>
      (await d.selectFrom('health_snapshots').select(['client_id', 'date', 'score']).orderBy('client_id').orderBy('date').execute()).map((r) => ({
        ...r,
        score: Number(r.score),
      }));
    const clean = await fixture();
    await insertInteractions(clean.db, WS, [{ id: 'a3', clientId: 'alpha', at: '2024-06-29T09:00:00.000Z', direction: 'inbound', sentiment: -0.8 }]);
    await recomputeHealth(clean.db, { workspaceId: WS, now: NOW });
    expect(await history(db)).toEqual(await history(clean.db));
    await store.close();
    await clean.close();
  });

  it('the runner may redo a workspace only when no job of it runs and nothing was marked lately', async () => {
    const store = await fixture();
    const db = store.db;
    await mark(db, { alpha: '2024-06-20', beta: '2024-06-01' });
    const after = (ms: number) => new Date(Date.now() + ms);
    expect(await workspacesWithStaleHealth(db, after(-60_000))).toEqual([]);
    expect(await workspacesWithStaleHealth(db, after(1_000))).toEqual([{ workspaceId: WS, clients: 2, markedAt: expect.any(String) }]);
    const job = await enqueueJob(db, { workspaceId: WS, kind: 'sync', source: 'google' });
    expect(await workspacesWithStaleHealth(db, after(1_000))).toHaveLength(1);
    await transitionJob(db, job.id, 'queued', 'running', { patch: { leaseOwner: 'w', leaseExpiresAt: after(60_000).toISOString() } });
    expect(await workspacesWithStaleHealth(db, after(1_000))).toEqual([]);
    await store.close();
  });
});
