/**
 * Migration 016 over SQLite and PostgreSQL: a workspace whose history was stored in the old JSON
 * rows answers every history read exactly as a workspace whose history was written compact — the
 * client's score history, its standing and risks, the summary, the trends — and keeps every day.
 */
import { Migrator, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../testing.js';
import { migrateToLatest, type Db } from '../database.js';
import { migrations } from './index.js';
import { recomputeHealth } from '../../health/recompute.js';
import { insertClient, insertInteractions, insertWorkspace, readSnapshots, weeklyRoutine, type InteractionSpec } from '../../health/test-fixtures.js';
import { getClientDetails } from '../../metrics/clients.js';
import { getClientHealthHistory } from '../../metrics/client-history.js';
import { getSummary } from '../../metrics/summary.js';
import { healthTrend } from '../../metrics/trends.js';

afterAll(() => dropTestSchemas());

const WS = 'acme.com';
const NOW = new Date('2024-06-30T18:00:00.000Z');
/** A content client, and one that went quiet and then said it will leave (risk, evidence, sentences). */
const MAIL: InteractionSpec[] = [
  ...weeklyRoutine('globex', '2024-06-28T09:00:00.000Z'),
  ...weeklyRoutine('initech', '2024-05-01T09:00:00.000Z'),
  { id: 'initech-leave', clientId: 'initech', at: '2024-06-20T10:00:00.000Z', direction: 'inbound', sentiment: -0.7, signals: 1 | 4, thread: 'leave' },
];

async function seed(db: Db): Promise<void> {
  await insertWorkspace(db, WS);
  await insertClient(db, WS, { id: 'globex', domain: 'globex.com' });
  await insertClient(db, WS, { id: 'initech', domain: 'initech.com' });
  await insertInteractions(db, WS, MAIL);
}

/** Everything the API says from the history. */
async function answers(db: Db) {
  const out: Record<string, unknown> = {};
  for (const id of ['globex', 'initech']) {
    out[id] = {
      history: await getClientHealthHistory(db, WS, id, { windowDays: 120, now: NOW }),
      details: (await getClientDetails(db, WS, id, NOW)).health,
    };
  }
  out.summary = await getSummary(db, WS, { windowDays: 30, now: NOW });
  out.trend = await healthTrend(db, WS, { windowDays: 120, interval: 'weekly', now: NOW });
  return out;
}

describe('016-compact-history', async () => {
  for (const dialect of await testDialects()) {
    it(`converts the old JSON history so every history read answers as before (${dialect.name})`, async () => {
      // The reference: the same workspace rebuilt on the latest schema.
      const ref = await dialect.open();
      const old = await dialect.open();
      try {
        await seed(ref.db);
        await recomputeHealth(ref.db, { workspaceId: WS, now: NOW });
        const stored = await readSnapshots(ref.db);
        expect(stored.length).toBeGreaterThan(100);
        expect(stored.some((s) => s.reason === 'churn_intent')).toBe(true);
        const expected = await answers(ref.db);

        // The same days, stored as version 015 stored them.
        const migrator = new Migrator({
          db: old.db,
          provider: { getMigrations: async () => migrations },
          ...(old.schema ? { migrationTableSchema: old.schema } : {}),
        });
        expect((await migrator.migrateTo('015-events')).error).toBeUndefined();
        await seed(old.db);
        const raw = old.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
        for (let k = 0; k < stored.length; k += 100)
          await raw
            .insertInto('health_snapshots')
            .values(
              stored.slice(k, k + 100).map((s) => ({
                workspace_id: WS,
                client_id: s.client_id,
                date: s.date,
                score: s.score,
                confidence: s.confidence,
                components_json: JSON.stringify(s.components),
                reason: s.reason,
                reason_text: s.reason_text,
                evidence_json: JSON.stringify(s.evidence),
                created_at: NOW.toISOString(),
              })),
            )
            .execute();
        for (const c of await ref.db.selectFrom('clients').select(['id', 'health_score', 'health_updated_at', 'last_interaction_at']).execute())
          await old.db
            .updateTable('clients')
            .set({ health_score: c.health_score, health_updated_at: c.health_updated_at, last_interaction_at: c.last_interaction_at })
            .where('id', '=', c.id)
            .execute();

        await migrateToLatest(old.db, old.schema);
        expect(await readSnapshots(old.db)).toEqual(stored);
        expect(await answers(old.db)).toEqual(expected);
        // A rebuild after the migration writes the same history again.
        await recomputeHealth(old.db, { workspaceId: WS, now: NOW, fromDay: '2024-06-01' });
        expect(await readSnapshots(old.db)).toEqual(stored);
      } finally {
        await ref.close();
        await old.close();
      }
    });
  }
});
