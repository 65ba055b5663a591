/**
 * Slack: the Block Kit message of every event type (what it names, Slack's documented limits,
 * mail text that cannot ping a channel or forge a link), and delivery to a fake Slack incoming
 * webhook over SQLite and PostgreSQL: one message at a time per endpoint, spaced by
 * slackIntervalMs, a 429 waited out for its Retry-After.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { until } from '../test-support/until.js';
import { EVENT_TYPES, EVENT_VERSION, type AnyEngineEvent, type EventType } from './catalogue.js';
import { recordEvent } from './outbox.js';
import { createEndpoint } from './endpoints.js';
import { listDeliveries } from './deliveries.js';
import { WebhookDispatcher } from './dispatcher.js';
import { slackMessage, type SlackMessage } from './slack.js';
import { addWorkspace, CLIENT, SAMPLES, startServer, testSecretKey } from './receiver.harness.js';

afterAll(() => dropTestSchemas());

const WS = 'acme.test';
const PUBLIC_URL = 'https://chs.example.test/';

function event<T extends EventType>(type: T, data: unknown): AnyEngineEvent {
  return { id: 'evt_1', type, version: EVENT_VERSION, occurredAt: '2026-11-27T10:00:00.000Z', workspaceId: WS, data } as AnyEngineEvent;
}

/** Every text a reader sees (header, sections, fields, context, button labels) and the fallback. */
function texts(m: SlackMessage): string[] {
  const out = [m.text];
  for (const b of m.blocks as unknown as Array<Record<string, unknown>>) {
    const t = b.text as { text?: string } | undefined;
    if (t?.text !== undefined) out.push(t.text);
    for (const f of (b.fields as Array<{ text: string }> | undefined) ?? []) out.push(f.text);
    for (const el of (b.elements as Array<{ text?: string | { text: string } }> | undefined) ?? []) {
      if (typeof el.text === 'string') out.push(el.text);
      else if (el.text) out.push(el.text.text);
    }
  }
  return out;
}

/** Slack's documented limits (docs/events.md#slack), checked on a payload as Slack would. */
function expectWithinSlackLimits(m: SlackMessage): void {
  expect(typeof m.text).toBe('string');
  expect(m.text.length).toBeGreaterThan(0);
  expect(m.text.length).toBeLessThanOrEqual(40_000);
  expect(m.blocks.length).toBeGreaterThan(0);
  expect(m.blocks.length).toBeLessThanOrEqual(50);
  for (const b of m.blocks) {
    if (b.type === 'header') {
      expect(b.text.type).toBe('plain_text');
      expect(b.text.text.length).toBeLessThanOrEqual(150);
    } else if (b.type === 'section') {
      if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(3000);
      expect((b.fields ?? []).length).toBeLessThanOrEqual(10);
      for (const f of b.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(2000);
    } else if (b.type === 'context') {
      expect(b.elements.length).toBeLessThanOrEqual(10);
      for (const el of b.elements) if ('text' in el) expect(el.text.length).toBeLessThanOrEqual(3000);
    } else if (b.type === 'actions') {
      expect(b.elements.length).toBeLessThanOrEqual(25);
      for (const el of b.elements) {
        if (el.type !== 'button') continue;
        expect(el.text.text.length).toBeLessThanOrEqual(75);
        expect((el.url ?? '').length).toBeLessThanOrEqual(3000);
      }
    } else throw new Error(`unexpected block ${b.type}`);
  }
  // Nothing a reader sees can open a link, a mention or a channel ping: no raw `<`, and `>` only as a quote's mark.
  for (const t of texts(m)) {
    const at = `${t.slice(0, 80)}…`;
    expect(t.includes('<'), at).toBe(false);
    expect(/(?<!^)>|>(?! )/m.test(t), at).toBe(false);
    // A cut never leaves half an escape (`&am…`) or half a character.
    expect(/&[a-z]{0,4}…/.test(t), at).toBe(false);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(t), at).toBe(false);
  }
  expect(JSON.stringify(m).includes('<')).toBe(false);
}

const joined = (m: SlackMessage) => texts(m).join('\n');
const button = (m: SlackMessage) => {
  const actions = m.blocks.find((b) => b.type === 'actions');
  return actions?.type === 'actions' && actions.elements[0]?.type === 'button' ? actions.elements[0] : undefined;
};

