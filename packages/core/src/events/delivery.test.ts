/**
 * Webhook delivery as a receiving service sees it, over SQLite and PostgreSQL. The receivers are
 * local node:http servers that verify every request with the `standardwebhooks` package (never
 * our signing code) and validate every payload against the published JSON Schema with ajv.
 * Time moves by polling with a deadline (`until`) and by draining at a given instant, never by
 * fixed sleeps.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { until } from '../test-support/until.js';
import { claimNextJob, enqueueJob, transitionJob } from '../jobs/repository.js';
import { connectIntegration, markNeedsReauth } from '../integrations/repository.js';
import type { EventType } from './catalogue.js';
import { recordEvent } from './outbox.js';
import { getEndpoint } from './endpoints.js';
import { createSender } from './send.js';
import { accept, countById, drainUntil, SAMPLES, setUp, verifies, WS } from './receiver.harness.js';

afterAll(() => dropTestSchemas());

describe('webhook delivery', async () => {
  for (const dialect of await testDialects()) {
    describe(dialect.name, () => {
      it('a scripted day: every event reaches the receiver once per webhook-id, verified and valid by its schema', async () => {
        const ctx = await setUp(dialect);
        try {
          const { db } = ctx;
          const receiver = await ctx.server();
          const jobsOnly = await ctx.server();
          const all = await ctx.endpoint(`${receiver.url}/hooks/chs`);
          const failures = await ctx.endpoint(`${jobsOnly.url}/jobs`, ['job.failed']);

          // What the engine records in the transactions of its changes.
          for (const type of [
            'client.risk_entered',
            'client.score_changed',
            'client.churn_intent',
            'client.escalation',
            'client.suggested',
            'client.risk_cleared',
          ] as const)
            await ctx.record(type);
          // The same fact twice is one event.
          const once = () =>
            db.transaction().execute((trx) =>
              recordEvent(trx, {
                workspaceId: WS,
                type: 'client.churn_intent',
                data: SAMPLES['client.churn_intent'],
                occurredAt: new Date(),
                dedupeKey: 'churn:int_9',
              }),
            );
          expect(await once()).not.toBeNull();
          expect(await once()).toBeNull();
          // A change that rolls back announces nothing.
          await expect(
            db.transaction().execute(async (trx) => {
              await recordEvent(trx, { workspaceId: WS, type: 'client.risk_entered', data: SAMPLES['client.risk_entered'], occurredAt: new Date() });
              throw new Error('the change failed');
            }),
          ).rejects.toThrow('the change failed');
          // A sync that completes, another that fails.
          const sync = await enqueueJob(db, { workspaceId: WS, kind: 'sync', source: 'google' });
          expect((await claimNextJob(db, 'runner-1', 60_000))?.id).toBe(sync.id);
          expect(await transitionJob(db, sync.id, 'running', 'completed', { owner: 'runner-1' })).not.toBeNull();
          const crm = await enqueueJob(db, { workspaceId: WS, kind: 'sync', source: 'hubspot' });
          expect((await claimNextJob(db, 'runner-1', 60_000))?.id).toBe(crm.id);
          expect(await transitionJob(db, crm.id, 'running', 'failed', { owner: 'runner-1', patch: { lastError: 'HubSpot refused the token' } })).not.toBeNull();
          // A mailbox whose credentials were refused: announced once, however often it is marked.
          await connectIntegration(db, ctx.key, { workspaceId: WS, provider: 'google', credentials: { accessToken: 'ya29.x' }, accountEmail: 'rep@acme.test' });
          await markNeedsReauth(db, WS, 'google', 'invalid_grant');
          await markNeedsReauth(db, WS, 'google', 'invalid_grant');

          const expected = [
            'client.risk_entered',
            'client.score_changed',
            'client.churn_intent',
            'client.escalation',
            'client.suggested',
            'client.risk_cleared',
            'client.churn_intent',
            'job.completed',
            'job.failed',
            'integration.needs_reauth',
          ].sort();
          const d = ctx.dispatcher();
          d.start();
          await until(
            async () =>
              (await ctx.deliveries(all.endpoint.id)).every((x) => x.state === 'succeeded') &&
              (await ctx.deliveries(failures.endpoint.id)).every((x) => x.state === 'succeeded'),
          );
          await d.stop();
          // Nothing is left to send: another pass sends nothing again.
          expect(await ctx.dispatcher().drain()).toBe(0);

          const got = receiver.requests.map((r) => accept(all.secret, r));
          expect(got.map((e) => e.type).sort()).toEqual(expected);
          expect([...countById(receiver.requests).values()].every((n) => n === 1)).toBe(true);
          for (const r of receiver.requests) {
            expect(r.method).toBe('POST');
            expect(r.path).toBe('/hooks/chs');
            expect(verifies(failures.secret, r)).toBe(false);
          }
          const byType = (t: EventType) => got.filter((e) => e.type === t);
          expect(byType('job.completed')[0]).toMatchObject({ workspaceId: WS, data: { job: { id: sync.id, kind: 'sync', source: 'google' } } });
          expect(byType('job.failed')[0]).toMatchObject({ data: { job: { id: crm.id, source: 'hubspot' }, error: 'HubSpot refused the token' } });
          expect(byType('integration.needs_reauth')[0]).toMatchObject({ data: { provider: 'google', account: 'rep@acme.test', reason: 'invalid_grant' } });
          expect(byType('client.risk_entered')[0]?.data).toEqual(SAMPLES['client.risk_entered']);
          // Each endpoint gets what it chose.
          expect(jobsOnly.requests.map((r) => accept(failures.secret, r).type)).toEqual(['job.failed']);
          expect(jobsOnly.requests[0]!.headers['webhook-id']).toBe(byType('job.failed')[0]!.id);
          for (const x of await ctx.deliveries(all.endpoint.id)) expect(x).toMatchObject({ state: 'succeeded', attempts: 1, lastStatus: 200, lastError: null });
          // Secrets never in a log line.
          for (const secret of [all.secret, failures.secret]) expect(ctx.logger.lines.some((l) => l.includes(secret.slice('whsec_'.length)))).toBe(false);
        } finally {
          await ctx.close();
        }
      });

      it('receiver down for the first attempts: delivered once it is back, the failures in the history', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server();
          const { endpoint: ep, secret } = await ctx.endpoint(receiver.url);
          await receiver.down();
          const event = await ctx.record('client.risk_entered');
          const d = ctx.dispatcher({ retryScheduleMs: [50, 50, 50, 50, 50, 50] });
          await drainUntil(d, async () => (await ctx.only(ep.id)).attempts >= 2);
          const failing = await ctx.only(ep.id);
          expect(failing.state).toBe('pending');
          expect(failing.history.every((a) => a.status === null && /ECONNREFUSED|connect/i.test(a.error ?? ''))).toBe(true);
          // The next attempt waits for the schedule.
          expect(Date.parse(failing.nextAttemptAt!)).toBeGreaterThanOrEqual(Date.parse(failing.lastAttemptAt!) + 50);

          await receiver.up();
          await drainUntil(d, async () => (await ctx.only(ep.id)).state === 'succeeded');
          expect(receiver.requests).toHaveLength(1);
          expect(accept(secret, receiver.requests[0]!).id).toBe(event.id);
          const done = await ctx.only(ep.id);
          expect(done.attempts).toBe(done.history.length);
          expect(done.history.at(-1)).toMatchObject({ status: 200, error: null });
          expect(done.deliveredAt).not.toBeNull();
          expect((await getEndpoint(ctx.db, WS, ep.id))?.failingSince).toBeNull();
        } finally {
          await ctx.close();
        }
      });

      it('500, then 200: retried with the same webhook-id and delivered; every attempt in the history', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server((_r, n) => (n === 0 ? { status: 500, body: 'oops' } : { status: 204 }));
          const { endpoint: ep, secret } = await ctx.endpoint(receiver.url);
          const event = await ctx.record('client.churn_intent');
          await drainUntil(ctx.dispatcher(), async () => (await ctx.only(ep.id)).state === 'succeeded');
          expect(receiver.requests.map((r) => accept(secret, r).id)).toEqual([event.id, event.id]);
          const del = await ctx.only(ep.id);
          expect(del.history.map((a) => [a.status, a.error])).toEqual([
            [500, 'HTTP 500'],
            [204, null],
          ]);
          expect(del.attempts).toBe(2);
          // The failure was logged, without the secret.
          expect(ctx.logger.lines.some((l) => l.includes('will retry'))).toBe(true);
          expect(ctx.logger.lines.some((l) => l.includes(secret.slice('whsec_'.length)))).toBe(false);
        } finally {
          await ctx.close();
        }
      });

      it('an answer slower than the timeout: the attempt fails as timed out and the event is sent again', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server((_r, n) => (n === 0 ? 'hang' : { status: 200 }));
          const { endpoint: ep, secret } = await ctx.endpoint(receiver.url);
          await ctx.record('job.completed');
          const d = ctx.dispatcher({ timeoutMs: 300 });
          await drainUntil(d, async () => (await ctx.only(ep.id)).state === 'succeeded');
          const [first, second] = (await ctx.only(ep.id)).history;
          expect(first).toMatchObject({ status: null });
          expect(first!.error).toMatch(/300 ms/);
          expect(first!.durationMs).toBeGreaterThanOrEqual(290);
          expect(second).toMatchObject({ status: 200, error: null });
          expect(receiver.requests).toHaveLength(2);
          expect(new Set(receiver.requests.map((r) => accept(secret, r).id)).size).toBe(1);
        } finally {
          await ctx.close();
        }
      });

      it('a redirect is not followed: the target gets nothing, the attempt fails and is retried', async () => {
        const ctx = await setUp(dialect);
        try {
          const elsewhere = await ctx.server();
          const receiver = await ctx.server((_r, n) =>
            n < 2 ? { status: n === 0 ? 302 : 307, headers: { location: `${elsewhere.url}/moved` } } : { status: 200 },
          );
          const { endpoint: ep, secret } = await ctx.endpoint(receiver.url);
          await ctx.record('client.escalation');
          await drainUntil(ctx.dispatcher(), async () => (await ctx.only(ep.id)).state === 'succeeded');
          expect(elsewhere.requests).toHaveLength(0);
          const del = await ctx.only(ep.id);
          expect(del.history.map((a) => a.status)).toEqual([302, 307, 200]);
          expect(del.history[0]!.error).toMatch(/redirect .*not followed/);
          expect(receiver.requests.every((r) => verifies(secret, r))).toBe(true);
        } finally {
          await ctx.close();
        }
      });

      it('Retry-After is honoured: the next attempt is not before it, counted from the answer', async () => {
        const ctx = await setUp(dialect);
        try {
          // The answer comes 150 ms after the request: "2 seconds" count from the answer.
          const receiver = await ctx.server((_r, n) => (n === 0 ? { status: 503, headers: { 'retry-after': '2' }, delayMs: 150 } : { status: 200 }));
          const { endpoint: ep } = await ctx.endpoint(receiver.url);
          await ctx.record('client.score_changed');
          const d = ctx.dispatcher();
          expect(await d.drain()).toBe(1);
          const waiting = await ctx.only(ep.id);
          const answeredAt = receiver.requests[0]!.answeredAt!;
          expect(answeredAt).toBeGreaterThanOrEqual(receiver.requests[0]!.at + 140);
          expect(waiting.state).toBe('pending');
          expect(Date.parse(waiting.nextAttemptAt!)).toBeGreaterThanOrEqual(answeredAt + 2000);
          // Not due on the schedule's 50 ms: nothing is sent before it.
          expect(await d.drain(new Date(answeredAt + 1900))).toBe(0);
          expect(receiver.requests).toHaveLength(1);
          expect(await d.drain(new Date(Date.parse(waiting.nextAttemptAt!)))).toBe(1);
          expect((await ctx.only(ep.id)).state).toBe('succeeded');

          // An HTTP date works too.
          const later = new Date(Date.now() + 60_000);
          later.setMilliseconds(0);
          receiver.reply = (_r, n) => (n === 2 ? { status: 429, headers: { 'retry-after': later.toUTCString() } } : { status: 200 });
          await ctx.record('client.score_changed');
          expect(await d.drain()).toBe(1);
          const dated = (await ctx.deliveries(ep.id)).find((x) => x.state === 'pending')!;
          expect(Date.parse(dated.nextAttemptAt!)).toBeGreaterThanOrEqual(later.getTime());
        } finally {
          await ctx.close();
        }
      });

      it('when the whole schedule fails the delivery is failed, after 1 + schedule length attempts', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server(() => ({ status: 500 }));
          const { endpoint: ep } = await ctx.endpoint(receiver.url);
          const event = await ctx.record('client.risk_cleared');
          const d = ctx.dispatcher();
          await drainUntil(d, async () => (await ctx.only(ep.id)).state !== 'pending');
          const del = await ctx.only(ep.id);
          expect(del).toMatchObject({ state: 'failed', attempts: 4, lastStatus: 500, nextAttemptAt: null });
          expect(del.history).toHaveLength(4);
          expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id, event.id, event.id]);
          // Failed for good: not sent again.
          expect(await d.drain(new Date(Date.now() + 86_400_000))).toBe(0);
          // The endpoint is failing, but not for long enough to be disabled.
          expect(await getEndpoint(ctx.db, WS, ep.id)).toMatchObject({ enabled: true });
          expect((await getEndpoint(ctx.db, WS, ep.id))?.failingSince).not.toBeNull();
        } finally {
          await ctx.close();
        }
      });
    });
  }
});

describe('one attempt (send)', () => {
  it('an endpoint URL that cannot be read is a failed attempt, not a thrown error', async () => {
    const sender = createSender();
    try {
      const r = await sender.send('not a url', {}, '{}', 1000);
      expect(r).toMatchObject({ status: null });
      expect(r.error).toMatch(/not valid/);
    } finally {
      sender.close();
    }
  });
});
