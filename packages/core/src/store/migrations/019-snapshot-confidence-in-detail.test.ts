/**
 * Migration 019 over SQLite and PostgreSQL: a snapshot's confidence moves into its detail (the
 * column null) for the rows written since. Every history read answers the same whichever way a row
 * holds it: rows written before it are read as they are, down gives the column back its values and
 * the details their earlier form, and up again leaves the table as it was.
 */
import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../testing.js';
import type { Db } from '../database.js';
import { unpackDetail } from '../history-codec.js';
import { migrations } from './index.js';
import { recomputeHealth } from '../../health/recompute.js';
import { storeSnapshots } from '../../health/write.js';
import type { SnapshotRow } from '../../health/score-client.js';
import { insertClient, insertInteractions, insertWorkspace, readSnapshots, weeklyRoutine, type InteractionSpec } from '../../health/test-fixtures.js';
import { getClientDetails } from '../../metrics/clients.js';
import { getClientHealthHistory } from '../../metrics/client-history.js';

afterAll(() => dropTestSchemas());

const WS = 'acme.com';
const NOW = new Date('2024-06-30T18:00:00.000Z');
/** A content client; one that went quiet and then said it will leave; one just met (thin data, low confidence). */
const MAIL: InteractionSpec[] = [
  ...weeklyRoutine('globex', '2024-06-28T09:00:00.000Z'),
  ...weeklyRoutine('initech', '2024-05-01T09:00:00.000Z'),
  { id: 'initech-leave', clientId: 'initech', at: '2024-06-20T10:00:00.000Z', direction: 'inbound', sentiment: -0.7, signals: 1 | 4, thread: 'leave' },
  { id: 'hooli-hello', clientId: 'hooli', at: '2024-06-25T10:00:00.000Z', direction: 'inbound', sentiment: 0.3, thread: 'hello' },
];

async function seed(db: Db): Promise<void> {
  await insertWorkspace(db, WS);
  for (const id of ['globex', 'initech', 'hooli']) await insertClient(db, WS, { id, domain: `${id}.com` });
  await insertInteractions(db, WS, MAIL);
  await recomputeHealth(db, { workspaceId: WS, now: NOW });
  // A confidence no decimal holds (a float64 in the detail).
  const [day] = await readSnapshots(db, { clientId: 'hooli', date: '2024-06-30' });
  await db.deleteFrom('health_snapshots').where('client_id', '=', 'hooli').where('date', '=', '2024-06-30').execute();
  await storeSnapshots(db, [{ ...day!, components: day!.components as SnapshotRow['components'], workspace_id: WS, confidence: 1 / 3 }]);
}

/** What the API says from the history, and every stored day. */
async function answers(db: Db) {
  const out: Record<string, unknown> = { snapshots: await readSnapshots(db) };
  for (const id of ['globex', 'initech', 'hooli']) {
    out[id] = {
      history: await getClientHealthHistory(db, WS, id, { windowDays: 120, now: NOW }),
      details: (await getClientDetails(db, WS, id, NOW)).health,
    };
  }
  return out;
}

async function rows(db: Db) {
  return db.selectFrom('health_snapshots').select(['client_id', 'date', 'confidence', 'detail']).orderBy('client_id').orderBy('date').execute();
}

async function confidenceNullable(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<boolean> {
  if (dialect === 'sqlite') {
    const r = await sql<{ notnull: number }>`select "notnull" from pragma_table_info('health_snapshots') where name = 'confidence'`.execute(db);
    return r.rows[0]!.notnull === 0;
  }
  const r = await sql<{ is_nullable: string }>`select is_nullable from information_schema.columns
    where table_schema = current_schema() and table_name = 'health_snapshots' and column_name = 'confidence'`.execute(db);
  return r.rows[0]!.is_nullable === 'YES';
}

describe('019-snapshot-confidence-in-detail', async () => {
  for (const dialect of await testDialects()) {
    it(`keeps a day's confidence in its detail and answers the same before, after, down and up again (${dialect.name})`, async () => {
      const store = await dialect.open();
      try {
        const db = store.db;
        await seed(db);
        const expected = await answers(db);
        const snaps = expected.snapshots as Awaited<ReturnType<typeof readSnapshots>>;
        expect(snaps.length).toBeGreaterThan(100);
        // The just-met client is scored with less confidence than the content one, and one day holds a third.
        expect(new Set(snaps.map((s) => s.confidence)).size).toBeGreaterThan(2);
        expect(snaps.some((s) => s.confidence === 1 / 3)).toBe(true);
        const written = await rows(db);
        expect(written.every((r) => r.confidence === null)).toBe(true);
        expect(await confidenceNullable(db as unknown as Kysely<unknown>, dialect.name)).toBe(true);

        const migrator = new Migrator({
          db,
          provider: { getMigrations: async () => migrations },
          ...(store.schema ? { migrationTableSchema: store.schema } : {}),
        });
        expect((await migrator.migrateTo('018-pg-snapshot-date-index')).error).toBeUndefined();
        expect(await confidenceNullable(db as unknown as Kysely<unknown>, dialect.name)).toBe(false);
        const down = await rows(db);
        expect(down.map((r) => [r.client_id, r.date])).toEqual(written.map((r) => [r.client_id, r.date]));
        down.forEach((r, i) => {
          // The column holds what the detail held, and the detail is what 018's code wrote: the same parts and figures.
          const before = unpackDetail(written[i]!.detail, true);
          expect(Number(r.confidence)).toBe(before.confidence);
          const after = unpackDetail(r.detail);
          expect(after.partIds).toEqual(before.partIds);
          expect(after.figures).toEqual(before.figures);
        });
        expect(await answers(db)).toEqual(expected);

        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        expect(await confidenceNullable(db as unknown as Kysely<unknown>, dialect.name)).toBe(true);
        // Rows written before keep their column and read as they are.
        expect((await rows(db)).every((r) => r.confidence !== null)).toBe(true);
        expect(await answers(db)).toEqual(expected);
        // A rebuild writes them the new way, the same days.
        await recomputeHealth(db, { workspaceId: WS, now: NOW, fromDay: '2024-06-01' });
        const rebuilt = await rows(db);
        expect(rebuilt.filter((r) => r.date >= '2024-06-01').every((r) => r.confidence === null)).toBe(true);
        expect(rebuilt.filter((r) => r.date < '2024-06-01').every((r) => r.confidence !== null)).toBe(true);
        const again = await answers(db);
        // The day stored with a third by hand is rebuilt with the model's own confidence.
        const hooliDay = (a: Record<string, unknown>) => (a.snapshots as typeof snaps).find((s) => s.client_id === 'hooli' && s.date === '2024-06-30')!;
        expect(hooliDay(again).confidence).not.toBe(1 / 3);
        expect({ ...again, snapshots: (again.snapshots as typeof snaps).filter((s) => s !== hooliDay(again)) }).toMatchObject({
          globex: expected.globex,
          initech: expected.initech,
          snapshots: snaps.filter((s) => s !== hooliDay(expected)),
        });
      } finally {
        await store.close();
      }
    });
  }
});
