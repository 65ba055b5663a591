/**
 * The webhook endpoints through HTTP, on both dialects: the secret shown once, targets refused by
 * the SSRF policy unless the operator allows them, unknown types refused, another workspace's ids
 * answered 404, update and disable, delete, a test event delivered (signed, verified with the
 * `standardwebhooks` package) through a dispatcher the route wakes, rotation with both secrets
 * valid, redelivery with the same webhook-id, and the event catalogue.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createWorkspace, EVENT_TYPES, loadOrCreateSecretKey, WebhookDispatcher } from '@chs/core';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { DEFAULT_WEBHOOKS_CONFIG } from '../../config.js';
import { startTestApp, type TestApp } from '../testing.js';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-testing.js';

afterAll(() => dropTestSchemas());

const dialects = await testDialects();

interface WebhookBody {
  id: string;
  url: string;
  events: string[];
  kind: string;
  enabled: boolean;
  disabledReason: string | null;
  description: string | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}
interface DeliveryBody {
  id: string;
  eventId: string;
  eventType: string;
  state: string;
  attempts: number;
  lastStatus: number | null;
  deliveredAt: string | null;
  history: { at: string; status: number | null; error: string | null; durationMs: number }[];
}
interface ErrorBody {
  error: string;
  code: string;
  status: number;
}

/** A public address given as an IP (no name lookup); nothing is ever sent to it in these tests. */
const PUBLIC = 'https://93.184.215.14/hooks/chs';
const ALLOW_PRIVATE = { ...DEFAULT_WEBHOOKS_CONFIG, allowPrivate: true, allowHttp: true };

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

