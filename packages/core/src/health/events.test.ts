/**
 * What the health rebuild announces (docs/events.md), judged as a CS lead would: a client who
 * writes that they will leave is news once, the day it happens, and puts the client at risk; a
 * healthy client makes no noise; a client who recovers is announced as out of risk; last year's
 * threats found by a history import are not news; an excluded client is never announced; the
 * same rebuild run twice announces nothing new. Both dialects, through the real rebuild.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace, updateSettings } from '../index.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Db } from '../store/database.js';
import { recomputeHealth } from './recompute.js';
import { insertInteractions, weeklyRoutine } from './test-fixtures.js';
import { seedClient } from '../notify/test-data.js';
import type { AnyEngineEvent } from '../events/catalogue.js';
import { readOutbox } from '../events/outbox.js';

afterAll(() => dropTestSchemas());

const WS = 'acme.com';
const CHURN = 1;
const ASKS = 4;

async function allEvents(db: Db): Promise<AnyEngineEvent[]> {
  return (await readOutbox(db, 0, 10_000)).flatMap((r) => (r.event ? [r.event] : []));
}

const kinds = (events: AnyEngineEvent[], clientId?: string) =>
  events.filter((e) => !clientId || ('client' in e.data && e.data.client.id === clientId)).map((e) => e.type);

describe.each(await testDialects())('events of the health rebuild ($name)', (dialect) => {
  it('a client who writes they will cancel is announced at risk and as a churn threat, once, with what they said', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await createWorkspace(db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      await seedClient(db, WS, { id: 'globex', name: 'Globex', domain: 'globex.com', mrr: 5000, renewalDate: '2024-07-01', csmOwner: 'cy@acme.com' });
      await seedClient(db, WS, { id: 'initech', name: 'Initech', domain: 'initech.com', mrr: 900 });
      await insertInteractions(db, WS, [...weeklyRoutine('globex'), ...weeklyRoutine('initech')]);
      let now = new Date('2024-05-19T18:00:00.000Z');
      await recomputeHealth(db, { workspaceId: WS, now });
      // Two content clients, first scored: nothing to tell.
      expect(kinds(await allEvents(db))).toEqual([]);

      await insertInteractions(db, WS, [
        { id: 'threat', clientId: 'globex', at: '2024-05-20T10:00:00.000Z', direction: 'inbound', sentiment: -0.6, thread: 'g-x', signals: CHURN | ASKS },
      ]);
      now = new Date('2024-05-20T18:00:00.000Z');
      await recomputeHealth(db, { workspaceId: WS, now, fromDay: '2024-05-20' });
      const events = await allEvents(db);
      expect(kinds(events, 'initech')).toEqual([]);
      expect(kinds(events, 'globex').sort()).toEqual(['client.churn_intent', 'client.risk_entered', 'client.score_changed']);
      const threat = events.find((e) => e.type === 'client.churn_intent');
      expect(threat?.type === 'client.churn_intent' && threat.data).toMatchObject({
        client: { id: 'globex', name: 'Globex', domain: 'globex.com', mrr: 5000, renewalDate: '2024-07-01', csmOwner: 'cy@acme.com' },
        interactionIds: ['threat'],
        lastMessageAt: '2024-05-20T10:00:00.000Z',
      });
      const risk = events.find((e) => e.type === 'client.risk_entered');
      expect(risk?.type === 'client.risk_entered' && risk.data.score).toBeLessThan(40);
      expect(risk?.type === 'client.risk_entered' && risk.data.reasonText).toMatch(/leave|renew/);
      expect(risk?.occurredAt).toBe(now.toISOString());

      // The daily run the next day, and the same rebuild again: the threat still holds, but it is not news.
      now = new Date('2024-05-21T18:00:00.000Z');
      await recomputeHealth(db, { workspaceId: WS, now, fromDay: '2024-05-21' });
      await recomputeHealth(db, { workspaceId: WS, now });
      expect(kinds(await allEvents(db), 'globex').sort()).toEqual(['client.churn_intent', 'client.risk_entered', 'client.score_changed']);
    } finally {
      await store.close();
    }
  });

  it('a history import does not announce last year’s threats, only where clients stand', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await createWorkspace(db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      await seedClient(db, WS, { id: 'globex', domain: 'globex.com' });
      await insertInteractions(db, WS, [
        ...weeklyRoutine('globex', '2023-05-20T09:00:00.000Z'),
        { id: 'old-threat', clientId: 'globex', at: '2023-05-20T10:00:00.000Z', direction: 'inbound', sentiment: -0.6, thread: 'g-x', signals: CHURN | ASKS },
      ]);
      await recomputeHealth(db, { workspaceId: WS, now: new Date('2023-07-20T18:00:00.000Z') });
      expect(kinds(await allEvents(db))).not.toContain('client.churn_intent');
    } finally {
      await store.close();
    }
  });

  it('a client at risk that recovers is announced out of risk; an excluded client is never announced', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await createWorkspace(db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      await seedClient(db, WS, { id: 'hooli', domain: 'hooli.com', score: 25 });
      await seedClient(db, WS, { id: 'vandelay', domain: 'vandelay.com', excluded: true });
      await db.updateTable('clients').set({ risk_state: 1, announced_score: 25 }).where('id', '=', 'hooli').execute();
      await insertInteractions(db, WS, [
        ...weeklyRoutine('hooli', '2024-05-20T09:00:00.000Z', 0.7),
        ...weeklyRoutine('vandelay'),
        { id: 'v-threat', clientId: 'vandelay', at: '2024-05-20T10:00:00.000Z', direction: 'inbound', sentiment: -0.8, thread: 'v-x', signals: CHURN | ASKS },
      ]);
      await recomputeHealth(db, { workspaceId: WS, now: new Date('2024-05-20T18:00:00.000Z') });
      const events = await allEvents(db);
      expect(kinds(events, 'vandelay')).toEqual([]);
      expect(kinds(events, 'hooli').sort()).toEqual(['client.risk_cleared', 'client.score_changed']);
      const cleared = events.find((e) => e.type === 'client.risk_cleared');
      expect(cleared?.type === 'client.risk_cleared' && cleared.data).toMatchObject({ previousScore: 25, threshold: 40 });
      // The excluded client's standing is still kept, so lifting the exclusion does not replay old news as new.
      const v = await db.selectFrom('clients').select(['risk_state']).where('id', '=', 'vandelay').executeTakeFirstOrThrow();
      expect(v.risk_state).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('a score that slides a little each day is announced once the slide reaches the workspace’s minDelta', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await createWorkspace(db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      await seedClient(db, WS, { id: 'globex', domain: 'globex.com' });
      await insertInteractions(db, WS, weeklyRoutine('globex'));
      await recomputeHealth(db, { workspaceId: WS, now: new Date('2024-05-19T18:00:00.000Z') });
      const first = await db.selectFrom('clients').select(['health_score', 'announced_score']).where('id', '=', 'globex').executeTakeFirstOrThrow();
      expect(first.announced_score).toBe(first.health_score);
      // Silence: the score decays day by day. With a minDelta of 100 nothing is ever announced…
      await updateSettings(db, WS, { events: { scoreChangeMinDelta: 100 } });
      await recomputeHealth(db, { workspaceId: WS, now: new Date('2024-06-10T18:00:00.000Z') });
      expect(kinds(await allEvents(db))).not.toContain('client.score_changed');
      // …with 5, the slide since the last announced score is.
      await updateSettings(db, WS, { events: { scoreChangeMinDelta: 5 } });
      await recomputeHealth(db, { workspaceId: WS, now: new Date('2024-07-10T18:00:00.000Z') });
      const moved = (await allEvents(db)).filter((e) => e.type === 'client.score_changed');
      expect(moved).toHaveLength(1);
      const m = moved[0]!;
      expect(m.type === 'client.score_changed' && m.data.previousScore).toBe(first.health_score);
      expect(m.type === 'client.score_changed' && m.data.delta).toBeLessThanOrEqual(-5);
      expect(m.type === 'client.score_changed' && m.data.minDelta).toBe(5);
    } finally {
      await store.close();
    }
  });
});
