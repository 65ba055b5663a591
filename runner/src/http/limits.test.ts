/**
 * Regressions for what the fuzz suite and issue 16 found: deep JSON bodies (a RangeError 500),
 * router errors without the rate-limit headers or request id, a 101-character clientId refused
 * with 414 VALIDATION_ERROR while the schema allows 200, text/plain bodies reaching validation,
 * NUL characters reaching PostgreSQL (500), and errors Node's HTTP parser answers on its own.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { MAX_PARAM_LENGTH } from './app.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from './body.js';
import { startTestApp, type StartTestAppOptions, type TestApp } from './testing.js';

/** Runs `fn` against a fresh app, closed afterwards. */
async function withApp(fn: (t: TestApp) => Promise<void>, options?: StartTestAppOptions): Promise<void> {
  const t = await startTestApp(options);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

function nested(depth: number): string {
  let s = '"quick"';
  for (let i = 0; i < depth; i++) s = i % 2 ? `[${s}]` : `{"a":${s}}`;
  return s;
}

async function expectError(res: Response, status: number, code: string): Promise<string> {
  const body = (await res.json()) as { error: string; code: string; status: number };
  expect({ status: res.status, code: body.code, bodyStatus: body.status }).toEqual({ status, code, bodyStatus: status });
  expect(Object.keys(body).sort()).toEqual(['code', 'error', 'status']);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers.get(h), h).toMatch(/^\d+$/);
  return body.error;
}

/** Writes raw bytes on a fresh connection; resolves with everything the server sent until it closed. */
function raw(t: TestApp, chunks: string[], pauseMs = 0): Promise<string> {
  const { port } = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += String(d)));
    socket.on('close', () => resolve(received));
    // A reset after the server closed (we were still writing) ends the exchange too.
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(received) : reject(err)));
    const send = async (): Promise<void> => {
      for (const c of chunks) {
        if (!socket.writable) return;
        socket.write(c);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    };
    socket.on('connect', () => void send().catch(reject));
  });
}