describe('slackMessage', () => {
  it('names the client, score, reason, MRR and renewal, and links to the client page (risk and score events)', () => {
    for (const type of ['client.risk_entered', 'client.risk_cleared', 'client.score_changed'] as const) {
      const m = slackMessage(event(type, SAMPLES[type]), { publicUrl: PUBLIC_URL });
      expectWithinSlackLimits(m);
      const all = joined(m);
      expect(all).toContain('Globex');
      expect(all).toContain(SAMPLES[type].reasonText);
      expect(all).toContain(String(SAMPLES[type].score));
      expect(all).toContain('$1,200');
      expect(all).toContain('2026-03-01');
      expect(m.text).toContain('Globex');
      expect(button(m)?.url).toBe('https://chs.example.test/clients/cl_globex');
    }
    expect(slackMessage(event('client.risk_entered', SAMPLES['client.risk_entered'])).text).toMatch(/at risk/);
    expect(slackMessage(event('client.score_changed', SAMPLES['client.score_changed'])).text).toContain('-12');
    expect(
      slackMessage(event('client.risk_entered', SAMPLES['client.risk_entered']), { currency: 'EUR' }).blocks.some((b) => JSON.stringify(b).includes('€1,200')),
    ).toBe(true);
  });

  it('quotes what the client wrote (churn intent, escalation)', () => {
    for (const type of ['client.churn_intent', 'client.escalation'] as const) {
      const m = slackMessage(event(type, SAMPLES[type]), { publicUrl: PUBLIC_URL });
      expectWithinSlackLimits(m);
      const all = joined(m);
      expect(all).toContain('Globex');
      expect(all).toContain(`> ${SAMPLES[type].text}`);
      expect(all).toContain(String(SAMPLES[type].score));
      expect(all).toContain('$1,200');
      expect(all).toContain('2026-03-01');
      expect(button(m)?.url).toBe('https://chs.example.test/clients/cl_globex');
    }
  });

  it('suggested clients, jobs, reconnections and test events', () => {
    const suggested = slackMessage(event('client.suggested', SAMPLES['client.suggested']), { publicUrl: PUBLIC_URL });
    expect(joined(suggested)).toMatch(/Initech[\s\S]*initech\.test[\s\S]*cc_only/);
    expect(button(suggested)?.url).toBe('https://chs.example.test/clients/suggested');
    const done = slackMessage(event('job.completed', SAMPLES['job.completed']));
    expect(done.text).toMatch(/google sync finished/);
    expect(joined(done)).toContain('120 items read, 100 added');
    expect(joined(slackMessage(event('job.failed', SAMPLES['job.failed'])))).toContain('the provider refused the token');
    const reauth = slackMessage(event('integration.needs_reauth', SAMPLES['integration.needs_reauth']), { publicUrl: PUBLIC_URL });
    expect(reauth.text).toMatch(/google \(rep@acme\.test\) must be connected again/);
    expect(button(reauth)?.url).toBe('https://chs.example.test/sources');
    const test = slackMessage(event('webhook.test', { message: 'hello', endpointId: 'wh_1' }));
    expect(joined(test)).toContain('wh_1');
    for (const type of [...EVENT_TYPES]) {
      expectWithinSlackLimits(slackMessage(event(type, SAMPLES[type]), { publicUrl: PUBLIC_URL }));
      // Without the dashboard's address there is no link to follow.
      expect(button(slackMessage(event(type, SAMPLES[type])))).toBeUndefined();
    }
  });

  it('huge, hostile names and quotes stay within the limits and cannot ping, link or forge', () => {
    const hostile = 'Evil & Co <!channel> <http://evil.example|click here> <@U123> ';
    const name = `${hostile}${'é🙂x'.repeat(2500)}`;
    const client = { ...CLIENT, id: 'cl_<!here>', name, domain: `<!everyone>${'d'.repeat(3000)}.test`, csmOwner: hostile };
    const sentence = `${hostile}${'We will cancel & leave <soon>. '.repeat(400)}`.slice(0, 10_000);
    const cases: AnyEngineEvent[] = [
      event('client.risk_entered', { ...SAMPLES['client.risk_entered'], client, reasonText: sentence }),
      event('client.score_changed', { ...SAMPLES['client.score_changed'], client, reasonText: sentence }),
      event('client.churn_intent', { ...SAMPLES['client.churn_intent'], client, text: sentence }),
      event('client.escalation', { ...SAMPLES['client.escalation'], client, text: `${'<'.repeat(5000)}${'&'.repeat(5000)}` }),
      event('client.suggested', { client: { id: 'cl_x', name, domain: client.domain }, discovery: hostile }),
      event('job.failed', { job: SAMPLES['job.failed'].job, error: sentence }),
      event('integration.needs_reauth', { provider: 'google', account: hostile, reason: sentence }),
    ];
    for (const e of cases) {
      const m = slackMessage(e, { publicUrl: PUBLIC_URL });
      expectWithinSlackLimits(m);
      const all = joined(m);
      expect(all.includes('&lt;!channel&gt;')).toBe(true);
      if (e.type.startsWith('client.') && e.type !== 'client.suggested') expect(button(m)?.url).toBe('https://chs.example.test/clients/cl_%3C!here%3E');
    }
    // The header's cut keeps the start of the name, escaped.
    const header = slackMessage(cases[0]!).blocks[0];
    expect(header?.type === 'header' && header.text.text.startsWith('🔴 Evil &amp; Co &lt;!channel&gt;')).toBe(true);
  });
});

