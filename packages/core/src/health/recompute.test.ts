import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { updateSettings } from '../settings/settings.js';
import { batchesOf, recomputeHealth, type BatchContext, type ClientRow } from './recompute.js';
import { insertClient, insertInteractions, insertWorkspace, readSnapshots } from './test-fixtures.js';

const NOW = new Date('2024-06-30T12:00:00.000Z');
const WS = 'us.test';

afterAll(() => dropTestSchemas());

for (const dialect of await testDialects()) {
  describe(`recomputeHealth on ${dialect.name}`, () => {
    async function fixture() {
      const store = await dialect.open();
      const db = store.db;
      await insertWorkspace(db, WS);
      await insertClient(db, WS, { id: 'alpha', domain: 'alpha.com' });
      await insertClient(db, WS, { id: 'beta', domain: 'beta.io' });
      await insertClient(db, WS, { id: 'gamma', domain: 'gamma.org' });
      await insertInteractions(db, WS, [
        // alpha: they write (+0.5), we answer 4 hours later, same thread.
        { id: 'a1', clientId: 'alpha', at: '2024-06-28T09:00:00.000Z', direction: 'inbound', sentiment: 0.5, thread: 't1' },
        { id: 'a2', clientId: 'alpha', at: '2024-06-28T13:00:00.000Z', direction: 'outbound', sentiment: 0.2, thread: 't1' },
        // beta: two past messages months apart (a past-dated ingest).
        { id: 'b1', clientId: 'beta', at: '2023-09-01T10:00:00.000Z', direction: 'inbound', sentiment: 0.8 },
        { id: 'b2', clientId: 'beta', at: '2024-01-15T10:00:00.000Z', direction: 'inbound', sentiment: -0.6 },
      ]);
      return store;
    }

    const snap = async (db: Awaited<ReturnType<typeof fixture>>['db'], client: string, date: string) =>
      (await readSnapshots(db, { clientId: client, date }))[0];

    it('scores every day from the first interaction with hand-computed components', async () => {
      const store = await fixture();
      const db = store.db;
      const r = await recomputeHealth(db, { workspaceId: WS, now: NOW });
      // alpha: 06-28..06-30 = 3; beta: 2023-09-01..2024-06-30 = 30+31+30+31+31+29+31+30+31+30 = 304; gamma: today only = 1.
      expect(r).toEqual({ clientsScored: 3, snapshotsWritten: 308 });

      // alpha on 06-30 (both messages 2 days old):
      // sentiment: only their message counts, +0.5 → 50·1.5 = 75
      // engagement: their (positive) message and our reply are 2 exchanges in 30 days, no
      // baseline (floor 1) → min(1, 2/1) → 100
      // responsiveness: our reply 4 h → promptness 24/28 → 85.714; no outreach of ours (our only
      // e-mail is a reply), so no their-reply part
      // recency: last contact 2 days → 100
      // score = .4·75 + .2·100 + .2·85.714 + .2·100 = 87.143 → 87.1; confidence: 2/10 data × fresh 1 = 0.2
      const a = await snap(db, 'alpha', '2024-06-30');
      expect(a?.score).toBe(87.1);
      expect(a?.confidence).toBe(0.2);
      const comps = a!.components;
      expect(comps.sentiment).toEqual({ value: 75, weight: 0.4, contribution: 30 });
      expect(comps.engagement?.value).toBe(100);
      expect(comps.responsiveness?.value).toBe(85.7);
      expect(comps.recency?.value).toBe(100);
      expect(comps.inputs.ourReplyHours).toBe(4);
      expect(comps.risk).toBeNull();
      expect(a?.reason).toBe('stable');
      expect(a!.evidence.interactionIds).toEqual(['a1', 'a2']);

      const alpha = await db.selectFrom('clients').selectAll().where('id', '=', 'alpha').executeTakeFirstOrThrow();
      expect(alpha.health_score).toBe(87.1);
      expect(alpha.health_updated_at).toBe(NOW.toISOString());
      expect(alpha.last_interaction_at).toBe('2024-06-28T13:00:00.000Z');

      // beta 2023-09-01: sentiment .8 → 90; engagement 100; responsiveness none → 50; recency 100
      // = 36 + 20 + 10 + 20 = 86
      expect((await snap(db, 'beta', '2023-09-01'))?.score).toBe(86);
      // beta 2023-10-01 (30 days later): sentiment still 90; engagement 0 (baseline 1/3 → floor 1);
      // recency 100 − (30−7)·100/60 = 61.667 → 36 + 0 + 10 + 12.333 = 58.3; confidence 1/10
      const oct = await snap(db, 'beta', '2023-10-01');
      expect(oct?.score).toBe(58.3);
      expect(oct?.confidence).toBe(0.1);
      // beta 2024-01-14: nothing within 90 days → sentiment 50, engagement 0, resp 50, recency 0 → 30;
      // but one message in all its history is a client we barely know: "not enough data", lifted to
      // the neutral 50 (no risk signal holds), components as computed.
      const dec = await snap(db, 'beta', '2024-01-14');
      expect(dec).toMatchObject({ score: 50, reason: 'no_data' });
      expect(dec!.components.recency?.value).toBe(0);
      // beta 2024-01-15: −0.6 → 20; engagement 0 (a complaint is no healthy exchange); resp 50;
      // recency 100 → 8 + 0 + 10 + 20 = 38. One negative message is no escalation and no tone
      // signal (those need two or more). Change +8 = sentiment −12, recency +20 → recency first.
      // Still two messages in all: not enough data, so still the neutral 50 rather than at risk.
      const jan = await snap(db, 'beta', '2024-01-15');
      expect(jan?.score).toBe(50);
      expect(jan?.reason).toBe('no_data');
      const ev = jan!.evidence;
      expect(ev.changes).toEqual({ sentiment: -12, engagement: 0, responsiveness: 0, recency: 20, risk: 0 });
      expect(ev.interactionIds).toEqual(['b2']);
      // beta today: nothing in 120 days → 20 + 0 + 10 + 0 = 30, confidence 0: lifted to 50 as above
      const today = await snap(db, 'beta', '2024-06-30');
      expect(today?.score).toBe(50);
      expect(today?.confidence).toBe(0);

      // The past-dated history is a real series, not a flat line.
      const distinct = await db.selectFrom('health_snapshots').select('score').distinct().where('client_id', '=', 'beta').execute();
      expect(distinct.length).toBeGreaterThan(10);

      // gamma: no interactions → documented default 50, confidence 0, reason no_data.
      const g = await snap(db, 'gamma', '2024-06-30');
      expect(g).toMatchObject({ score: 50, confidence: 0, reason: 'no_data' });
      await store.close();
    });

    it('explains a decline by its driver and names the evidence', async () => {
      const store = await fixture();
      const db = store.db;
      await recomputeHealth(db, { workspaceId: WS, now: NOW });
      await insertInteractions(db, WS, [{ id: 'a3', clientId: 'alpha', at: '2024-06-30T08:00:00.000Z', direction: 'inbound', sentiment: -1, thread: 't1' }]);
      const r = await recomputeHealth(db, { workspaceId: WS, clientIds: ['alpha'], fromDay: '2024-06-30', now: NOW });
      expect(r).toEqual({ clientsScored: 1, snapshotsWritten: 1 });
      // alpha 06-30 now: sentiment weights: a1 at 2 days 0.5^(2/14) = 0.905724, a3 today 1
      // avg = (0.905724·0.5 − 1)/(1.905724) = −0.289111 → 35.544
      // engagement: a3 is a complaint, not an exchange: still 2 → 100
      // responsiveness: ours 4 h → 85.714; a3 (a Sunday) is due by the end of Tuesday, so it is
      // not yet waiting; our only e-mail is a reply → no their-reply part → 85.714
      // score = .4·35.544 + 20 + .2·85.714 + 20 = 14.218 + 20 + 17.143 + 20 = 71.36 → 71.4
      const a = await snap(db, 'alpha', '2024-06-30');
      expect(a?.score).toBe(71.4);
      // change vs 06-29 (87.1): sentiment 30 → 14.22 (−15.78), the rest unchanged
      expect(a?.reason).toBe('sentiment_declining');
      expect(a?.reason_text).toMatch(/^Score fell 15\.7 points \(87\.1 → 71\.4\)/);
      expect(a!.evidence.interactionIds[0]).toBe('a3');
      // beta untouched by an incremental run for alpha.
      expect(await db.selectFrom('health_snapshots').select('client_id').where('client_id', '=', 'beta').execute()).toHaveLength(304);
      await store.close();
    });

    it('fills days missed since the last run and uses the workspace weights', async () => {
      const store = await fixture();
      const db = store.db;
      await recomputeHealth(db, { workspaceId: WS, clientIds: ['alpha'], now: NOW });
      await updateSettings(db, WS, { healthWeights: { sentiment: 1, engagement: 0, responsiveness: 0, recency: 0 } });
      const later = new Date('2024-07-03T12:00:00.000Z');
      const r = await recomputeHealth(db, { workspaceId: WS, clientIds: ['alpha'], fromDay: '2024-07-03', now: later });
      // 07-01, 07-02 (missed) and 07-03.
      expect(r.snapshotsWritten).toBe(3);
      // weights 1/0/0/0: the score is the sentiment component alone, 75.
      expect((await snap(db, 'alpha', '2024-07-02'))?.score).toBe(75);
      await store.close();
    });
  });
}

