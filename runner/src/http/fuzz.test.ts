/**
 * The HTTP surface under hostile input. Every operation of `/api/openapi.json`, every path, query
 * and body parameter × hostile values; hostile bodies, content types and query strings; an auth
 * sweep and a cross-workspace sweep. Every answer must be: no 5xx; on 4xx the documented body
 * `{error, code, status}` with a documented code of that status; `X-Request-Id` and the three
 * `X-RateLimit-*` headers; no stack trace or server path. The server must still answer at the end.
 *
 * Bounded and deterministic: the request set is a fixed enumeration (random-looking strings come
 * from a seeded generator), a few thousand requests sent a few at a time, seconds on SQLite. Rate
 * limits are raised for the sweep so 429s do not mask answers; a separate app with tiny limits
 * checks that 429s carry the body too.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createClient, createWorkspace, deleteApiKey, enqueueRun, mboxSource, revokeAllApiKeys } from '@chs/core';
import { loadConfig, type RateLimitConfig } from '../config.js';
import { allErrorCodes, ERROR_TABLE } from './errors.js';
import { startTestApp, type TestApp } from './testing.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SMALL_MBOX = join(REPO, 'fixtures/mailboxes/small.mbox');
const OTHER = 'globex-b.com';
const SECRET_NAME = 'Zorblax Secret Holdings';
const SECRET_DOMAIN = 'zorblax-secret.com';

/** mulberry32: the sweep's few random-looking values, the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(16);
const randomText = (n: number): string => Array.from({ length: n }, () => String.fromCodePoint(1 + Math.floor(random() * 0x2fff))).join('');
const randomKey = (): string =>
  `sk-${Array.from({ length: 43 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[Math.floor(random() * 64)]).join('')}`;

/** Hostile text for path and query parameters (each also sent missing, repeated and as `name[k]`). */
const TEXT_VALUES: string[] = [
  '',
  ' ',
  'x'.repeat(10_240),
  '-1',
  '0',
  '1e308',
  '-1e308',
  'NaN',
  'Infinity',
  '1.5',
  '0x10',
  'true',
  'null',
  'undefined',
  '😀🔥👩‍👩‍👧',
  "' OR 1=1--",
  '"; DROP TABLE clients; --',
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  'a\u0000b',
  '%',
  '%00',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  '\u202e\ufeff',
  randomText(12),
  randomText(40),
];
/** Operations that revoke the calling key (`/settings/api-keys/revoke-all`). */
const REVOKES_CALLER = /\/revoke-all$/;
const MISSING = Symbol('missing');
/** Sent as the bare JSON-invalid token `NaN`. */
const RAW_NAN = Symbol('NaN');
/** Sent as 5,000 nested objects and arrays. */
const RAW_DEEP = Symbol('deep');
/** Hostile JSON values for body fields. */
const JSON_VALUES: unknown[] = [
  MISSING,
  RAW_NAN,
  null,
  '',
  'x'.repeat(10_240),
  -1,
  0,
  1e308,
  -1e308,
  1.5,
  true,
  false,
  [],
  [1, 'a', null],
  {},
  { a: { b: [1] } },
  '😀🔥',
  "' OR 1=1--",
  '../../etc/passwd',
  'a\u0000b',
  '1e308',
  'NaN',
  '__proto__',
  randomText(20),
];

type Schema = Record<string, unknown>;
interface Param {
  in: 'path' | 'query';
  name: string;
  schema: Schema;
}
interface Operation {
  method: string;
  /** OpenAPI path, e.g. `/api/clients/{clientId}`. */
  path: string;
  params: Param[];
  body: Schema | undefined;
  public: boolean;
}

function operations(doc: { paths: Record<string, Record<string, Schema>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      const params = ((op.parameters ?? []) as Array<Schema & { in: string; name: string; schema: Schema }>)
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => ({ in: p.in as 'path' | 'query', name: p.name, schema: p.schema }));
      const body = ((op.requestBody as Schema | undefined)?.content as Record<string, { schema: Schema }> | undefined)?.['application/json']?.schema;
      ops.push({ method: method.toUpperCase(), path, params, body, public: Array.isArray(op.security) && op.security.length === 0 });
    }
  }
  return ops;
}

