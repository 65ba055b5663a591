/**
 * Webhook delivery when things go wrong on either side, over SQLite and PostgreSQL: a receiver
 * that says it is gone (410), one failing for longer than the dispatcher's patience, a secret
 * rotated, a runner killed mid-delivery, an attempt that cannot be made, two runners sharing a
 * PostgreSQL database. Receivers verify with `standardwebhooks`; time moves by polling with a
 * deadline and by draining at a given instant, never by fixed sleeps.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, postgresDialect, testDialects } from '../store/testing.js';
import { openStore } from '../store/database.js';
import { until } from '../test-support/until.js';
import { EVENT_TYPES } from './catalogue.js';
import { recordEvent } from './outbox.js';
import { claimDue, getDelivery, listDeliveries, settleAttempt } from './deliveries.js';
import {
  createEndpoint,
  endpointTarget,
  getEndpoint,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
  SECRET_GRACE_MS,
  type WebhookEndpoint,
} from './endpoints.js';
import { WebhookDispatcher, signatureHeaders } from './dispatcher.js';
import { createSender } from './send.js';
import { accept, countById, drainUntil, LOCAL, SAMPLES, setUp, startServer, testSecretKey, verifies, addWorkspace, WS } from './receiver.harness.js';

afterAll(() => dropTestSchemas());

describe('webhook delivery, recovery', async () => {
  for (const dialect of await testDialects()) {
    describe(dialect.name, () => {
      it('410 disables the endpoint (gone): later events are not sent; a test event still is; re-enabled, what was pending goes', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server((_r, n) => (n === 0 ? { status: 410 } : { status: 200 }));
          const { endpoint: ep, secret } = await ctx.endpoint(receiver.url);
          const disabled: Array<[WebhookEndpoint, string]> = [];
          const d = ctx.dispatcher({ concurrency: 1, onDisabled: (e, why) => void disabled.push([e, why]) });
          const queued = [await ctx.record('client.risk_entered'), await ctx.record('client.churn_intent'), await ctx.record('client.escalation')];
          expect(await d.drain()).toBe(1);
          const gone = await getEndpoint(ctx.db, WS, ep.id);
          expect(gone).toMatchObject({ enabled: false, disabledReason: 'gone' });
          expect(disabled).toHaveLength(1);
          expect(disabled[0]![0]).toMatchObject({ id: ep.id, enabled: false, disabledReason: 'gone' });
          expect(disabled[0]![1]).toBe('gone');
          expect((await ctx.deliveries(ep.id)).filter((x) => x.state === 'failed')).toHaveLength(1);

          // While disabled: nothing goes, and new events make no delivery for it.
          const whileGone = await ctx.record('job.failed');
          expect(await d.drain()).toBe(0);
          expect(receiver.requests).toHaveLength(1);
          expect(await ctx.deliveries(ep.id)).toHaveLength(3);
          // "Send test event" is how one checks a receiver before enabling it again.
          const test = await sendTestEvent(ctx.db, WS, ep.id);
          await drainUntil(d, async () => (await getDelivery(ctx.db, WS, test.deliveryId))?.state === 'succeeded');
          expect(receiver.requests).toHaveLength(2);
          expect(accept(secret, receiver.requests[1]!)).toMatchObject({ id: test.eventId, type: 'webhook.test', data: { endpointId: ep.id } });
          expect(await getEndpoint(ctx.db, WS, ep.id)).toMatchObject({ enabled: false, disabledReason: 'gone' });

          await updateEndpoint(ctx.db, WS, ep.id, { enabled: true });
          const after = await ctx.record('job.completed');
          await drainUntil(d, async () => (await ctx.deliveries(ep.id)).every((x) => x.state !== 'pending'));
          const sent = receiver.requests.slice(2).map((r) => accept(secret, r).id);
          const first = receiver.requests[0]!.headers['webhook-id'];
          expect(sent.sort()).toEqual([...queued.map((e) => e.id).filter((id) => id !== first), after.id].sort());
          expect(sent).not.toContain(whileGone.id);
          expect(disabled).toHaveLength(1);
        } finally {
          await ctx.close();
        }
      });

      it('an endpoint failing for longer than disableAfterMs is disabled (failing), reported once', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server(() => ({ status: 503 }));
          const { endpoint: ep } = await ctx.endpoint(receiver.url);
          const reported: string[] = [];
          const d = ctx.dispatcher({
            disableAfterMs: 200,
            retryScheduleMs: Array<number>(40).fill(30),
            onDisabled: (e, why) => void reported.push(`${e.id}:${why}`),
          });
          await ctx.record('client.risk_entered');
          await ctx.record('client.escalation');
          const started = Date.now();
          await drainUntil(d, async () => (await getEndpoint(ctx.db, WS, ep.id))?.enabled === false);
          const off = await getEndpoint(ctx.db, WS, ep.id);
          expect(off).toMatchObject({ enabled: false, disabledReason: 'failing' });
          expect(Date.now() - started).toBeGreaterThanOrEqual(200);
          // Its deliveries wait (pending) for it to be enabled again; nothing more is sent or reported.
          const seen = receiver.requests.length;
          expect(await d.drain(new Date(Date.now() + 60_000))).toBe(0);
          expect(receiver.requests).toHaveLength(seen);
          expect((await ctx.deliveries(ep.id)).every((x) => x.state === 'pending')).toBe(true);
          expect(reported).toEqual([`${ep.id}:failing`]);
        } finally {
          await ctx.close();
        }
      });

      it('secret rotation: during the grace both secrets verify the next delivery, after it only the new one', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server();
          const { endpoint: ep, secret: oldSecret } = await ctx.endpoint(receiver.url);
          const rotated = await rotateEndpointSecret(ctx.db, ctx.key, WS, ep.id);
          expect(rotated.secret).toMatch(/^whsec_/);
          expect(rotated.secret).not.toBe(oldSecret);
          expect(Date.parse(rotated.previousValidUntil) - Date.now()).toBeGreaterThan(SECRET_GRACE_MS - 60_000);
          const d = ctx.dispatcher();
          await ctx.record('client.risk_entered');
          expect(await d.drain()).toBe(1);
          const during = receiver.requests[0]!;
          expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
          expect(verifies(oldSecret, during)).toBe(true);
          expect(verifies(rotated.secret, during)).toBe(true);
          // Seen from a day later, only the new secret signs.
          const target = await endpointTarget(ctx.db, ctx.key, ep.id, new Date(Date.now() + SECRET_GRACE_MS + 1000));
          expect(target?.secrets).toEqual([rotated.secret]);

          // A rotation made more than a day ago: its previous secret has expired.
          const again = await rotateEndpointSecret(ctx.db, ctx.key, WS, ep.id, new Date(Date.now() - SECRET_GRACE_MS - 60_000));
          await ctx.record('client.risk_cleared');
          expect(await d.drain()).toBe(1);
          const afterGrace = receiver.requests[1]!;
          expect(afterGrace.headers['webhook-signature']!.split(' ')).toHaveLength(1);
          expect(verifies(again.secret, afterGrace)).toBe(true);
          expect(verifies(rotated.secret, afterGrace)).toBe(false);
          expect(verifies(oldSecret, afterGrace)).toBe(false);
          for (const secret of [oldSecret, rotated.secret, again.secret])
            expect(ctx.logger.lines.some((l) => l.includes(secret.slice('whsec_'.length)))).toBe(false);
        } finally {
          await ctx.close();
        }
      });

      it('an attempt that cannot be made (a runner with the wrong secret key) leaves the delivery queued, untried, and does not spin', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server();
          const { endpoint: ep, secret } = await ctx.endpoint(receiver.url);
          await ctx.record('client.risk_entered');
          const misconfigured = ctx.dispatcher({ secretKey: testSecretKey() });
          // One pass, and it ends.
          expect(await misconfigured.drain()).toBe(0);
          expect(receiver.requests).toHaveLength(0);
          expect(ctx.logger.lines.filter((l) => l.includes('could not be attempted'))).toHaveLength(1);
          expect(await ctx.only(ep.id)).toMatchObject({ state: 'pending', attempts: 0, history: [] });
          // Not taken again at once (its lease runs out first): no tight loop of failures.
          expect(await misconfigured.drain()).toBe(0);
          expect(ctx.logger.lines.filter((l) => l.includes('could not be attempted'))).toHaveLength(1);
          // Once the lease has run out, a runner with the right key delivers it.
          expect(await ctx.dispatcher().drain(new Date(Date.now() + 120_000))).toBe(1);
          expect(accept(secret, receiver.requests[0]!).type).toBe('client.risk_entered');
          expect(await ctx.only(ep.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
        } finally {
          await ctx.close();
        }
      });

      it('a runner killed mid-delivery: once its lease expires another runner sends the event again, same webhook-id', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server();
          const { endpoint: ep, secret } = await ctx.endpoint(receiver.url);
          const event = await ctx.record('client.churn_intent');
          // The dead runner claimed the delivery and got its request out, then died before recording it.
          const leaseMs = 1500;
          const [claimed] = await claimDue(ctx.db, 'runner-killed', leaseMs, 10);
          expect(claimed?.eventId).toBe(event.id);
          const target = (await endpointTarget(ctx.db, ctx.key, ep.id))!;
          const body = JSON.stringify(event);
          const sender = createSender({ allowPrivate: true });
          expect((await sender.send(target.url, signatureHeaders(event, body, target.secrets, new Date()), body, 5000)).status).toBe(200);
          sender.close();

          const survivor = ctx.dispatcher();
          // The lease still holds: nobody sends it.
          expect(await survivor.drain()).toBe(0);
          expect(receiver.requests).toHaveLength(1);
          // Expired: the survivor sends it.
          await until(async () => (await survivor.drain()) > 0, 15_000);
          expect(receiver.requests).toHaveLength(2);
          expect(receiver.requests.map((r) => accept(secret, r).id)).toEqual([event.id, event.id]);
          expect(await ctx.only(ep.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
          // The dead runner's late word is refused: the lease is no longer its.
          const late = await settleAttempt(
            ctx.db,
            claimed!,
            'runner-killed',
            { at: new Date().toISOString(), status: 500, error: 'HTTP 500', durationMs: 1 },
            { kind: 'retry' },
          );
          expect(late).toBeNull();
          expect(await ctx.only(ep.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
        } finally {
          await ctx.close();
        }
      });
    });
  }

  it.runIf((await testDialects()).includes(postgresDialect))('two runners on one PostgreSQL database: 300 events, each delivered once', async () => {
    const { url, schema } = await postgresDialect.url();
    const a = await openStore({ url, ...(schema ? { schema } : {}), poolSize: 4 });
    const b = await openStore({ url, ...(schema ? { schema } : {}), poolSize: 4 });
    const receiver = await startServer(() => ({ status: 200, delayMs: 2 }));
    const key = testSecretKey();
    const made = { a: 0, b: 0 };
    const runners = [
      new WebhookDispatcher({ db: a.db, secretKey: key, allowPrivate: true, pollMs: 20, owner: 'runner-a', onAttempt: () => void (made.a += 1) }),
      new WebhookDispatcher({ db: b.db, secretKey: key, allowPrivate: true, pollMs: 20, owner: 'runner-b', onAttempt: () => void (made.b += 1) }),
    ];
    try {
      await addWorkspace(a.db, WS);
      const { endpoint: ep, secret } = await createEndpoint(a.db, key, { workspaceId: WS, url: receiver.url, events: EVENT_TYPES }, LOCAL);
      const ids: string[] = [];
      for (let batch = 0; batch < 6; batch++) {
        await a.db.transaction().execute(async (trx) => {
          for (let i = 0; i < 50; i++) {
            const e = await recordEvent(trx, { workspaceId: WS, type: 'client.score_changed', data: SAMPLES['client.score_changed'], occurredAt: new Date() });
            ids.push(e!.id);
          }
        });
      }
      for (const r of runners) r.start();
      await until(async () => (await listDeliveries(b.db, { workspaceId: WS, endpointId: ep.id, state: 'succeeded', limit: 1 })).total === 300, 25_000);
      await Promise.all(runners.map((r) => r.stop()));
      const counts = countById(receiver.requests);
      expect(counts.size).toBe(300);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      expect([...counts.keys()].sort()).toEqual([...ids].sort());
      expect(receiver.requests.every((r) => verifies(secret, r))).toBe(true);
      expect(made.a + made.b).toBe(300);
      expect(made.a).toBeGreaterThan(0);
      expect(made.b).toBeGreaterThan(0);
    } finally {
      await Promise.all(runners.map((r) => r.stop(0)));
      await receiver.close();
      await a.close();
      await b.close();
    }
  });
});