function parseRaw(response: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('JSON bodies are bounded before validation', () => {
  it('jsonDeeperThan counts objects and arrays, not brackets inside strings, in one linear pass', () => {
    expect(jsonDeeperThan('{"a":[1,{"b":2}]}', 3)).toBe(false);
    expect(jsonDeeperThan('{"a":[1,{"b":2}]}', 2)).toBe(true);
    expect(jsonDeeperThan(`{"a":"${'['.repeat(1000)}","b":"\\"{{{{"}`, 1)).toBe(false);
    expect(jsonDeeperThan(nested(5000), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    // Linear: 4× the text takes well under 10× the time (flat text, never deeper than 1).
    const time = (n: number): number => {
      const text = `[${'"[[[[{{{{",'.repeat(n)}1]`;
      const start = process.hrtime.bigint();
      for (let i = 0; i < 5; i++) jsonDeeperThan(text, MAX_JSON_DEPTH);
      return Number(process.hrtime.bigint() - start);
    };
    time(20_000);
    expect(time(400_000) / time(100_000)).toBeLessThan(10);
  });

  it('5,000-deep syncType, sources and dataTypes are 400 VALIDATION_ERROR, not a RangeError 500', () =>
    withApp(async (t) => {
      const post = (path: string, body: string) =>
        t.request(`${path}?workspaceId=${t.workspaceId}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      const deep = nested(5000);
      for (const [path, body] of [
        ['/api/ingest/run', `{"syncType":${deep}}`],
        ['/api/ingest/run', `{"sources":${deep}}`],
        ['/api/ingest/backfill', `{"source":"google","fromDate":"2025-01-01T00:00:00Z","dataTypes":${deep}}`],
        ['/api/ingest/backfill', deep],
      ] as const) {
        expect(await expectError(await post(path, body), 400, 'VALIDATION_ERROR')).toBe(`body: objects and arrays nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
      // Depth the schemas use is fine: the deepest body (PUT /settings) nests 4 levels.
      const res = await t.request(`/api/settings?workspaceId=${t.workspaceId}`, {
        method: 'PUT',
        json: { workspace: { notifications: { channels: { email: true } } } },
      });
      expect(res.status).toBe(200);
    }));

  it('only application/json bodies are read: text/plain is 415 like every other type', () =>
    withApp(async (t) => {
      for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded']) {
        const res = await t.request(`/api/settings/api-keys?workspaceId=${t.workspaceId}`, {
          method: 'POST',
          body: '{"name":"x"}',
          headers: { 'content-type': type },
        });
        await expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
    }));

  it('refuses text holding U+0000 anywhere (PostgreSQL cannot store it) with 400 on both dialects', () =>
    withApp(async (t) => {
      const W = `workspaceId=${t.workspaceId}`;
      expect(await expectError(await t.request(`/api/clients/a%00b?${W}`), 400, 'VALIDATION_ERROR')).toMatch(/^params\.clientId: .*NUL/);
      expect(await expectError(await t.request(`/api/ingest/status?${W}&jobId=a%00b`), 400, 'VALIDATION_ERROR')).toMatch(/^querystring\.jobId/);
      const put = await t.request(`/api/settings?${W}`, { method: 'PUT', json: { profile: { name: 'Ana\u0000Lima' } } });
      expect(await expectError(put, 400, 'VALIDATION_ERROR')).toMatch(/^body\.profile\.name: .*NUL/);
      const key = await t.request(`/api/settings/api-keys?${W}`, { method: 'POST', json: { name: 'k\u0000' } });
      await expectError(key, 400, 'VALIDATION_ERROR');
      expect((await t.request(`/api/settings?${W}`)).status).toBe(200);
    }));
});

describe('router errors take the common error path', () => {
  it('bad URL encoding: 400 with the request id and counted rate-limit headers', () =>
    withApp(async (t) => {
      for (const path of ['/api/clients/%zz?workspaceId=acme.com', '/api/clients/%zz', '/api/nope/%zz']) {
        for (const key of [undefined, null]) {
          const first = await t.request(path, key === null ? { key } : {});
          await expectError(first, 400, 'VALIDATION_ERROR');
          const second = await t.request(path, key === null ? { key } : {});
          await expectError(second, 400, 'VALIDATION_ERROR');
          // Counted like any request: the remaining budget goes down.
          expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
        }
      }
      const mine = await t.request('/api/clients/%zz', { headers: { 'x-request-id': 'trace-zz-1' } });
      expect(mine.headers.get('x-request-id')).toBe('trace-zz-1');
    }));

  it('clientId: up to the documented 200 characters reaches the route, 201 is 400, over 1,000 is 414 URI_TOO_LONG', () =>
    withApp(async (t) => {
      const W = `workspaceId=${t.workspaceId}`;
      // The OpenAPI document and the router agree: every path parameter's maxLength is below the router's limit.
      const doc = (await (await t.request('/api/openapi.json')).json()) as {
        paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema: { maxLength?: number } }> }>>;
      };
      const pathParams = Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => (op.parameters ?? []).filter((p) => p.in === 'path')));
      expect(pathParams.length).toBeGreaterThan(3);
      for (const p of pathParams) if (p.schema.maxLength !== undefined) expect(p.schema.maxLength, p.name).toBeLessThanOrEqual(MAX_PARAM_LENGTH);
      expect(pathParams.find((p) => p.name === 'clientId')?.schema.maxLength).toBe(200);

      expect(await expectError(await t.request(`/api/clients/${'a'.repeat(101)}?${W}`), 404, 'CLIENT_NOT_FOUND')).toContain('not found');
      expect(await expectError(await t.request(`/api/clients/${'a'.repeat(200)}/interactions?${W}`), 404, 'CLIENT_NOT_FOUND')).toContain('not found');
      expect(await expectError(await t.request(`/api/clients/${'a'.repeat(201)}?${W}`), 400, 'VALIDATION_ERROR')).toBe(
        'params.clientId: Expected string length less or equal to 200',
      );
      await expectError(await t.request(`/api/clients/${'a'.repeat(MAX_PARAM_LENGTH + 1)}?${W}`), 414, 'URI_TOO_LONG');
      await expectError(await t.request(`/api/clients/${'a'.repeat(MAX_PARAM_LENGTH + 1)}`, { key: null }), 414, 'URI_TOO_LONG');
    }));
});