/** A plausible value for a schema (the baseline each hostile value replaces one part of). */
function sample(schema: Schema, name = ''): unknown {
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives?.[0]) return sample(alternatives[0], name);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'date-time') return '2025-01-01T00:00:00Z';
      if (schema.format === 'date') return '2025-01-01';
      if (schema.format === 'email') return 'ana@acme.com';
      if (name === 'currency') return 'EUR';
      if (name === 'timezone') return 'Europe/Paris';
      return 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
    }
    case 'integer':
    case 'number':
      return Number(schema.minimum ?? 1);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => sample((schema.items ?? {}) as Schema));
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      for (const req of (schema.required ?? []) as string[]) if (props[req]) out[req] = sample(props[req], req);
      return out;
    }
    default:
      return 'x';
  }
}

/** Every field path of a body schema, objects included (`['workspace'], ['workspace', 'timezone']`…). */
function fieldPaths(schema: Schema): string[][] {
  const out: string[][] = [];
  const stack: Array<{ s: Schema; at: string[] }> = [{ s: schema, at: [] }];
  while (stack.length) {
    const { s, at } = stack.pop() as { s: Schema; at: string[] };
    for (const [name, child] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      out.push([...at, name]);
      if (child.properties) stack.push({ s: child, at: [...at, name] });
    }
  }
  return out;
}

function withField(base: unknown, path: string[], value: unknown): Record<string, unknown> {
  const root = structuredClone((base ?? {}) as Record<string, unknown>);
  let node = root;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  if (value === MISSING) delete node[last];
  else node[last] = value;
  return root;
}

function jsonText(body: unknown): string {
  const marked = JSON.stringify(body, (_k, v: unknown) => (v === RAW_NAN ? '\u0001NaN' : v === RAW_DEEP ? '\u0001DEEP' : v));
  return marked.replace(/"\\u0001NaN"/g, 'NaN').replace(/"\\u0001DEEP"/g, () => DEEP);
}

interface Req {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** What this request tests, for the report. */
  label: string;
  /** Extra check of the answer (the common checks always run). */
  expect?: (status: number, text: string, headers: Headers) => string | undefined;
}