describe('rebuild batches', () => {
  const ctx: BatchContext = {
    today: '2024-06-30',
    now: NOW,
    retentionStart: '2023-01-01',
    fromDay: undefined,
    timeZone: 'UTC',
    options: { weights: { sentiment: 0.4, engagement: 0.2, responsiveness: 0.2, recency: 0.2 }, replySlaBusinessDays: 2 },
  };
  const client = (id: string, first: string | null, scored: string | null = null): ClientRow => ({
    id,
    first_at: first,
    last_at: first,
    health_updated_at: scored,
    health_stale_from: null,
    health_stale_seq: null,
  });

  it('cut by the snapshots each client will write, not only by client count', () => {
    const clients = [
      client('a', '2024-06-21T10:00:00Z'), // 10 days
      client('b', '2024-06-26T10:00:00Z'), // 5 days
      client('c', null), // no data: 1 (today's default)
      client('d', '2024-06-01T10:00:00Z', '2024-06-29T00:00:00Z'), // no fromDay: a full rebuild, 30 days
      client('e', '2022-01-01T10:00:00Z'), // from the retention start: 547 days
      client('f', '2024-06-30T08:00:00Z'), // 1
    ];
    const ids = (limitClients: number, limitSnapshots: number, c: BatchContext = ctx) =>
      [...batchesOf(clients, c, limitClients, limitSnapshots)].map((b) => b.map((x) => x.id).join(''));
    expect(ids(250, 16)).toEqual(['abc', 'd', 'e', 'f']);
    expect(ids(250, 46)).toEqual(['abcd', 'e', 'f']);
    expect(ids(2, 1_000)).toEqual(['ab', 'cd', 'ef']);
    expect(ids(250, 10_000)).toEqual(['abcdef']);
    // From 06-29 on: only d was scored before, so only d is rebuilt from 06-29 (2 days); the
    // others have no history yet and are rebuilt whole (a 10, b 5, c 1, e 547, f 1).
    expect(ids(250, 4, { ...ctx, fromDay: '2024-06-29' })).toEqual(['a', 'b', 'cd', 'e', 'f']);
    expect(ids(250, 10, { ...ctx, fromDay: '2024-06-29' })).toEqual(['a', 'bcd', 'e', 'f']);
  });
});