describe('delivery to Slack', async () => {
  for (const dialect of await testDialects()) {
    it(`a fake Slack webhook gets readable messages within limits, spaced, with a 429 waited out (${dialect.name})`, async () => {
      const store = await dialect.open();
      // Slack answers 200 "ok"; once, 429 with Retry-After: 1 (seconds).
      const slack = await startServer((_r, n) =>
        n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: 'rate_limited' } : { status: 200, body: 'ok' },
      );
      const key = testSecretKey();
      const intervalMs = 150;
      const d = new WebhookDispatcher({
        db: store.db,
        secretKey: key,
        allowPrivate: true,
        pollMs: 20,
        slackIntervalMs: intervalMs,
        publicUrl: PUBLIC_URL,
        retryScheduleMs: [50, 50, 50],
      });
      try {
        await addWorkspace(store.db, WS);
        const { endpoint: ep } = await createEndpoint(
          store.db,
          key,
          { workspaceId: WS, url: `${slack.url}/services/T000/B000/XXXX`, kind: 'slack', events: EVENT_TYPES },
          { allowPrivate: true },
        );
        const huge = { ...CLIENT, name: `Globex <!channel> <http://evil|x> ${'g'.repeat(10_000)}` };
        const churn = `We are moving to a competitor <!channel> <http://evil|x> ${'w'.repeat(10_000)}`;
        await store.db.transaction().execute(async (trx) => {
          const at = new Date();
          await recordEvent(trx, { workspaceId: WS, type: 'client.risk_entered', data: SAMPLES['client.risk_entered'], occurredAt: at });
          await recordEvent(trx, {
            workspaceId: WS,
            type: 'client.churn_intent',
            data: { ...SAMPLES['client.churn_intent'], client: huge, text: churn },
            occurredAt: at,
          });
          await recordEvent(trx, { workspaceId: WS, type: 'job.completed', data: SAMPLES['job.completed'], occurredAt: at });
          await recordEvent(trx, { workspaceId: WS, type: 'integration.needs_reauth', data: SAMPLES['integration.needs_reauth'], occurredAt: at });
        });
        d.start();
        await until(async () => (await listDeliveries(store.db, { workspaceId: WS, endpointId: ep.id, state: 'succeeded' })).total === 4, 15_000);
        await d.stop();

        expect(slack.requests).toHaveLength(5);
        const payloads = slack.requests.map((r) => JSON.parse(r.body) as SlackMessage);
        for (const [i, r] of slack.requests.entries()) {
          expect(r.path).toBe('/services/T000/B000/XXXX');
          expect(r.headers['content-type']).toMatch(/^application\/json/);
          // Slack is not signed (its URL is the secret).
          expect(r.headers['webhook-signature']).toBeUndefined();
          expectWithinSlackLimits(payloads[i]!);
        }
        // One message at a time, at least slackIntervalMs apart; nothing until the 429's Retry-After has passed.
        for (let i = 1; i < slack.requests.length; i++) expect(slack.requests[i]!.at - slack.requests[i - 1]!.at).toBeGreaterThanOrEqual(intervalMs);
        const limited = slack.requests[1]!;
        expect(slack.requests[2]!.at - limited.at).toBeGreaterThanOrEqual(1000);
        // The limited message went again.
        expect(payloads.filter((p) => p.text === payloads[1]!.text)).toHaveLength(2);
        const history = (await listDeliveries(store.db, { workspaceId: WS, endpointId: ep.id })).deliveries.flatMap((x) => x.history.map((a) => a.status));
        expect(history.sort()).toEqual([200, 200, 200, 200, 429]);

        const risk = payloads.find((p) => p.text.includes('is at risk') && p.text.startsWith('🔴 Globex is'))!;
        const all = joined(risk);
        for (const s of ['Globex', '38', SAMPLES['client.risk_entered'].reasonText, '$1,200', '2026-03-01']) expect(all).toContain(s);
        expect(button(risk)?.url).toBe('https://chs.example.test/clients/cl_globex');
        const threat = payloads.find((p) => p.text.includes('may leave'))!;
        expect(joined(threat).includes('&lt;!channel&gt; &lt;http://evil|x&gt;')).toBe(true);
      } finally {
        await d.stop(0);
        await slack.close();
        await store.close();
      }
    });
  }
});