const DEEP = (() => {
  let s = '"x"';
  for (let i = 0; i < 5000; i++) s = i % 2 ? `[${s}]` : `{"a":${s}}`;
  return s;
})();
const TWO_MB = JSON.stringify({ workspaceId: 'acme.com', name: 'x'.repeat(2 * 1024 * 1024) });
/** Every rate-limit window (whatever windows the config has) raised out of the sweep's way. */
const UNLIMITED = Object.fromEntries(Object.keys(loadConfig({}).rateLimits).map((k) => [k, 100_000_000])) as unknown as RateLimitConfig;
const LEAK = [/\n\s+at /, /\bat \S+ \(/, /\.(ts|js|mjs|cjs):\d+/, /node_modules/, /RangeError|TypeError|SyntaxError|ReferenceError/];

describe('HTTP fuzz sweep over /api/openapi.json', () => {
  let t: TestApp;
  let revokers: Operation[] = [];
  let ops: Operation[];
  let otherKey: string;
  let otherKeyId: string;
  let otherClientId: string;
  let otherJobId: string;
  let ownClientId: string;
  const statuses = new Map<number, number>();
  let sent = 0;

  /** The checks every answer must pass. */
  function check(req: Req, status: number, headers: Headers, text: string, failures: string[]): void {
    const problems: string[] = [];
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    if (status >= 500) problems.push('5xx');
    if (!headers.get('x-request-id')) problems.push('no X-Request-Id');
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) if (!headers.get(h)) problems.push(`no ${h}`);
    if (status >= 400) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        problems.push('error body is not JSON');
      }
      const b = body as Record<string, unknown> | undefined;
      if (b) {
        if (Object.keys(b).sort().join() !== 'code,error,status') problems.push(`error body keys ${Object.keys(b).join()}`);
        if (b.status !== status) problems.push(`body.status ${String(b.status)}`);
        if (typeof b.error !== 'string' || b.error === '') problems.push('no error message');
        const code = String(b.code);
        if (!allErrorCodes().includes(code as never)) problems.push(`undocumented code ${code}`);
        else if (ERROR_TABLE[code as keyof typeof ERROR_TABLE]?.status !== status) problems.push(`code ${code} is not a ${status}`);
      }
    }
    for (const re of LEAK) if (re.test(text)) problems.push(`leak ${re}`);
    for (const path of [REPO, REPO.replace(/\/$/, ''), t.config.dataDir]) if (text.includes(path)) problems.push(`leaks path ${path}`);
    const extra = req.expect?.(status, text, headers);
    if (extra) problems.push(extra);
    if (problems.length) failures.push(`${req.label}: ${req.method} ${req.url.slice(0, 160)} → ${status} ${problems.join('; ')} ${text.slice(0, 160)}`);
  }

  /** Sends the requests a few at a time; the problems found, one line per answer. */
  async function send(reqs: Req[], parallel = 6): Promise<string[]> {
    const failures: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < reqs.length) {
        const req = reqs[next++] as Req;
        sent++;
        const res = await fetch(t.baseUrl + req.url, { method: req.method, headers: req.headers ?? {}, ...(req.body !== undefined ? { body: req.body } : {}) });
        check(req, res.status, res.headers, await res.text(), failures);
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    return failures;
  }

  const auth = (key: string = t.apiKey): Record<string, string> => ({ authorization: `Bearer ${key}` });
  const json = (key?: string): Record<string, string> => ({ ...auth(key), 'content-type': 'application/json' });

  /** Baseline path parameter values: real ids of workspace A where there are some, never one to delete. */
  function pathValue(op: Operation, p: Param): string {
    if (p.name === 'clientId') return ownClientId;
    if (p.name === 'keyId') return 'key_not_one_of_ours';
    if (p.name === 'jobId') return 'job_not_one_of_ours';
    return String(sample(p.schema, p.name));
  }

  function url(op: Operation, opts: { path?: Record<string, string>; query?: string; workspaceId?: string | null } = {}): string {
    let path = op.path;
    for (const p of op.params.filter((x) => x.in === 'path')) path = path.replace(`{${p.name}}`, opts.path?.[p.name] ?? encodeURIComponent(pathValue(op, p)));
    const query = opts.query ?? baselineQuery(op, opts.workspaceId === undefined ? t.workspaceId : opts.workspaceId);
    return query ? `${path}?${query}` : path;
  }

  function baselineQuery(op: Operation, workspaceId: string | null, skip?: string): string {
    const q = new URLSearchParams();
    for (const p of op.params.filter((x) => x.in === 'query' && x.name !== skip)) {
      if (p.name === 'workspaceId') {
        if (workspaceId !== null) q.append('workspaceId', workspaceId);
      } else if (p.name === 'channel' || (p.schema.default === undefined && (p.schema.anyOf || p.schema.const))) {
        q.append(p.name, String(sample(p.schema, p.name)));
      }
    }
    return q.toString();
  }

  function baselineBody(op: Operation, workspaceId = t.workspaceId): Record<string, unknown> {
    const body = sample(op.body ?? {}) as Record<string, unknown>;
    const props = (op.body?.properties ?? {}) as Record<string, Schema>;
    if (props.workspaceId) body.workspaceId = workspaceId;
    return body;
  }

  function bodyInit(_op: Operation, body: unknown, key?: string): Pick<Req, 'headers' | 'body'> {
    return { headers: json(key), body: jsonText(body) };
  }

  /** Whether the operation reads `workspaceId` from its body rather than its query. */
  const bodyWorkspace = (op: Operation): boolean =>
    !op.params.some((p) => p.name === 'workspaceId') && Boolean((op.body?.properties as Schema | undefined)?.workspaceId);

  beforeAll(async () => {
    // The real outbox mailer: the answers of /notifications/test are swept for the outbox path too
    // (the workspace's mail budget stops the sweep's test e-mails after a few).
    t = await startTestApp({ now: '2025-04-01T00:00:00Z', config: { rateLimits: UNLIMITED } });
    const db = t.engine.store.db;
    await t.engine.ingest({ workspaceId: t.workspaceId, source: mboxSource(SMALL_MBOX), workers: 0 });
    ownClientId = await createClient(db, t.workspaceId, 'initech-own.com', 'Initech Own');
    const other = await createWorkspace(db, { domain: OTHER, name: 'Globex B', ownerEmail: `bea@${OTHER}` });
    otherKey = other.apiKey.key;
    otherKeyId = (await createApiKey(db, { workspaceId: OTHER, userId: other.owner.id, name: 'second' })).id;
    otherClientId = await createClient(db, OTHER, SECRET_DOMAIN, SECRET_NAME);
    otherJobId = (await enqueueRun(db, OTHER, [{ kind: 'sync', source: 'google', params: { mode: 'quick' } }])).jobs[0]?.id as string;
    const doc = (await (await t.request('/api/openapi.json')).json()) as { paths: Record<string, Record<string, Schema>> };
    // Revoking every key revokes the caller's too: swept last, each request with a key of its own.
    const all = operations(doc);
    ops = all.filter((o) => !REVOKES_CALLER.test(o.path));
    revokers = all.filter((o) => REVOKES_CALLER.test(o.path));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('reads every operation of the OpenAPI document', () => {
    expect(ops.length).toBeGreaterThanOrEqual(25);
    expect(ops.filter((o) => o.params.some((p) => p.in === 'path')).length).toBeGreaterThanOrEqual(5);
    expect(ops.filter((o) => o.body).length).toBeGreaterThanOrEqual(6);
  });

  it('every path and query parameter × hostile values, missing, repeated, as an object', async () => {
    const reqs: Req[] = [];
    for (const op of ops.filter((o) => !o.public)) {
      const body = op.body ? bodyInit(op, baselineBody(op)) : { headers: auth() };
      for (const p of op.params) {
        for (const v of TEXT_VALUES) {
          if (p.in === 'path') {
            reqs.push({ method: op.method, url: url(op, { path: { [p.name]: encodeURIComponent(v) } }), ...body, label: `path ${p.name}` });
          } else {
            const q = new URLSearchParams(baselineQuery(op, t.workspaceId, p.name));
            q.append(p.name, v);
            reqs.push({ method: op.method, url: url(op, { query: q.toString() }), ...body, label: `query ${p.name}` });
          }
        }
        if (p.in === 'query') {
          const base = baselineQuery(op, t.workspaceId, p.name);
          const v = encodeURIComponent(String(sample(p.schema, p.name)));
          for (const extra of [`${p.name}=${v}&${p.name}=${v}`, `${p.name}[]=${v}`, `${p.name}[a]=${v}`, `${p.name}`, `${p.name}=`]) {
            reqs.push({
              method: op.method,
              url: url(op, { query: [base, extra].filter(Boolean).join('&') }),
              ...body,
              label: `query ${p.name} repeated/object`,
            });
          }
          if (p.name !== 'workspaceId') reqs.push({ method: op.method, url: url(op, { query: base }), ...body, label: `query ${p.name} missing` });
        } else {
          // Raw (not encoded) traversal and an over-long segment.
          reqs.push({ method: op.method, url: url(op, { path: { [p.name]: '..%2f..%2f..%2fetc%2fpasswd' } }), ...body, label: `path ${p.name} traversal` });
          reqs.push({ method: op.method, url: url(op, { path: { [p.name]: '%zz' } }), ...body, label: `path ${p.name} bad encoding` });
          reqs.push({
            method: op.method,
            url: url(op, { path: { [p.name]: 'a'.repeat(201) } }),
            ...body,
            label: `path ${p.name} 201 chars`,
            expect: (s) => (s === 400 ? undefined : `expected 400, got ${s}`),
          });
          reqs.push({
            method: op.method,
            url: url(op, { path: { [p.name]: 'a'.repeat(1001) } }),
            ...body,
            label: `path ${p.name} 1001 chars`,
            expect: (s) => (s === 414 ? undefined : `expected 414, got ${s}`),
          });
        }
      }
    }
    expect(await send(reqs)).toEqual([]);
    expect(reqs.length).toBeGreaterThan(500);
  }, 120_000);

  it('every body field × hostile JSON values', async () => {
    const reqs: Req[] = [];
    for (const op of ops.filter((o) => o.body && !o.public)) {
      const base = baselineBody(op);
      for (const path of fieldPaths(op.body as Schema)) {
        if (path.join('.') === 'workspaceId' && !bodyWorkspace(op)) continue; // checked by the auth sweeps
        for (const v of JSON_VALUES) {
          reqs.push({ method: op.method, url: url(op), ...bodyInit(op, withField(base, path, v)), label: `body ${path.join('.')}` });
        }
        reqs.push({
          method: op.method,
          url: url(op),
          ...bodyInit(op, withField(base, path, RAW_DEEP)),
          label: `body ${path.join('.')} 5,000 deep`,
          expect: (st) => (st === 400 ? undefined : `expected 400, got ${st}`),
        });
      }
    }
    expect(await send(reqs)).toEqual([]);
  }, 120_000);

  const deepIn = (_op: Operation, field: string): string => `{"workspaceId":"${t.workspaceId}","${field}":${DEEP}}`;

  /** Hostile bodies and content types for an operation that takes a body. */
  function hostileBodies(op: Operation): Array<{ label: string; body: string | Uint8Array; type?: string; expect?: Req['expect'] }> {
    return [
      { label: 'malformed', body: '{"workspaceId": ' },
      { label: 'trailing garbage', body: '{}x' },
      { label: 'null', body: 'null' },
      { label: 'array', body: '[]' },
      { label: 'array of objects', body: `[{"workspaceId":"${t.workspaceId}"}]` },
      { label: 'string', body: '"x"' },
      { label: 'number', body: '1e999' },
      { label: 'NaN', body: 'NaN' },
      { label: 'empty', body: '' },
      { label: 'whitespace', body: ' \n ' },
      { label: 'BOM', body: '\ufeff{}' },
      { label: 'proto', body: `{"workspaceId":"${t.workspaceId}","__proto__":{"polluted":1}}` },
      { label: 'constructor', body: `{"workspaceId":"${t.workspaceId}","constructor":{"prototype":{"polluted":1}}}` },
      { label: 'duplicate keys', body: `{"workspaceId":"${t.workspaceId}","workspaceId":"${OTHER}"}` },
      { label: '5,000 deep', body: DEEP, expect: (s) => (s === 400 ? undefined : `expected 400, got ${s}`) },
      { label: '5,000 deep in a field', body: deepIn(op, 'syncType'), expect: (s) => (s === 400 ? undefined : `expected 400, got ${s}`) },
      { label: '2 MB', body: TWO_MB, expect: (s) => (s === 413 ? undefined : `expected 413, got ${s}`) },
      { label: 'text/plain', body: '{}', type: 'text/plain', expect: (s) => (s === 415 ? undefined : `expected 415, got ${s}`) },
      {
        label: 'form',
        body: 'workspaceId=acme.com',
        type: 'application/x-www-form-urlencoded',
        expect: (s) => (s === 415 ? undefined : `expected 415, got ${s}`),
      },
      { label: 'multipart', body: '--x\r\n\r\n--x--', type: 'multipart/form-data; boundary=x' },
      { label: 'xml', body: '<a/>', type: 'application/xml' },
      { label: 'json charset latin1', body: '{}', type: 'application/json; charset=latin1' },
      { label: 'json+suffix', body: '{}', type: 'application/vnd.api+json' },
      { label: 'bad content type', body: '{}', type: ';;;===' },
      { label: 'no content type', body: new TextEncoder().encode('{}'), type: '' },
    ];
  }

  it('hostile bodies: malformed, null, arrays, 5,000 deep, 2 MB, wrong or missing content type, on every operation', async () => {
    const reqs: Req[] = [];
    // GET takes no body (fetch refuses to send one); every other method gets each of these.
    for (const op of ops.filter((o) => !o.public && o.method !== 'GET')) {
      const u = url(op);
      const bodies = hostileBodies(op);
      for (const b of bodies) {
        const headers = auth();
        if (b.type !== '') headers['content-type'] = b.type ?? 'application/json';
        reqs.push({ method: op.method, url: u, headers, body: b.body, label: `body ${b.label}`, ...(b.expect ? { expect: b.expect } : {}) });
      }
    }
    expect(await send(reqs, 4)).toEqual([]);
    // Nothing was polluted by the bodies above.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 120_000);

  it('unknown, duplicate and oversized query parameters; methods no route has; hostile request ids', async () => {
    const reqs: Req[] = [];
    for (const op of ops.filter((o) => !o.public)) {
      const base = baselineQuery(op, t.workspaceId);
      const body = op.body ? bodyInit(op, baselineBody(op)) : { headers: auth() };
      const extras = [
        'zz=1',
        '__proto__=1',
        '__proto__[x]=1',
        'constructor=x',
        'hasOwnProperty=1',
        `workspaceId=${t.workspaceId}`,
        `workspaceId=${OTHER}`,
        'workspaceId[]=x',
        `WORKSPACEID=${OTHER}`,
        `pad=${'y'.repeat(10_000)}`,
        '&&&',
        '=1',
        'a=%',
        '%zz=1',
        'a;b=1',
      ];
      for (const extra of extras)
        reqs.push({ method: op.method, url: url(op, { query: [base, extra].filter(Boolean).join('&') }), ...body, label: `extra query ${extra.slice(0, 20)}` });
      const is404 = (st: number) => (st === 404 ? undefined : `expected 404, got ${st}`);
      for (const method of ['OPTIONS', 'PATCH', 'PUT', 'DELETE'].filter((m) => !ops.some((o) => o.path === op.path && o.method === m))) {
        // Another route may match the path (`PATCH /clients/last-interactions` is `PATCH /clients/{clientId}`).
        reqs.push({ method, url: url(op), headers: auth(), label: `method ${method}`, ...(method === 'OPTIONS' ? { expect: is404 } : {}) });
      }
      // Not echoed: a request id that is not 1-128 of [A-Za-z0-9._-] is replaced by a UUID.
      const uuid = (_st: number, _text: string, headers: Headers) =>
        /^[0-9a-f-]{36}$/.test(headers.get('x-request-id') ?? '') ? undefined : 'request id echoed';
      for (const id of ['x'.repeat(5000), '../../etc/passwd', '<script>', 'a b', '%00', '']) {
        reqs.push({ method: op.method, url: url(op), ...body, headers: { ...body.headers, 'x-request-id': id }, label: 'hostile x-request-id', expect: uuid });
      }
    }
    // Headers over Node's 16 KiB limit (here the URL) are refused before Fastify: the same answer.
    const first = ops.find((o) => o.path === '/api/clients') as Operation;
    reqs.push({
      method: 'GET',
      url: url(first, { query: `workspaceId=${t.workspaceId}&pad=${'z'.repeat(20_000)}` }),
      headers: auth(),
      label: 'URL over 16 KiB',
      expect: (s) => (s === 431 ? undefined : `expected 431, got ${s}`),
    });
    expect(await send(reqs)).toEqual([]);
  }, 120_000);

  it('auth sweep: no key, malformed or unknown key → 401 AUTH_INVALID_KEY; another workspace’s key → 403', async () => {
    const reqs: Req[] = [];
    const is = (status: number, code: string) => (s: number, text: string) =>
      s === status && text.includes(`"${code}"`) ? undefined : `expected ${status} ${code}`;
    for (const op of ops.filter((o) => !o.public)) {
      const body = op.body ? jsonText(baselineBody(op)) : undefined;
      const withBody = (headers: Record<string, string>): Pick<Req, 'headers' | 'body'> =>
        body !== undefined ? { headers: { ...headers, 'content-type': 'application/json' }, body } : { headers };
      const variants: Array<[string, Record<string, string>]> = [
        ['no key', {}],
        ['unknown key', { authorization: `Bearer ${randomKey()}` }],
        ['malformed key', { authorization: 'Bearer not-a-key' }],
        ['empty bearer', { authorization: 'Bearer ' }],
        ['basic auth', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
        ['unknown X-API-Key', { 'x-api-key': randomKey() }],
        ['truncated key', { 'x-api-key': t.apiKey.slice(0, -1) }],
        ['key in the query', { 'x-api-key-query': t.apiKey }],
      ];
      for (const [label, headers] of variants)
        reqs.push({ method: op.method, url: url(op), ...withBody(headers), label: `auth ${label}`, expect: is(401, 'AUTH_INVALID_KEY') });
      // Workspace B's key naming workspace A (query or body).
      reqs.push({ method: op.method, url: url(op), ...withBody(auth(otherKey)), label: 'auth other workspace key', expect: is(403, 'FORBIDDEN_WORKSPACE') });
    }
    expect(await send(reqs)).toEqual([]);
  }, 120_000);

  it('cross-workspace sweep: workspace A’s key never reaches workspace B (403), nor B’s resources by id', async () => {
    const reqs: Req[] = [];
    const forbidden = (s: number) => (s === 403 ? undefined : `expected 403, got ${s}`);
    const noData = (s: number, text: string) =>
      s >= 200 && s < 300
        ? `answered ${s} for another workspace's resource`
        : text.includes(SECRET_NAME) || text.includes(SECRET_DOMAIN)
          ? 'shows B data'
          : undefined;
    for (const op of ops.filter((o) => !o.public)) {
      // A's key naming workspace B, in the query and/or the body.
      if (bodyWorkspace(op)) {
        reqs.push({ method: op.method, url: url(op), ...bodyInit(op, baselineBody(op, OTHER)), label: 'cross body workspaceId', expect: forbidden });
      } else {
        const body = op.body ? bodyInit(op, baselineBody(op)) : { headers: auth() };
        reqs.push({ method: op.method, url: url(op, { workspaceId: OTHER }), ...body, label: 'cross query workspaceId', expect: forbidden });
        reqs.push({
          method: op.method,
          url: url(op, { workspaceId: OTHER.toUpperCase() }),
          ...body,
          label: 'cross query workspaceId upper-case',
          expect: forbidden,
        });
        if (op.body && (op.body.properties as Schema).workspaceId) {
          reqs.push({
            method: op.method,
            url: url(op),
            ...bodyInit(op, baselineBody(op, OTHER)),
            label: 'cross body workspaceId with own query',
            expect: forbidden,
          });
        }
      }
      // A's own workspace, B's resource ids in the path.
      const ids: Record<string, string> = { clientId: otherClientId, keyId: otherKeyId, jobId: otherJobId };
      const pathParams = op.params.filter((p) => p.in === 'path' && ids[p.name]);
      if (pathParams.length) {
        const body = op.body ? bodyInit(op, { name: 'Renamed by A', isExcluded: true }) : { headers: auth() };
        reqs.push({
          method: op.method,
          url: url(op, { path: Object.fromEntries(pathParams.map((p) => [p.name, ids[p.name] as string])) }),
          ...body,
          label: 'cross resource id',
          expect: noData,
        });
      }
    }
    reqs.push({
      method: 'GET',
      url: `/api/ingest/status?workspaceId=${t.workspaceId}&jobId=${otherJobId}`,
      headers: auth(),
      label: 'cross job status',
      expect: noData,
    });
    expect(await send(reqs)).toEqual([]);
    // B is untouched: its key works, its client keeps its name, its job is still queued.
    const res = await t.request(`/api/clients/${otherClientId}?workspaceId=${OTHER}`, { key: otherKey });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ client: { name: SECRET_NAME } });
    const status = await t.request(`/api/ingest/status?workspaceId=${OTHER}&jobId=${otherJobId}`, { key: otherKey });
    expect(JSON.stringify(await status.json())).toMatch(/queued|pending/);
    const keys = await t.request(`/api/settings/api-keys?workspaceId=${OTHER}`, { key: otherKey });
    expect(((await keys.json()) as { apiKeys: unknown[] }).apiKeys).toHaveLength(2);
  }, 120_000);

  it('is still up and answering after the sweep; every answer was checked', async () => {
    for (const path of [
      `/api/clients?workspaceId=${t.workspaceId}`,
      `/api/metrics/summary?workspaceId=${t.workspaceId}`,
      `/api/settings?workspaceId=${t.workspaceId}`,
    ]) {
      const res = await t.request(path);
      expect(res.status, path).toBe(200);
    }
    expect(sent).toBeGreaterThan(2000);
    // The baselines are real requests: hundreds of the answers were successes, not all refusals.
    expect(statuses.get(200)).toBeGreaterThan(100);
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
  });

  it('revoke-all under hostile bodies and parameters, each request with a fresh key (a success revokes the caller)', async () => {
    expect(revokers.map((o) => `${o.method} ${o.path}`)).toEqual(['POST /api/settings/api-keys/revoke-all']);
    const reqs: Req[] = [];
    for (const op of revokers) {
      for (const b of hostileBodies(op)) {
        const headers: Record<string, string> = {};
        if (b.type !== '') headers['content-type'] = b.type ?? 'application/json';
        reqs.push({ method: op.method, url: url(op), headers, body: b.body, label: `revoke-all body ${b.label}`, ...(b.expect ? { expect: b.expect } : {}) });
      }
      for (const v of TEXT_VALUES)
        reqs.push({ method: op.method, url: url(op, { query: `workspaceId=${encodeURIComponent(v)}` }), headers: {}, label: 'revoke-all workspaceId' });
    }
    const db = t.engine.store.db;
    // The sweeps above made keys up to the cap: start from none active.
    await revokeAllApiKeys(db, t.workspaceId);
    const failures: string[] = [];
    const revokedBy: string[] = [];
    for (const req of reqs) {
      const fresh = await createApiKey(db, { workspaceId: t.workspaceId, name: 'fuzz-revoke' });
      sent++;
      const res = await fetch(t.baseUrl + req.url, {
        method: req.method,
        headers: { ...req.headers, ...auth(fresh.key) },
        ...(req.body !== undefined ? { body: req.body } : {}),
      });
      check(req, res.status, res.headers, await res.text(), failures);
      if (res.status === 200) revokedBy.push(fresh.key);
      // A refused request leaves its key active: gone before the next, to stay under the key cap.
      else await deleteApiKey(db, t.workspaceId, fresh.id);
    }
    expect(failures).toEqual([]);
    // The plausible bodies went through, and each revoked the key that sent it.
    expect(revokedBy.length).toBeGreaterThan(0);
    for (const key of revokedBy) expect((await t.request(`/api/clients?workspaceId=${t.workspaceId}`, { key })).status).toBe(401);
  }, 120_000);
});

describe('HTTP fuzz: rate limiting', () => {
  it('429 answers carry the error body, the headers and Retry-After, on routes and router errors alike', async () => {
    const t = await startTestApp({ config: { rateLimits: { ...UNLIMITED, perKeyMinute: 3 } } });
    try {
      const W = `workspaceId=${t.workspaceId}`;
      for (let i = 0; i < 3; i++) expect((await t.request(`/api/clients?${W}`)).status).toBe(200);
      for (const path of [`/api/clients?${W}`, `/api/clients/%zz?${W}`, `/api/nope?${W}`, `/api/clients/${'a'.repeat(1001)}?${W}`]) {
        const res = await t.request(path);
        expect(res.status, path).toBe(429);
        expect(await res.json()).toEqual({ error: expect.stringContaining('Rate limit'), code: 'RATE_LIMITED', status: 429 });
        expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
    } finally {
      await t.close();
    }
  });
});