describe.each(dialects.map((d) => [d.name, d] as const))('webhook endpoints over HTTP on %s', (_name, dialect) => {
  async function app(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp & { api: Api }> {
    const t = await startTestApp({ dialect, ...options });
    opened.push(() => t.close());
    return Object.assign(t, { api: api(t) });
  }

  type Api = ReturnType<typeof api>;
  function api(t: TestApp) {
    const q = `?workspaceId=${t.workspaceId}`;
    const call = async <T>(method: string, path: string, json?: unknown, key?: string) => {
      const res = await t.request(`/api/settings/webhooks${path}${path.includes('?') ? `&workspaceId=${t.workspaceId}` : q}`, {
        method,
        ...(json !== undefined ? { json } : {}),
        ...(key !== undefined ? { key } : {}),
      });
      return { status: res.status, body: (await res.json()) as T };
    };
    return {
      create: (json: unknown, key?: string) => call<{ webhook: WebhookBody } & ErrorBody>('POST', '', json, key),
      list: () => call<{ webhooks: WebhookBody[] }>('GET', ''),
      get: (id: string) => call<{ webhook: WebhookBody } & ErrorBody>('GET', `/${id}`),
      patch: (id: string, json: unknown) => call<{ webhook: WebhookBody } & ErrorBody>('PATCH', `/${id}`, json),
      remove: (id: string) => call<{ success: boolean; message: string } & ErrorBody>('DELETE', `/${id}`),
      test: (id: string) => call<{ eventId: string; deliveryId: string } & ErrorBody>('POST', `/${id}/test`),
      rotate: (id: string) => call<{ webhook: WebhookBody; secret: string; previousSecretValidUntil: string } & ErrorBody>('POST', `/${id}/rotate-secret`),
      deliveries: (id: string, query = '') => call<{ deliveries: DeliveryBody[]; total: number } & ErrorBody>('GET', `/${id}/deliveries${query}`),
      redeliver: (id: string, deliveryId: string) => call<{ delivery: DeliveryBody } & ErrorBody>('POST', `/${id}/deliveries/${deliveryId}/redeliver`),
    };
  }

  it('creates an endpoint: 201 with its whsec_ secret in that answer only; listed and read without it', async () => {
    const t = await app();
    const created = await t.api.create({ url: PUBLIC, events: ['client.risk_entered', 'job.failed', 'client.risk_entered'], description: 'Ops service' });
    expect(created.status).toBe(201);
    const w = created.body.webhook;
    expect(w).toMatchObject({
      url: PUBLIC,
      events: ['client.risk_entered', 'job.failed'],
      kind: 'standard',
      enabled: true,
      disabledReason: null,
      description: 'Ops service',
      failingSince: null,
    });
    expect(w.id).toMatch(/^wh_/);
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // The secret is never shown again, and is not stored in clear.
    const list = await t.api.list();
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toHaveLength(1);
    expect(list.body.webhooks[0]).not.toHaveProperty('secret');
    const { secret: _secret, ...shown } = w;
    expect(list.body.webhooks[0]).toEqual(shown);
    expect((await t.api.get(w.id)).body).toEqual({ webhook: shown });
    const row = await t.engine.store.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(w.secret!.slice(6));

    // A Slack endpoint.
    const slack = await t.api.create({ url: 'https://93.184.215.14/services/T0/B0/xyz', events: ['client.churn_intent'], kind: 'slack' });
    expect(slack.status).toBe(201);
    expect(slack.body.webhook).toMatchObject({ kind: 'slack', description: null });
    expect((await t.api.list()).body.webhooks.map((x) => x.kind)).toEqual(['standard', 'slack']);
  });

  it('refuses http, loopback, private, link-local and metadata targets unless the operator allows them (400 INVALID_INPUT saying why)', async () => {
    const t = await app();
    const refused: Array<[string, RegExp]> = [
      ['http://127.0.0.1:9/hook', /must be https/],
      ['http://93.184.215.14/hook', /must be https/],
      ['https://127.0.0.1/hook', /not a public address \(127\.0\.0\.1 is a loopback address\).*CHS_WEBHOOKS_ALLOW_PRIVATE/],
      ['https://10.0.0.1/hook', /10\.0\.0\.1 is a private address/],
      ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a linkLocal address/],
      ['https://[::1]/hook', /::1 is a loopback address/],
      // A name is judged by the addresses it resolves to.
      ['https://localhost:8443/hook', /localhost is not a public address \((127\.0\.0\.1|::1) is a loopback address\)/],
      ['https://0.0.0.0/hook', /not a public address/],
      ['https://user:pass@93.184.215.14/hook', /user name or password/],
      ['not a url', /not a URL/],
    ];
    for (const [url, why] of refused) {
      const r = await t.api.create({ url, events: ['job.completed'] });
      expect(r.status, url).toBe(400);
      expect(r.body, url).toMatchObject({ code: 'INVALID_INPUT', status: 400 });
      expect(r.body.error, url).toMatch(why);
    }
    // An update is held to the same policy.
    const ok = await t.api.create({ url: PUBLIC, events: ['job.completed'] });
    const moved = await t.api.patch(ok.body.webhook.id, { url: 'https://10.0.0.1/hook' });
    expect(moved.status).toBe(400);
    expect(moved.body.error).toMatch(/10\.0\.0\.1 is a private address/);
    expect((await t.api.list()).body.webhooks.map((w) => w.url)).toEqual([PUBLIC]);

    // CHS_WEBHOOKS_ALLOW_PRIVATE=1 (it implies http).
    const open = await app({ workspace: 'globex.com', config: { webhooks: ALLOW_PRIVATE } });
    for (const url of ['http://127.0.0.1:9/hook', 'https://10.0.0.1/hook', 'https://169.254.169.254/latest/meta-data/']) {
      const r = await open.api.create({ url, events: ['job.completed'] });
      expect(r.status, url).toBe(201);
      expect(r.body.webhook.url).toBe(url);
    }
    // CHS_WEBHOOKS_ALLOW_HTTP=1 alone: http to public addresses only.
    const http = await app({ workspace: 'initech.com', config: { webhooks: { ...DEFAULT_WEBHOOKS_CONFIG, allowHttp: true } } });
    expect((await http.api.create({ url: 'http://93.184.215.14/hook', events: ['job.completed'] })).status).toBe(201);
    const loop = await http.api.create({ url: 'http://127.0.0.1:9/hook', events: ['job.completed'] });
    expect(loop.status).toBe(400);
    expect(loop.body.error).toMatch(/loopback/);
  });

  it('refuses unknown event types (naming the known ones), no types, an unknown kind and unknown fields', async () => {
    const t = await app();
    const unknown = await t.api.create({ url: PUBLIC, events: ['client.risk_entered', 'client.exploded'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'INVALID_INPUT', status: 400 });
    expect(unknown.body.error).toContain('unknown type(s) client.exploded');
    expect(unknown.body.error).toContain(EVENT_TYPES.join(', '));
    // webhook.test is sent by “send test event” only.
    expect((await t.api.create({ url: PUBLIC, events: ['webhook.test'] })).status).toBe(400);
    for (const body of [
      { url: PUBLIC, events: [] },
      { url: PUBLIC },
      { events: ['job.failed'] },
      { url: PUBLIC, events: ['job.failed'], kind: 'teams' },
      { url: PUBLIC, events: ['job.failed'], secret: 'whsec_mine' },
      { url: PUBLIC, events: 'job.failed' },
    ]) {
      const r = await t.api.create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code, JSON.stringify(body)).toBe('VALIDATION_ERROR');
    }
    expect((await t.api.list()).body.webhooks).toEqual([]);
  });

  it('answers 404 NOT_FOUND for unknown ids and for another workspace’s, on every route', async () => {
    const t = await app();
    const other = await createWorkspace(t.engine.store.db, { domain: 'globex.com', name: 'Globex', ownerEmail: 'gil@globex.com' });
    const theirs = await t.request('/api/settings/webhooks?workspaceId=globex.com', {
      method: 'POST',
      json: { url: PUBLIC, events: ['job.completed'] },
      key: other.apiKey.key,
    });
    expect(theirs.status).toBe(201);
    const theirId = ((await theirs.json()) as { webhook: WebhookBody }).webhook.id;
    const theirTest = await t.request(`/api/settings/webhooks/${theirId}/test?workspaceId=globex.com`, { method: 'POST', key: other.apiKey.key });
    const theirDelivery = ((await theirTest.json()) as { deliveryId: string }).deliveryId;
    const mine = (await t.api.create({ url: PUBLIC, events: ['job.completed'] })).body.webhook.id;

    for (const id of [theirId, 'wh_nope']) {
      const answers = [
        await t.api.get(id),
        await t.api.patch(id, { enabled: false }),
        await t.api.remove(id),
        await t.api.test(id),
        await t.api.rotate(id),
        await t.api.deliveries(id),
        await t.api.redeliver(id, theirDelivery),
      ];
      for (const a of answers) {
        expect(a.status, id).toBe(404);
        expect(a.body, id).toMatchObject({ code: 'NOT_FOUND', status: 404 });
        expect(a.body.error, id).toContain(id);
      }
    }
    // Their delivery through my endpoint: still 404.
    const cross = await t.api.redeliver(mine, theirDelivery);
    expect(cross.status).toBe(404);
    expect(cross.body.code).toBe('NOT_FOUND');
    // Their key on my workspace: 403, as everywhere.
    const forbidden = await t.request(`/api/settings/webhooks?workspaceId=${t.workspaceId}`, { key: other.apiKey.key });
    expect(forbidden.status).toBe(403);
    // Nothing of theirs changed.
    const row = await t.engine.store.db.selectFrom('webhook_endpoints').select(['enabled']).where('id', '=', theirId).executeTakeFirstOrThrow();
    expect(row.enabled).toBe(1);
    expect(await t.engine.store.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', theirId).execute()).toHaveLength(1);
  });

  it('updates an endpoint: URL, types, description; disables it (reason user) and enables it again', async () => {
    const t = await app();
    const w = (await t.api.create({ url: PUBLIC, events: ['job.completed'] })).body.webhook;
    const changed = await t.api.patch(w.id, { url: 'https://93.184.215.15/v2', events: ['job.failed', 'integration.needs_reauth'], description: 'v2' });
    expect(changed.status).toBe(200);
    expect(changed.body.webhook).toMatchObject({
      url: 'https://93.184.215.15/v2',
      events: ['job.failed', 'integration.needs_reauth'],
      description: 'v2',
      enabled: true,
    });
    expect(changed.body.webhook.updatedAt >= w.updatedAt).toBe(true);
    const off = await t.api.patch(w.id, { enabled: false });
    expect(off.body.webhook).toMatchObject({ enabled: false, disabledReason: 'user' });
    expect((await t.api.get(w.id)).body.webhook).toMatchObject({ enabled: false, disabledReason: 'user' });
    const on = await t.api.patch(w.id, { enabled: true, description: null });
    expect(on.body.webhook).toMatchObject({ enabled: true, disabledReason: null, description: null, failingSince: null });
    // An empty patch, unknown fields and bad types are refused.
    for (const body of [{}, { enabled: 'no' }, { kind: 'slack' }, { events: [] }]) {
      const r = await t.api.patch(w.id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const bad = await t.api.patch(w.id, { events: ['client.nope'] });
    expect(bad.body).toMatchObject({ code: 'INVALID_INPUT', status: 400 });
  });

  it('deletes an endpoint with its deliveries (200 {success, message}); again it is 404', async () => {
    const t = await app();
    const w = (await t.api.create({ url: PUBLIC, events: ['job.completed'] })).body.webhook;
    expect((await t.api.test(w.id)).status).toBe(202);
    const del = await t.api.remove(w.id);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, message: 'Webhook endpoint deleted, with its deliveries' });
    expect((await t.api.get(w.id)).status).toBe(404);
    expect((await t.api.list()).body.webhooks).toEqual([]);
    expect(await t.engine.store.db.selectFrom('webhook_deliveries').select('id').execute()).toEqual([]);
    expect((await t.api.remove(w.id)).status).toBe(404);
  });

  it('a test event is queued (202), listed, and delivered signed by the dispatcher the route wakes; rotation signs with both secrets; a redelivery has the same webhook-id', async () => {
    const receiver: WebhookReceiver = await startWebhookReceiver();
    opened.push(() => receiver.close());
    // The route wakes whatever this is set to: the dispatcher, once made over the app's database.
    const wake = { nudge: (): void => undefined };
    const t = await app({ config: { webhooks: ALLOW_PRIVATE }, webhooks: { nudge: () => wake.nudge() } });
    // Polls once a minute: only the route's nudge makes a delivery quick.
    const dispatcher = new WebhookDispatcher({
      db: t.engine.store.db,
      secretKey: () => loadOrCreateSecretKey(t.config.dataDir, t.config.secretKey),
      allowPrivate: true,
      pollMs: 60_000,
      timeoutMs: 5000,
    });
    wake.nudge = () => dispatcher.nudge();
    opened.push(() => dispatcher.stop(1000));
    dispatcher.start();
    // Let the first (empty) look for due deliveries pass, so the dispatcher is asleep.
    await new Promise((r) => setTimeout(r, 300));

    const created = (await t.api.create({ url: `${receiver.url}/hooks?token=abc`, events: ['client.risk_entered'] })).body.webhook;
    const secret = created.secret!;
    const queued = await t.api.test(created.id);
    expect(queued.status).toBe(202);
    expect(queued.body.eventId).toMatch(/^evt_/);
    expect(queued.body.deliveryId).toMatch(/^dlv_/);

    const [got] = await receiver.waitFor(1, 10_000);
    expect(got!.path).toBe('/hooks?token=abc');
    expect(got!.id).toBe(queued.body.eventId);
    const payload = new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>) as Record<string, unknown>;
    expect(payload).toMatchObject({
      id: queued.body.eventId,
      type: 'webhook.test',
      version: 1,
      workspaceId: t.workspaceId,
      data: { endpointId: created.id },
    });
    // Another secret does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got!.body, got!.headers as Record<string, string>)).toThrow();

    const listed = await until(async () => {
      const r = await t.api.deliveries(created.id);
      return r.body.deliveries[0]?.state === 'succeeded' ? r : undefined;
    });
    expect(listed.body.total).toBe(1);
    expect(listed.body.deliveries[0]).toMatchObject({
      id: queued.body.deliveryId,
      eventId: queued.body.eventId,
      eventType: 'webhook.test',
      state: 'succeeded',
      attempts: 1,
      lastStatus: 200,
      nextAttemptAt: null,
    });
    expect(listed.body.deliveries[0]!.history).toHaveLength(1);
    expect(listed.body.deliveries[0]!.history[0]).toMatchObject({ status: 200, error: null });

    // Rotation: a new secret, once; both sign until the grace ends.
    const rotated = await t.api.rotate(created.id);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    expect(rotated.body.webhook).toEqual((await t.api.get(created.id)).body.webhook);
    expect(Date.parse(rotated.body.previousSecretValidUntil) - Date.now()).toBeGreaterThan(23 * 3_600_000);

    // Redelivery: 202, pending again, sent again with the same webhook-id, signed by both secrets.
    const again = await t.api.redeliver(created.id, queued.body.deliveryId);
    expect(again.status).toBe(202);
    expect(again.body.delivery).toMatchObject({ id: queued.body.deliveryId, eventId: queued.body.eventId, state: 'pending' });
    const [, second] = await receiver.waitFor(2, 10_000);
    expect(second!.id).toBe(queued.body.eventId);
    expect(String(second!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [secret, rotated.body.secret])
      expect(new Webhook(s).verify(second!.body, second!.headers as Record<string, string>)).toMatchObject({ id: queued.body.eventId });
    const after = await until(async () => {
      const r = await t.api.deliveries(created.id, '?state=succeeded');
      return r.body.deliveries[0]?.attempts === 2 ? r : undefined;
    });
    expect(after.body.deliveries[0]!.history.map((h) => h.status)).toEqual([200, 200]);

    // Paging and the state filter.
    await t.api.test(created.id);
    const all = await t.api.deliveries(created.id, '?limit=1');
    expect(all.body.total).toBe(2);
    expect(all.body.deliveries).toHaveLength(1);
    expect((await t.api.deliveries(created.id, '?limit=1&offset=1')).body.deliveries[0]!.id).toBe(queued.body.deliveryId);
    expect((await t.api.deliveries(created.id, '?state=failed')).body).toEqual({ deliveries: [], total: 0 });
    expect((await t.api.deliveries(created.id, '?state=lost')).status).toBe(400);
    expect((await t.api.deliveries(created.id, '?limit=0')).status).toBe(400);
    expect((await t.api.redeliver(created.id, 'dlv_nope')).status).toBe(404);
  });

  it('lists the event catalogue: every type an endpoint may choose, its description and JSON Schema', async () => {
    const t = await app();
    const r = await t.request(`/api/settings/webhooks/event-types?workspaceId=${t.workspaceId}`);
    expect(r.status).toBe(200);
    const { eventTypes } = (await r.json()) as { eventTypes: { type: string; description: string; schema: Record<string, unknown> }[] };
    expect(eventTypes.map((e) => e.type)).toEqual(EVENT_TYPES);
    for (const e of eventTypes) {
      expect(e.description, e.type).not.toBe('');
      expect(e.schema, e.type).toMatchObject({ title: e.type, type: 'object', properties: { type: { const: e.type }, data: { type: 'object' } } });
    }
    const risk = eventTypes.find((e) => e.type === 'client.risk_entered')!;
    expect(risk.schema).toMatchObject({ properties: { data: { properties: { client: { type: 'object' }, score: { type: 'number' } } } } });
  });
});

async function until<T>(fn: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
