import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { JSON_CONTENT_TYPE, ReadCache } from './read-cache.js';
import { WorkspaceQuery } from './schemas.js';
import { sqliteDialect } from '@chs/core/testing';
import { startTestApp } from './testing.js';
import type { RouteModule } from './types.js';

const state = { version: 'v1' as string | undefined, now: 0, runs: 0 };

/**
 * The parts of a validated request the cache reads (a route whose query declares `workspaceId`
 * and `limit`); its data version is the store's as it "arrives".
 */
const request = (path: string, query: Record<string, string> = {}): FastifyRequest => {
  const search = new URLSearchParams(query).toString();
  return {
    auth: { workspaceId: 'acme.com' },
    dataVersion: state.version,
    method: 'GET',
    url: search ? `${path}?${search}` : path,
    routeOptions: { url: path, schema: { querystring: { properties: { workspaceId: {}, limit: {} } } } },
    params: {},
    query: { workspaceId: 'acme.com', ...query },
  } as unknown as FastifyRequest;
};

function setup(maxEntries?: number, maxChars?: number) {
  Object.assign(state, { version: 'v1', now: Date.parse('2024-06-30T12:00:00.000Z'), runs: 0 });
  const cache = new ReadCache({
    dataVersion: () => state.version,
    clock: () => new Date(state.now),
    ...(maxEntries ? { maxEntries } : {}),
    ...(maxChars ? { maxChars } : {}),
  });
  const compute = (validUntil?: string) => async () => {
    state.runs += 1;
    return { value: { run: state.runs }, ...(validUntil ? { validUntil: new Date(validUntil) } : {}) };
  };
  return { state, cache, compute };
}