describe('the OpenAPI document and the server agree', () => {
  it('a parameter or body member with a default is optional in the document, as the server treats it', () =>
    withApp(async (t) => {
      type Op = {
        parameters?: Array<{ in: string; name: string; required?: boolean; schema: { default?: unknown } }>;
        requestBody?: { content: Record<string, { schema: { required?: string[]; properties?: Record<string, { default?: unknown }> } }> };
      };
      const doc = (await (await t.request('/api/openapi.json')).json()) as { paths: Record<string, Record<string, Op>> };
      const ops = Object.values(doc.paths).flatMap((byMethod) => Object.values(byMethod));
      const defaulted = ops.flatMap((op) => (op.parameters ?? []).filter((p) => p.schema.default !== undefined));
      expect(defaulted.map((p) => p.name)).toEqual(expect.arrayContaining(['limit', 'offset', 'windowDays', 'interval', 'minDelta']));
      for (const p of defaulted) expect(p.required ?? false, p.name).toBe(false);
      for (const op of ops) {
        const body = op.requestBody?.content['application/json']?.schema;
        for (const name of body?.required ?? []) expect(body?.properties?.[name]?.default, name).toBeUndefined();
      }
      // …and leaving them out is accepted.
      expect((await t.request(`/api/ingest/history?workspaceId=${t.workspaceId}`)).status).toBe(200);
      expect((await t.request(`/api/metrics/deltas?workspaceId=${t.workspaceId}`)).status).toBe(200);
    }));
});

describe('errors raised by Node’s HTTP parser', () => {
  it('headers over 16 KiB: 431 HEADERS_TOO_LARGE in the error body, with request id and rate-limit headers', () =>
    withApp(async (t) => {
      const res = await t.request(`/api/clients?workspaceId=${t.workspaceId}&pad=${'z'.repeat(20_000)}`);
      await expectError(res, 431, 'HEADERS_TOO_LARGE');
      expect((await t.request(`/api/clients?workspaceId=${t.workspaceId}`)).status).toBe(200);
    }));

  it('bytes that are not HTTP: 400 MALFORMED_REQUEST, then the connection is closed', () =>
    withApp(async (t) => {
      const answer = parseRaw(await raw(t, ['GARBAGE \u0001\u0002 NOT HTTP\r\n\r\n']));
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: 'The request is not valid HTTP', code: 'MALFORMED_REQUEST', status: 400 });
      expect(answer.headers['x-request-id']).toBeTruthy();
      expect(answer.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
      expect(answer.headers.connection).toBe('close');
    }));

  it('a client sending its headers too slowly gets 408 REQUEST_TIMEOUT and loses the connection', () =>
    withApp(
      async (t) => {
        expect(t.app.server.requestTimeout).toBe(600);
        expect(t.app.server.headersTimeout).toBe(300);
        expect(t.app.server.keepAliveTimeout).toBe(5000);
        expect(t.app.server.timeout).toBe(10_000);
        const started = Date.now();
        // A slowloris: one header line at a time, never the blank line that ends them.
        const dribble = ['GET /api/clients HTTP/1.1\r\n', 'Host: x\r\n', ...Array.from({ length: 24 }, (_, i) => `X-${i}: ${i}\r\n`)];
        const text = await raw(t, dribble, 250);
        const answer = parseRaw(text);
        expect(answer.status).toBe(408);
        expect(answer.body).toEqual({ error: 'The request was not received in time', code: 'REQUEST_TIMEOUT', status: 408 });
        expect(answer.headers['x-request-id']).toBeTruthy();
        expect(answer.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
        // Closed by the server within a generous budget, not held for the client's 6.5 s of dribbling.
        expect(Date.now() - started).toBeLessThan(4500);
      },
      { config: { http: { requestTimeoutMs: 600, headersTimeoutMs: 300, connectionTimeoutMs: 10_000, keepAliveTimeoutMs: 5000 } } },
    ));
});

describe('HTTP timeouts configuration', () => {
  it('has defaults, reads CHS_HTTP_*_MS and refuses a headers timeout over the request timeout', () => {
    expect(loadConfig({}).http).toEqual({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, connectionTimeoutMs: 120_000, keepAliveTimeoutMs: 72_000 });
    expect(loadConfig({ CHS_HTTP_REQUEST_TIMEOUT_MS: '5000' }).http).toMatchObject({ requestTimeoutMs: 5000, headersTimeoutMs: 5000 });
    expect(loadConfig({ CHS_HTTP_CONNECTION_TIMEOUT_MS: '1000', CHS_HTTP_KEEP_ALIVE_TIMEOUT_MS: '2000' }).http).toMatchObject({
      connectionTimeoutMs: 1000,
      keepAliveTimeoutMs: 2000,
    });
    expect(() => loadConfig({ CHS_HTTP_REQUEST_TIMEOUT_MS: '1000', CHS_HTTP_HEADERS_TIMEOUT_MS: '2000' })).toThrow(
      /must not exceed CHS_HTTP_REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ CHS_HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(/positive integer/);
  });
});
