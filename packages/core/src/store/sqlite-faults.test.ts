/**
 * SQLite faults, SQLite only by nature (PostgreSQL has neither the database file nor its file
 * locks): the disk filling up mid-ingest, and a lock held by another process.
 *
 * A full disk is made with `PRAGMA max_page_count`: once the database would grow past it, SQLite
 * fails the write with SQLITE_FULL, the same code a full file system gives.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { fixturePath, SCENARIO_FIXTURE } from '@chs/fixtures';
import { createEngine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { mboxSource } from '../source/index.js';
import { openStore, type Db } from './database.js';
import { holdSqliteWriteLock } from './testing.js';

const truth = JSON.parse(readFileSync(fixturePath(SCENARIO_FIXTURE.truth), 'utf8')) as {
  messages: number;
  interactions: number;
  clientCount: number;
  contactCount: number;
  workspaceDomain: string;
  endDate: string;
};
const WS = truth.workspaceDomain;

async function pragma(db: Db, text: string): Promise<number> {
  const r = await sql.raw<Record<string, number>>(`pragma ${text}`).execute(db);
  return Object.values(r.rows[0] ?? {})[0] ?? 0;
}

async function count(db: Db, table: 'interactions' | 'clients' | 'contacts'): Promise<number> {
  const r = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('SQLite faults (SQLite only)', () => {
  it('disk full mid-ingest: STORAGE_FULL, only whole batches stored, and the next run resumes to exact totals', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'chs-full-')), 'chs.db');
    const store = await openStore({ url: file });
    // The mailbox's own "now", so its whole history is inside the retention window.
    const engine = await createEngine({ database: store, clock: () => new Date(truth.endDate) });
    try {
      const db = store.db;
      await createWorkspace(db, { domain: WS, name: 'Northwind', ownerEmail: `lead@${WS}` });
      // Room for about half the mailbox's interactions (~1,300 pages for all of it with its health history).
      await pragma(db, `max_page_count = ${(await pragma(db, 'page_count')) + 100}`);
      const source = () => mboxSource(fixturePath(SCENARIO_FIXTURE.mbox));
      const BATCH = 50;

      const err = await engine.ingest({ workspaceId: WS, source: source(), workers: 0, batchSize: BATCH }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'STORAGE_FULL' });
      expect((err as Error).message).toMatch(
        new RegExp(`the disk holding the SQLite database ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is full \\(SQLITE_FULL\\)`),
      );

      // What the failed run left: whole batches, their counts, and a cursor just after the last of them.
      const [failed] = await db.selectFrom('ingestion_runs').selectAll().execute();
      expect(failed).toMatchObject({ status: 'failed' });
      const stored = failed!.items_processed;
      expect(stored % BATCH).toBe(0);
      expect(stored).toBeGreaterThan(0);
      expect(stored).toBeLessThan(truth.messages);
      expect(await count(db, 'interactions')).toBe(failed!.items_added);
      expect(await db.selectFrom('source_cursors').select('cursor_json').executeTakeFirst()).toBeDefined();
      const storedClients = await count(db, 'clients');
      expect(failed!.clients_created).toBe(storedClients);

      // Space again: the next run resumes after the last stored batch and finishes.
      await pragma(db, 'max_page_count = 1073741823');
      const resumed = await engine.ingest({ workspaceId: WS, source: source(), workers: 0, batchSize: BATCH });
      expect(resumed.status).toBe('completed');
      expect(resumed.resumedFrom).not.toBeNull();
      expect(resumed.itemsProcessed).toBe(truth.messages - stored);
      expect(failed!.items_added + resumed.itemsAdded).toBe(truth.interactions);
      expect(storedClients + resumed.clientsCreated).toBe(truth.clientCount);
      expect(await count(db, 'interactions')).toBe(truth.interactions);
      expect(await count(db, 'clients')).toBe(truth.clientCount);
      expect(await db.selectFrom('source_cursors').select('cursor_json').executeTakeFirst()).toBeUndefined();
      // The health of the clients the failed run stored was rebuilt by the run that finished it.
      const history = await db
        .selectFrom('clients as c')
        .select((eb) => [
          'c.primary_domain as domain',
          eb
            .selectFrom('interactions as i')
            .whereRef('i.client_id', '=', 'c.id')
            .select((e) => e.fn.min<string>('i.occurred_at').as('d'))
            .as('firstInteraction'),
          eb
            .selectFrom('health_snapshots as h')
            .whereRef('h.client_id', '=', 'c.id')
            .select((e) => e.fn.min<string>('h.date').as('d'))
            .as('firstSnapshot'),
        ])
        .execute();
      expect(history).toHaveLength(truth.clientCount);
      for (const h of history) {
        expect(h.firstSnapshot, h.domain).not.toBeNull();
        expect(h.firstSnapshot! <= h.firstInteraction!.slice(0, 10), h.domain).toBe(true);
      }
      // Each message stored once, and a further run adds nothing.
      const again = await engine.ingest({ workspaceId: WS, source: source(), workers: 0 });
      expect([again.itemsProcessed, again.itemsAdded, again.itemsUpdated]).toEqual([truth.messages, 0, 0]);
      expect(await count(db, 'interactions')).toBe(truth.interactions);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('creates the database file (and its -wal/-shm) 0600 in a 0700 folder', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'chs-mode-')), 'data', 'nested');
    const file = join(dir, 'chs.db');
    const store = await openStore({ url: file });
    try {
      await sql`select 1`.execute(store.db);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(statSync(f).mode & 0o777, f).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, '..')).mode & 0o777).toBe(0o700);
    } finally {
      await store.close();
    }
  });

  describe('a lock held by another process', () => {
    async function setup(): Promise<string> {
      const file = join(mkdtempSync(join(tmpdir(), 'chs-busy-')), 'chs.db');
      const store = await openStore({ url: file });
      await createWorkspace(store.db, { domain: WS, name: 'Northwind', ownerEmail: `lead@${WS}` });
      await store.close();
      return file;
    }

    const write = (db: Db, entry: string) => db.insertInto('blocklist').values({ workspace_id: WS, entry, created_at: '2025-01-01' }).execute();

    it('waits for the lock (busy timeout), then writes', async () => {
      const file = await setup();
      const store = await openStore({ url: file, busyTimeoutMs: 10_000 });
      try {
        const { released } = await holdSqliteWriteLock(file, WS, 400);
        const t = performance.now();
        await write(store.db, 'after-wait.example');
        expect(performance.now() - t).toBeGreaterThan(200);
        await released;
        expect((await store.db.selectFrom('blocklist').select('entry').orderBy('entry').execute()).map((r) => r.entry)).toEqual([
          'after-wait.example',
          'held.example',
        ]);
      } finally {
        await store.close();
      }
    });

    it('gives up after the busy timeout with DATABASE_BUSY, having written nothing', async () => {
      const file = await setup();
      const store = await openStore({ url: file, busyTimeoutMs: 300 });
      try {
        const { released } = await holdSqliteWriteLock(file, WS, 1500);
        const t = performance.now();
        const err = await write(store.db, 'never.example').catch((e: unknown) => e);
        const waited = performance.now() - t;
        expect(err).toMatchObject({ code: 'DATABASE_BUSY' });
        expect((err as Error).message).toMatch(/is locked by another process \(SQLITE_BUSY\); gave up after waiting 300 ms \(CHS_SQLITE_BUSY_TIMEOUT_MS\)/);
        expect(waited).toBeGreaterThan(250);
        expect(waited).toBeLessThan(1400);
        // A transaction fails whole, and leaves the connection usable.
        const trxErr = await store.db
          .transaction()
          .execute(async (trx) => {
            await write(trx, 'in-trx.example');
          })
          .catch((e: unknown) => e);
        expect(trxErr).toMatchObject({ code: 'DATABASE_BUSY' });
        await released;
        await write(store.db, 'later.example');
        expect((await store.db.selectFrom('blocklist').select('entry').orderBy('entry').execute()).map((r) => r.entry)).toEqual([
          'held.example',
          'later.example',
        ]);
      } finally {
        await store.close();
      }
    });
  });
});
