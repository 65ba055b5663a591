/**
 * Renewal outcomes (clients/outcomes.ts) on both dialects, as a CS lead records them: a churn, a
 * renewal and a downgrade per client and day, from the API's calls or a CSV the team exported from
 * its CRM. A CSV with a bad row imports nothing and says which lines are wrong.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Db } from '../store/database.js';
import { insertClient, insertWorkspace } from '../health/test-fixtures.js';
import { importOutcomesCsv, listClientOutcomes, listWorkspaceOutcomes, recordOutcome } from './outcomes.js';

afterAll(() => dropTestSchemas());

const WS = 'ourco.com';
const NOW = new Date('2025-06-30T12:00:00.000Z');

describe.each(await testDialects())('renewal outcomes on $name', (dialect) => {
  async function fixture(): Promise<{ db: Db; close: () => Promise<void> }> {
    const store = await dialect.open();
    await insertWorkspace(store.db, WS);
    await insertClient(store.db, WS, { id: 'globex', domain: 'globex.com' });
    await insertClient(store.db, WS, { id: 'initech', domain: 'initech.com' });
    await insertClient(store.db, WS, { id: 'hooli', domain: 'hooli.io' });
    await insertWorkspace(store.db, 'other.com');
    await insertClient(store.db, 'other.com', { id: 'theirs', domain: 'theirs.com' });
    return { db: store.db, close: () => store.close() };
  }
  const outcomesOf = async (db: Db) => (await listWorkspaceOutcomes(db, WS)).map((o) => [o.clientId, o.date, o.outcome, o.mrrBefore, o.mrrAfter, o.source]);

  it('records a churn, replaces the same day when told again, and lists a client’s outcomes oldest first', async () => {
    const { db, close } = await fixture();
    try {
      const first = await recordOutcome(db, WS, 'initech', { date: '2025-03-31', outcome: 'renewed', mrrBefore: 1200, mrrAfter: 1200 }, 'api', NOW);
      expect(first.created).toBe(true);
      expect((await recordOutcome(db, WS, 'initech', { date: '2025-06-01', outcome: 'churned', mrrBefore: 1200 }, 'api', NOW)).created).toBe(true);
      // Told again for the same day (a correction): replaced, not doubled.
      const again = await recordOutcome(db, WS, 'initech', { date: '2025-06-01', outcome: 'downgraded', mrrBefore: 1200, mrrAfter: 400 }, 'api', NOW);
      expect(again.created).toBe(false);
      const listed = await listClientOutcomes(db, WS, 'initech');
      expect(listed.map((o) => [o.date, o.outcome, o.mrrBefore, o.mrrAfter])).toEqual([
        ['2025-03-31', 'renewed', 1200, 1200],
        ['2025-06-01', 'downgraded', 1200, 400],
      ]);
      expect(listed[1]!.id).toBe(again.outcome.id);
    } finally {
      await close();
    }
  });

  it('two people recording the same client and day at once both succeed, and one outcome is kept', async () => {
    const { db, close } = await fixture();
    try {
      const [a, b] = await Promise.all([
        recordOutcome(db, WS, 'globex', { date: '2025-06-02', outcome: 'churned' }, 'api', NOW),
        recordOutcome(db, WS, 'globex', { date: '2025-06-02', outcome: 'churned', mrrBefore: 700 }, 'api', NOW),
      ]);
      expect([a.created, b.created].sort()).toEqual([false, true]);
      expect(await listClientOutcomes(db, WS, 'globex')).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('refuses what cannot be an outcome: a future day, an unknown outcome, a downgrade that does not lower the MRR, another workspace’s client', async () => {
    const { db, close } = await fixture();
    try {
      const record = (o: Parameters<typeof recordOutcome>[3], client = 'globex') => recordOutcome(db, WS, client, o, 'api', NOW);
      await expect(record({ date: '2025-07-15', outcome: 'churned' })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: /future/ });
      await expect(record({ date: '2025-02-30', outcome: 'churned' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(record({ date: '2025-05-01', outcome: 'lost' as 'churned' })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: /renewed, churned, downgraded/,
      });
      await expect(record({ date: '2025-05-01', outcome: 'downgraded', mrrBefore: 500 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(record({ date: '2025-05-01', outcome: 'downgraded', mrrBefore: 500, mrrAfter: 500 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(record({ date: '2025-05-01', outcome: 'renewed', mrrBefore: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(record({ date: '2025-05-01', outcome: 'churned' }, 'theirs')).rejects.toMatchObject({ code: 'CLIENT_NOT_FOUND' });
      await expect(listClientOutcomes(db, WS, 'theirs')).rejects.toMatchObject({ code: 'CLIENT_NOT_FOUND' });
      expect(await outcomesOf(db)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('imports a CRM export by domain or client id, MRR written as money; importing it again replaces, not doubles', async () => {
    const { db, close } = await fixture();
    try {
      const csv = [
        'Domain,date,outcome,mrrBefore,mrrAfter',
        'globex.com,2025-04-30,renewed,"$1,500",1500',
        'www.initech.com,2025-05-31,churned,900,',
        'hooli.io,2025-06-15,DOWNGRADED,2000,1200',
        '',
      ].join('\n');
      expect(await importOutcomesCsv(db, WS, csv, NOW)).toEqual({ rows: 3, created: 3, updated: 0, errors: [] });
      expect(await outcomesOf(db)).toEqual([
        ['globex', '2025-04-30', 'renewed', 1500, 1500, 'csv'],
        ['initech', '2025-05-31', 'churned', 900, null, 'csv'],
        ['hooli', '2025-06-15', 'downgraded', 2000, 1200, 'csv'],
      ]);
      expect(await importOutcomesCsv(db, WS, csv, NOW)).toEqual({ rows: 3, created: 0, updated: 3, errors: [] });
      expect(await outcomesOf(db)).toHaveLength(3);
      expect(await importOutcomesCsv(db, WS, 'clientId,date,outcome\ninitech,2025-06-20,renewed\n', NOW)).toMatchObject({ created: 1, errors: [] });
    } finally {
      await close();
    }
  });

  it('a CSV with bad rows imports nothing and names every bad line', async () => {
    const { db, close } = await fixture();
    try {
      const csv = [
        'domain,clientId,date,outcome,mrrBefore,mrrAfter',
        'globex.com,,2025-04-30,renewed,,', // 2: good
        'unknown-client.com,,2025-04-30,churned,,', // 3: no such client
        'initech.com,,30/04/2025,churned,,', // 4: not a day
        'hooli.io,,2025-05-01,downgraded,800,', // 5: a downgrade without its MRR after
        ',theirs,2025-05-01,churned,,', // 6: another workspace's client
        'globex.com,,2025-04-30,churned,,', // 7: globex's 04-30 again
        'initech.com,hooli,2025-05-02,churned,,', // 8: two different clients
        ',,2025-05-02,renewed,,', // 9: no client at all
        'initech.com,,2025-05-03,left,,', // 10: not an outcome
        'initech.com,,2025-05-03,churned,ten,', // 11: MRR not a number
      ].join('\n');
      const r = await importOutcomesCsv(db, WS, csv, NOW);
      expect(r.created + r.updated).toBe(0);
      expect(r.rows).toBe(10);
      expect(r.errors.map((e) => e.line)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);
      expect(r.errors.find((e) => e.line === 7)!.message).toMatch(/line 2/);
      expect(await outcomesOf(db)).toEqual([]);
      await expect(importOutcomesCsv(db, WS, 'domain,when,outcome\n', NOW)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: /unknown column/ });
      await expect(importOutcomesCsv(db, WS, 'date,outcome\n', NOW)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: /"domain" or a "clientId"/ });
      await expect(importOutcomesCsv(db, 'nobody.com', 'domain,date,outcome\n', NOW)).rejects.toMatchObject({ code: 'WORKSPACE_NOT_FOUND' });
    } finally {
      await close();
    }
  });
});