for (const dialect of await testDialects()) {
  describe(`a long rebuild on ${dialect.name}, one batch written while the next is scored`, () => {
    // 60 clients with a year of history each: 366 snapshots a client, so several write batches.
    async function yearOfClients() {
      const store = await dialect.open();
      const db = store.db;
      await insertWorkspace(db, WS);
      const ids = Array.from({ length: 60 }, (_, i) => `c${String(i).padStart(2, '0')}`);
      for (const id of ids) await insertClient(db, WS, { id, domain: `${id}.com` });
      await insertInteractions(
        db,
        WS,
        ids.map((id) => ({ id: `${id}-1`, clientId: id, at: '2023-07-01T10:00:00.000Z', direction: 'inbound' as const, sentiment: 0.3 })),
      );
      return { store, db, ids };
    }

    it('writes every client’s every day', async () => {
      const { store, db, ids } = await yearOfClients();
      const r = await recomputeHealth(db, { workspaceId: WS, now: NOW });
      expect(r).toEqual({ clientsScored: 60, snapshotsWritten: 60 * 366 });
      const perClient = await db
        .selectFrom('health_snapshots')
        .select(['client_id', (e) => e.fn.countAll<number>().as('n')])
        .groupBy('client_id')
        .execute();
      expect(new Map(perClient.map((p) => [p.client_id, Number(p.n)]))).toEqual(new Map(ids.map((id) => [id, 366])));
      await store.close();
    });

    it('a write the database refuses fails the rebuild with its error, and the batches before it stay written', async () => {
      const { store, db } = await yearOfClients();
      // A client of the middle batch is refused: its write fails while the last batch is being scored.
      if (dialect.name === 'postgres') {
        await sql`create function refuse_c30() returns trigger language plpgsql as $$ begin if new.client_id = 'c30' then raise exception 'disk full (test)'; end if; return new; end $$`.execute(
          db,
        );
        await sql`create trigger refuse_c30 before insert on health_snapshots for each row execute function refuse_c30()`.execute(db);
      } else {
        await sql`create trigger refuse_c30 before insert on health_snapshots when new.client_id = 'c30' begin select raise(abort, 'disk full (test)'); end`.execute(
          db,
        );
      }
      await expect(recomputeHealth(db, { workspaceId: WS, now: NOW })).rejects.toThrow(/disk full \(test\)/);
      const written = await db
        .selectFrom('health_snapshots')
        .select((e) => e.fn.count<number>('client_id').distinct().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(written.n)).toBeGreaterThan(0);
      expect(Number(written.n)).toBeLessThan(60);
      const last = await db.selectFrom('health_snapshots').select('client_id').where('client_id', '=', 'c30').executeTakeFirst();
      expect(last).toBeUndefined();
      await store.close();
    });
  });
}
