import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createApiKey, createWorkspace, ERROR_CODES } from '@chs/core';
import { allErrorCodes, ERROR_TABLE } from './errors.js';
import { createLogger } from './logging.js';
import { MemoryRateLimitStore, rateLimitHeaders, windowsFor } from './rate-limit.js';
import { WorkspaceQuery } from './schemas.js';
import { hasDefaults } from './validation.js';
import { startTestApp } from './testing.js';
import type { RouteModule } from './types.js';

/** A route module exercising validation, a crash and logging, the way other modules will. */
const probe: RouteModule = () =>
  (async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/probe/list',
      {
        schema: {
          querystring: Type.Object({
            ...WorkspaceQuery.properties,
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            offset: Type.Integer({ minimum: 0, default: 0 }),
            flag: Type.Optional(Type.Boolean()),
            status: Type.Optional(Type.Union([Type.Literal('completed'), Type.Literal('failed')])),
            from: Type.Optional(Type.String({ format: 'date-time' })),
          }),
        },
      },
      async (request) => ({ query: request.query, auth: request.auth }),
    );
    app.get('/probe/boom', { schema: { querystring: WorkspaceQuery } }, async (request) => {
      request.log.info({ token: 'tok-secret-value', headers: request.headers }, 'about to fail');
      throw new Error('database password is hunter2 at /srv/secret/path');
    });
    app.post(
      '/probe/body',
      { schema: { body: Type.Object({ workspaceId: Type.String(), sinceDays: Type.Integer({ minimum: 1, maximum: 365 }) }, { additionalProperties: false }) } },
      async (request) => ({ sinceDays: request.body.sinceDays, auth: request.auth.workspaceId }),
    );
  }) satisfies FastifyPluginAsync;

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('validation of parameters', () => {
  it('fills defaults only for schemas that have some, however deep', () => {
    expect(hasDefaults(WorkspaceQuery)).toBe(false);
    expect(hasDefaults(Type.Object({ id: Type.String() }))).toBe(false);
    expect(hasDefaults(Type.Object({ limit: Type.Integer({ default: 50 }) }))).toBe(true);
    expect(hasDefaults(Type.Object({ page: Type.Object({ size: Type.Optional(Type.Union([Type.Integer({ default: 5 }), Type.Null()])) }) }))).toBe(true);
    expect(hasDefaults(Type.Object({ tags: Type.Array(Type.String({ default: 'x' })) }))).toBe(true);
  });

  it('parses query numbers, applies defaults, and refuses wrong types and out-of-range values (never clamped)', async () => {
    const t = await startTestApp({ extraRoutes: [probe] });
    try {
      const ok = await t.request(`/api/probe/list?workspaceId=${t.workspaceId}`);
      expect(ok.status).toBe(200);
      const body = (await ok.json()) as { query: Record<string, unknown>; auth: Record<string, unknown> };
      expect(body.query).toEqual({ workspaceId: 'acme.com', limit: 20, offset: 0 });
      expect(body.auth).toEqual({ workspaceId: 'acme.com', keyId: t.apiKeyId, userId: t.ownerId });

      const got = (await (
        await t.request(`/api/probe/list?workspaceId=${t.workspaceId}&limit=100&offset=5&flag=true&status=failed&from=2024-01-01T00:00:00Z`)
      ).json()) as { query: Record<string, unknown> };
      expect(got.query).toEqual({ workspaceId: 'acme.com', limit: 100, offset: 5, flag: true, status: 'failed', from: '2024-01-01T00:00:00Z' });

      for (const bad of [
        'limit=abc',
        'limit=101',
        'limit=0',
        'limit=1.5',
        'limit=true',
        'limit=',
        'offset=-1',
        'flag=yes',
        'status=running',
        'from=yesterday',
        'limit=10abc',
      ]) {
        const res = await t.request(`/api/probe/list?workspaceId=${t.workspaceId}&${bad}`);
        expect(res.status, bad).toBe(400);
        const err = (await res.json()) as Record<string, unknown>;
        expect(err, bad).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
      }
      // A `__proto__` parameter is just an (ignored) parameter.
      const proto = await t.request(`/api/probe/list?workspaceId=${t.workspaceId}&__proto__=x&constructor=y`);
      expect(proto.status).toBe(200);
      expect(((await proto.json()) as { query: Record<string, unknown> }).query).toMatchObject({ limit: 20 });
      const msg = (await (await t.request(`/api/probe/list?workspaceId=${t.workspaceId}&limit=101`)).json()) as { error: string };
      expect(msg.error).toMatch(/^querystring\.limit: .*100/);

      // Bodies are not coerced: a number sent as text is a wrong type.
      expect((await t.request('/api/probe/body', { method: 'POST', json: { workspaceId: t.workspaceId, sinceDays: 30 } })).status).toBe(200);
      const asText = await t.request('/api/probe/body', { method: 'POST', json: { workspaceId: t.workspaceId, sinceDays: '30' } });
      expect(asText.status).toBe(400);
      expect(((await asText.json()) as { error: string }).error).toMatch(/^body\.sinceDays/);
      expect((await t.request('/api/probe/body', { method: 'POST', json: { workspaceId: t.workspaceId, sinceDays: 366 } })).status).toBe(400);
      // workspaceId from the body is the one checked for POST routes that carry it there.
      expect((await t.request('/api/probe/body', { method: 'POST', json: { workspaceId: 'globex.com', sinceDays: 3 } })).status).toBe(403);
      expect((await t.request('/api/probe/body', { method: 'POST', json: { sinceDays: 3 } })).status).toBe(400);
    } finally {
      await t.close();
    }
  });
});

