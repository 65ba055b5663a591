/**
 * A client that says it will leave, or escalates, is news the day it happens: an alert goes out
 * at once to the owner and the client's CSM, once per client, signal and day of the message, and
 * again only when a new message says it again; a threat that reaches us late is still told. Both dialects, through the real health rebuild.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace, updateSettings } from '../index.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { recomputeHealth } from '../health/recompute.js';
import { insertInteractions, weeklyRoutine } from '../health/test-fixtures.js';
import { planNotifications } from './plan.js';
import { riskSignalAlerts } from './alerts.js';
import { seedClient } from './test-data.js';
import type { RiskSignalAlert } from './types.js';

afterAll(() => dropTestSchemas());

const WS = 'acme.com';
const CHURN = 1;
const ASKS = 4;

describe.each(await testDialects())('risk-signal alerts ($name)', (dialect) => {
  it('a threat that reaches us days late (a sync that caught up, a notifier that was down) is still told, once', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await createWorkspace(db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      await seedClient(db, WS, { id: 'globex', name: 'Globex', domain: 'globex.com', mrr: 5000 });
      // Friday's "we will not renew" first seen by the health rebuild on Monday.
      await insertInteractions(db, WS, [
        ...weeklyRoutine('globex'),
        {
          id: 'late-threat',
          clientId: 'globex',
          at: '2024-05-17T16:00:00.000Z',
          direction: 'inbound',
          sentiment: -0.5,
          thread: 'g-late',
          signals: CHURN | ASKS,
        },
      ]);
      const now = new Date('2024-05-20T08:00:00.000Z');
      await recomputeHealth(db, { workspaceId: WS, now });
      const plan = await planNotifications(db, WS, { now });
      expect(plan.messages.filter((m) => m.kind === 'risk_signal').map((m) => m.dedupeKey)).toEqual(['churn_intent:globex:2024-05-17']);
    } finally {
      await store.close();
    }
  });

  it('a stated intent to leave alerts owner and CSM at once, once, and again on a new threat', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await createWorkspace(db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      await seedClient(db, WS, { id: 'globex', name: 'Globex', domain: 'globex.com', mrr: 5000, csmOwner: 'cy@acme.com' });
      await seedClient(db, WS, { id: 'initech', name: 'Initech', domain: 'initech.com', mrr: 900 });
      await insertInteractions(db, WS, [
        ...weeklyRoutine('globex'),
        ...weeklyRoutine('initech'),
        { id: 'threat-1', clientId: 'globex', at: '2024-05-20T10:00:00.000Z', direction: 'inbound', sentiment: -0.6, thread: 'g-x', signals: CHURN | ASKS },
      ]);
      let now = new Date('2024-05-20T18:00:00.000Z');
      await recomputeHealth(db, { workspaceId: WS, now });

      const plan = await planNotifications(db, WS, { now });
      const alerts = plan.messages.filter((m) => m.kind === 'risk_signal');
      expect(alerts).toHaveLength(1);
      const a = alerts[0]!;
      expect(a.to).toEqual(['ana@acme.com', 'cy@acme.com']);
      expect(a.dedupeKey).toBe('churn_intent:globex:2024-05-20');
      expect(a.subject).toMatch(/Globex says they may leave/);
      expect(a.text).toMatch(/1 message in the last 90 days says they will leave or not renew/);
      expect((a.content as RiskSignalAlert).evidence.map((e) => e.interactionId)).toEqual(['threat-1']);

      // The next day, nothing new: the threat still holds (and caps the score), and its alert is
      // the same one (same key), so the sent-log sends it once.
      now = new Date('2024-05-21T18:00:00.000Z');
      await recomputeHealth(db, { workspaceId: WS, now, fromDay: '2024-05-21' });
      expect((await planNotifications(db, WS, { now })).messages.filter((m) => m.kind === 'risk_signal').map((m) => m.dedupeKey)).toEqual([
        'churn_intent:globex:2024-05-20',
      ]);
      const held = await db.selectFrom('clients').select('health_score').where('id', '=', 'globex').executeTakeFirstOrThrow();
      expect(held.health_score).toBeLessThan(40);

      // A second message saying it again: news again, and two angry people make an escalation.
      await insertInteractions(db, WS, [
        {
          id: 'threat-2',
          clientId: 'globex',
          at: '2024-05-22T10:00:00.000Z',
          direction: 'inbound',
          sentiment: -0.7,
          thread: 'g-x',
          signals: CHURN | ASKS,
          from: 'cfo@globex.com',
        },
      ]);
      now = new Date('2024-05-22T18:00:00.000Z');
      await recomputeHealth(db, { workspaceId: WS, now, fromDay: '2024-05-22' });
      const again = await riskSignalAlerts(db, WS, { now });
      expect(again.map((x) => [x.signal, x.clientId, x.date])).toEqual([
        ['churn_intent', 'globex', '2024-05-22'],
        ['escalation', 'globex', '2024-05-22'],
      ]);
      expect(again[0]!.text).toMatch(/2 messages in the last 90 days say they will leave/);

      // A week after the last threat it is old news: the score stays capped, no alert is planned.
      now = new Date('2024-05-30T18:00:00.000Z');
      await recomputeHealth(db, { workspaceId: WS, now, fromDay: '2024-05-23' });
      expect(await riskSignalAlerts(db, WS, { now })).toEqual([]);
      expect((await db.selectFrom('clients').select('health_score').where('id', '=', 'globex').executeTakeFirstOrThrow()).health_score).toBeLessThan(40);

      // The switch turns them off.
      now = new Date('2024-05-22T18:00:00.000Z');
      await updateSettings(db, WS, { notifications: { alertOnRiskSignals: false } });
      const off = await planNotifications(db, WS, { now });
      expect(off.messages.filter((m) => m.kind === 'risk_signal')).toEqual([]);
      expect(off.notes).toContain('notifications.alertOnRiskSignals is false');
    } finally {
      await store.close();
    }
  });
});