describe('ReadCache', () => {
  it('answers from the kept JSON while the data version holds; a new version computes again', async () => {
    const { state, cache, compute } = setup();
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":1}');
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":1}');
    expect(await cache.forRequest(request('/a', { limit: '5' }), compute())).toBe('{"run":2}');
    expect(state.runs).toBe(2);
    state.version = 'v2';
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":3}');
    expect(await cache.forRequest(request('/a', { limit: '5' }), compute())).toBe('{"run":4}');
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":3}');
  });

  it('keeps an answer only until the instant its computation named', async () => {
    const { state, cache, compute } = setup();
    expect(await cache.forRequest(request('/a'), compute('2024-06-30T13:00:00.000Z'))).toBe('{"run":1}');
    state.now = Date.parse('2024-06-30T12:59:59.999Z');
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":1}');
    state.now = Date.parse('2024-06-30T13:00:00.000Z');
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":2}');
    // Kept for good when its computation named no instant.
    state.now = Date.parse('2030-01-01T00:00:00.000Z');
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":2}');
  });

  it('keeps nothing without a data version (PostgreSQL)', async () => {
    const { state, cache, compute } = setup();
    state.version = undefined;
    await cache.forRequest(request('/a'), compute());
    await cache.forRequest(request('/a'), compute());
    expect(state.runs).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('does not keep an answer whose computation saw the data version move', async () => {
    const { state, cache } = setup();
    const moving = async () => {
      state.runs += 1;
      state.version = `w${state.runs}`; // a write lands while this answer is computed
      return { value: { run: state.runs } };
    };
    expect(await cache.forRequest(request('/a'), moving)).toBe('{"run":1}');
    expect(cache.size).toBe(0);
    const still = async () => ({ value: { run: ++state.runs } });
    expect(await cache.forRequest(request('/a'), still)).toBe('{"run":2}');
    expect(await cache.forRequest(request('/a'), still)).toBe('{"run":2}');
  });

  it('answers a request from the version it arrived with, kept answers only for that version', async () => {
    const { state, cache, compute } = setup();
    const early = request('/a'); // arrives at v1
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":1}');
    state.version = 'v2';
    const late = request('/a'); // arrives at v2
    // The one that arrived before the write may still have the answer of v1; the later one not.
    expect(await cache.forRequest(early, compute())).toBe('{"run":1}');
    expect(await cache.forRequest(late, compute())).toBe('{"run":2}');
    // Once v2's answer is kept, a request of v1 arriving late computes (the v1 answers are gone),
    // on the data as it is now, so its answer is kept for v2.
    expect(await cache.forRequest(early, compute())).toBe('{"run":3}');
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":3}');
  });

  it('identical requests arriving together compute once; errors are not kept', async () => {
    const { state, cache, compute } = setup();
    const answers = await Promise.all([1, 2, 3].map(() => cache.forRequest(request('/a'), compute())));
    expect(answers).toEqual(['{"run":1}', '{"run":1}', '{"run":1}']);
    let failures = 0;
    const failing = async () => {
      failures += 1;
      throw new Error('no such client');
    };
    await expect(cache.forRequest(request('/b'), failing)).rejects.toThrow('no such client');
    await expect(cache.forRequest(request('/b'), failing)).rejects.toThrow('no such client');
    expect(failures).toBe(2);
    expect(state.runs).toBe(1);
  });

  it('holds at most maxEntries answers, the oldest going first', async () => {
    const { state, cache, compute } = setup(2);
    await cache.forRequest(request('/a'), compute());
    await cache.forRequest(request('/b'), compute());
    await cache.forRequest(request('/c'), compute());
    expect(cache.size).toBe(2);
    expect(await cache.forRequest(request('/c'), compute())).toBe('{"run":3}');
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":4}');
    expect(state.runs).toBe(4);
  });

  it('keys on the validated, known parameters: unknown query parameters make no new entry', async () => {
    const { state, cache, compute } = setup();
    for (let i = 0; i < 50; i++) expect(await cache.forRequest(request('/a', { [`x${i}`]: String(i), utm: 'y'.repeat(100) }), compute())).toBe('{"run":1}');
    expect(await cache.forRequest(request('/a'), compute())).toBe('{"run":1}');
    expect(cache.size).toBe(1);
    expect(await cache.forRequest(request('/a', { limit: '5', x: '1' }), compute())).toBe('{"run":2}');
    expect(cache.size).toBe(2);
    expect(state.runs).toBe(2);
  });

  it('holds at most maxChars of JSON, the oldest going first; a larger answer is not kept', async () => {
    const { state, cache } = setup(undefined, 30);
    const sized = (n: number) => async () => ({ value: 'x'.repeat(n - 2 + 0 * ++state.runs) });
    await cache.forRequest(request('/a'), sized(10));
    await cache.forRequest(request('/b'), sized(10));
    await cache.forRequest(request('/c'), sized(10));
    expect([cache.size, cache.chars]).toEqual([3, 30]);
    await cache.forRequest(request('/d'), sized(15)); // /a and /b go
    expect([cache.size, cache.chars]).toEqual([2, 25]);
    await cache.forRequest(request('/e'), sized(31)); // too large to keep; nothing else goes
    expect([cache.size, cache.chars]).toEqual([2, 25]);
    await cache.forRequest(request('/c'), sized(10));
    expect(state.runs).toBe(5); // /c answered from the cache
  });
});

describe('ReadCache in a route', () => {
  it('unknown, repeated-default and re-spelled query parameters share one entry', async () => {
    let runs = 0;
    let cache: ReadCache | undefined;
    const probe: RouteModule = (deps) =>
      (async (plain) => {
        const app = plain.withTypeProvider<TypeBoxTypeProvider>();
        const c = new ReadCache({ dataVersion: () => deps.engine.store.dataVersion(), clock: deps.engine.clock });
        cache = c;
        const querystring = Type.Object({ ...WorkspaceQuery.properties, limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) });
        app.get('/probe/cached/:id', { schema: { querystring, params: Type.Object({ id: Type.String({ maxLength: 20 }) }) } }, async (request, reply) =>
          reply.type(JSON_CONTENT_TYPE).send(await c.forRequest(request, async () => ({ value: { run: ++runs, limit: request.query.limit } }))),
        );
      }) satisfies FastifyPluginAsync;
    // SQLite: only its data version lets answers be kept (PostgreSQL keeps none).
    const t = await startTestApp({ extraRoutes: [probe], dialect: sqliteDialect });
    try {
      const W = `workspaceId=${t.workspaceId}`;
      const urls = [`?${W}`, `?${W}&limit=20`, `?limit=020&${W}`, `?${W}&WorkspaceId=x`, ...Array.from({ length: 30 }, (_, i) => `?${W}&x=${i}&x=${i + 1}`)];
      for (const q of urls) {
        const res = await t.request(`/api/probe/cached/one${q}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ run: 1, limit: 20 });
      }
      expect(cache?.size).toBe(1);
      expect(await (await t.request(`/api/probe/cached/one?${W}&limit=21`)).json()).toEqual({ run: 2, limit: 21 });
      expect(await (await t.request(`/api/probe/cached/two?${W}`)).json()).toEqual({ run: 3, limit: 20 });
      expect(cache?.size).toBe(3);
    } finally {
      await t.close();
    }
  });
});