describe('errors', () => {
  it('answers unknown paths with a JSON 404, with or without a key', async () => {
    const t = await startTestApp();
    try {
      for (const key of [undefined, null, 'sk-wrong']) {
        for (const path of ['/api/nope', '/nope', '/api/settings/nope?workspaceId=acme.com']) {
          const res = await t.request(path, key === undefined ? {} : { key });
          expect(res.status).toBe(404);
          expect(res.headers.get('content-type')).toMatch(/^application\/json/);
          expect(await res.json()).toEqual({ error: expect.stringContaining('not found'), code: 'NOT_FOUND', status: 404 });
          expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
        }
      }
      // A wrong method is an unknown route too.
      expect((await t.request(`/api/settings?workspaceId=${t.workspaceId}`, { method: 'PATCH' })).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('answers malformed JSON with 400 INVALID_JSON and other content types with 415', async () => {
    const t = await startTestApp();
    try {
      const res = await t.request(`/api/settings?workspaceId=${t.workspaceId}`, {
        method: 'PUT',
        body: '{"profile": {',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: expect.any(String), code: 'INVALID_JSON', status: 400 });
      const xml = await t.request(`/api/settings?workspaceId=${t.workspaceId}`, {
        method: 'PUT',
        body: '<a/>',
        headers: { 'content-type': 'application/xml' },
      });
      expect(xml.status).toBe(415);
      expect(await xml.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
      const badUrl = await t.request('/api/settings/%zz?workspaceId=acme.com');
      expect(badUrl.status).toBe(400);
      expect(await badUrl.json()).toEqual({ error: expect.any(String), code: 'VALIDATION_ERROR', status: 400 });
    } finally {
      await t.close();
    }
  });

  it('answers a crash with 500 INTERNAL, no stack or internal message, logged with the request id; secrets redacted', async () => {
    const log = capture();
    const t = await startTestApp({ extraRoutes: [probe], logger: createLogger({ level: 'info', destination: log.stream }) });
    try {
      const res = await t.request(`/api/probe/boom?workspaceId=${t.workspaceId}`, { headers: { 'x-request-id': 'req-test-42' } });
      expect(res.status).toBe(500);
      expect(res.headers.get('x-request-id')).toBe('req-test-42');
      const text = await res.text();
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['code', 'error', 'status']);
      expect(body).toMatchObject({ code: 'INTERNAL', status: 500 });
      expect(body.error).toContain('req-test-42');
      expect(text).not.toMatch(/hunter2|secret|\.ts:|at /);

      const lines = log.lines();
      const failed = lines.find((l) => l.msg === 'request failed');
      expect(failed?.reqId).toBe('req-test-42');
      expect(JSON.stringify(failed?.err)).toContain('hunter2'); // the log keeps the detail…
      const all = JSON.stringify(lines);
      expect(all).not.toContain(t.apiKey); // …but never a key or a token
      expect(all).not.toContain('tok-secret-value');
      expect(all).toContain('[redacted]');
    } finally {
      await t.close();
    }
  });

  it('maps every engine error code and documents every code in docs/errors.md', () => {
    for (const code of ERROR_CODES) expect(ERROR_TABLE[code], code).toBeDefined();
    const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    for (const code of [...allErrorCodes(), 'NOT_FOUND']) {
      const mapping = ERROR_TABLE[code as keyof typeof ERROR_TABLE];
      expect(doc, code).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${mapping?.status}\\s*\\|`));
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes a request in flight and answers one arriving while draining with 503 in the error shape', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const slow: RouteModule = () => async (app) => {
      app.get('/probe/slow', async () => {
        entered();
        await released;
        return { done: true };
      });
    };
    const t = await startTestApp({ extraRoutes: [slow] });
    const port = new URL(t.baseUrl).port;
    const socket = connect(Number(port), '127.0.0.1');
    let raw = '';
    socket.on('data', (c: Buffer) => (raw += c.toString()));
    const ended = new Promise<void>((r) => socket.on('close', () => r()));
    const req = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.apiKey}\r\n\r\n`;
    socket.write(req(`/api/probe/slow?workspaceId=${t.workspaceId}`));
    await inHandler;
    const closed = t.app.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write(req(`/api/settings?workspaceId=${t.workspaceId}`)); // same connection, while draining
    await new Promise((r) => setTimeout(r, 50));
    release();
    await closed;
    await ended;
    await t.engine.close();
    const responses = raw.split(/(?=HTTP\/1\.1 )/);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(responses[0]).toContain('{"done":true}');
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(responses[1]?.toLowerCase()).toContain('x-ratelimit-remaining:');
    const body = JSON.parse(responses[1]!.slice(responses[1]!.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE', status: 503 });
  });
});

describe('openapi.json', () => {
  it('is public and documents every route with its schemas, including modules registered by others', async () => {
    const t = await startTestApp({ extraRoutes: [probe] });
    try {
      const res = await t.request('/api/openapi.json', { key: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
      const doc = (await res.json()) as {
        openapi: string;
        paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }> }>>;
        components: Record<string, unknown>;
      };
      expect(doc.openapi).toBe('3.1.0');
      for (const p of [
        '/api/settings',
        '/api/settings/api-keys',
        '/api/settings/api-keys/{keyId}',
        '/api/settings/user',
        '/api/settings/complete-onboarding',
        '/api/notifications/test',
        '/api/probe/list',
      ]) {
        expect(doc.paths[p], p).toBeDefined();
      }
      expect(Object.keys(doc.paths['/api/settings'] ?? {}).sort()).toEqual(['get', 'put']);
      expect(doc.paths['/api/openapi.json']).toBeUndefined();
      const limit = doc.paths['/api/probe/list']?.get?.parameters?.find((p) => p.name === 'limit');
      expect(limit).toMatchObject({ in: 'query', schema: { type: 'integer', maximum: 100, default: 20 } });
      expect(JSON.stringify(doc.components)).toContain('bearerAuth');
    } finally {
      await t.close();
    }
  });
});

describe('rate limits', () => {
  it('counts per key per minute, reports it in headers, and refuses with 429 + Retry-After', async () => {
    const t = await startTestApp({ config: { rateLimits: { perKeyMinute: 3, perKeyHour: 50, perWorkspaceMinute: 1000, perWorkspaceDay: 1000 } } });
    try {
      // The windows are aligned to the clock's minute: start early in one, so that the requests
      // below cannot straddle its end (a new minute would give the key a fresh budget mid-test).
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
      const path = `/api/settings?workspaceId=${t.workspaceId}`;
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await t.request(path);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('3');
        remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
        const reset = Number(res.headers.get('x-ratelimit-reset'));
        // The minute window ends at the next whole minute (unix seconds).
        expect(reset % 60).toBe(0);
        expect(reset * 1000).toBeGreaterThan(Date.now() - 1000);
      }
      expect(remaining).toEqual(['2', '1', '0']);
      const res = await t.request(path);
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual({ error: expect.stringContaining('Rate limit'), code: 'RATE_LIMITED', status: 429 });
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      const retry = Number(res.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      // Another key of the same workspace has its own minute.
      const other = await createApiKey(t.engine.store.db, { workspaceId: t.workspaceId, name: 'other' });
      expect((await t.request(path, { key: other.key })).status).toBe(200);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('enforces the hour per key and the day per workspace, reporting the window nearest exhaustion', async () => {
    const t = await startTestApp({ config: { rateLimits: { perKeyMinute: 10, perKeyHour: 2, perWorkspaceMinute: 1000, perWorkspaceDay: 3 } } });
    try {
      const path = `/api/settings?workspaceId=${t.workspaceId}`;
      const r1 = await t.request(path);
      // Hour: 1 left; day: 2 left; minute: 9 left → the hour is reported.
      expect([r1.headers.get('x-ratelimit-limit'), r1.headers.get('x-ratelimit-remaining')]).toEqual(['2', '1']);
      expect(Number(r1.headers.get('x-ratelimit-reset')) % 3600).toBe(0);
      expect((await t.request(path)).status).toBe(200);
      const r3 = await t.request(path);
      expect(r3.status).toBe(429);
      expect(r3.headers.get('x-ratelimit-limit')).toBe('2');

      // A second key: its hour is fresh, but the workspace has 1 request left today.
      const second = await createApiKey(t.engine.store.db, { workspaceId: t.workspaceId, name: 'second' });
      const s1 = await t.request(path, { key: second.key });
      expect(s1.status).toBe(200);
      expect([s1.headers.get('x-ratelimit-limit'), s1.headers.get('x-ratelimit-remaining')]).toEqual(['3', '0']);
      expect(Number(s1.headers.get('x-ratelimit-reset')) % 86400).toBe(0);
      const s2 = await t.request(path, { key: second.key });
      expect(s2.status).toBe(429);
      expect(s2.headers.get('x-ratelimit-limit')).toBe('3');
      const retry = Number(s2.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(86400);

      // Another workspace is not affected.
      const g = await createWorkspace(t.engine.store.db, { domain: 'globex.com', name: 'Globex', ownerEmail: 'hank@globex.com' });
      expect((await t.request('/api/settings?workspaceId=globex.com', { key: g.apiKey.key })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('counts requests without a valid key per IP and puts the headers on 401s', async () => {
    const t = await startTestApp({ config: { rateLimits: { perKeyMinute: 2, perKeyHour: 100, perWorkspaceMinute: 1000, perWorkspaceDay: 1000 } } });
    try {
      const path = `/api/settings?workspaceId=${t.workspaceId}`;
      const a = await t.request(path, { key: null });
      expect(a.status).toBe(401);
      expect([a.headers.get('x-ratelimit-limit'), a.headers.get('x-ratelimit-remaining')]).toEqual(['2', '1']);
      expect(a.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
      expect((await t.request(path, { key: 'sk-bad' })).status).toBe(401);
      const c = await t.request(path, { key: null });
      expect(c.status).toBe(429);
      expect(c.headers.get('retry-after')).toMatch(/^\d+$/);
      // A valid key is counted on its own.
      expect((await t.request(path)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('MemoryRateLimitStore', () => {
  const limits = { perKeyMinute: 2, perKeyHour: 3, perWorkspaceMinute: 1000, perWorkspaceDay: 100 };
  const caller = { keyId: 'k1', workspaceId: 'acme.com' };

  it('resets at the window boundary and counts nothing for a refused request', async () => {
    const store = new MemoryRateLimitStore();
    const t0 = Date.UTC(2024, 0, 1, 10, 0, 10);
    expect((await store.consume(windowsFor(caller, limits), t0)).allowed).toBe(true);
    expect((await store.consume(windowsFor(caller, limits), t0 + 1000)).allowed).toBe(true);
    const refused = await store.consume(windowsFor(caller, limits), t0 + 2000);
    expect(refused.allowed).toBe(false);
    // Refused: Retry-After waits for the minute (10:01:00), 48 s after 10:00:12.
    expect(rateLimitHeaders(refused, t0 + 2000)).toMatchObject({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'retry-after': '48' });
    // The refused request did not use up the hour: one left at 10:01.
    const next = await store.consume(windowsFor(caller, limits), Date.UTC(2024, 0, 1, 10, 1, 0));
    expect(next.allowed).toBe(true);
    expect(rateLimitHeaders(next, Date.UTC(2024, 0, 1, 10, 1, 0))).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0' });
    // Hour exhausted: the 429 points at 11:00.
    const hourFull = await store.consume(windowsFor(caller, limits), Date.UTC(2024, 0, 1, 10, 2, 0));
    expect(hourFull.allowed).toBe(false);
    expect(rateLimitHeaders(hourFull, Date.UTC(2024, 0, 1, 10, 2, 0))).toMatchObject({
      'x-ratelimit-limit': '3',
      'x-ratelimit-reset': String(Date.UTC(2024, 0, 1, 11, 0, 0) / 1000),
      'retry-after': String(58 * 60),
    });
    expect((await store.consume(windowsFor(caller, limits), Date.UTC(2024, 0, 1, 11, 0, 0))).allowed).toBe(true);
  });

  it('forgets finished windows', async () => {
    const store = new MemoryRateLimitStore();
    const t0 = Date.UTC(2024, 0, 1, 10, 0, 0);
    for (let i = 0; i < 50; i++) await store.consume(windowsFor({ ip: `10.0.0.${i}` }, limits), t0);
    expect(store.size).toBe(100);
    await store.consume(windowsFor({ ip: '10.0.1.1' }, limits), t0 + 2 * 3_600_000);
    expect(store.size).toBe(2);
  });
});
