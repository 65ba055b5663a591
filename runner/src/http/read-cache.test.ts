import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ReadCache } from './read-cache.js';

const state = { version: 'v1' as string | undefined, now: 0, runs: 0 };

/** The parts of a request the cache reads; its data version is the store's as it "arrives". */
const request = (path: string, query: Record<string, string> = {}): FastifyRequest => {
  const search = new URLSearchParams(query).toString();
  return { auth: { workspaceId: 'acme.com' }, dataVersion: state.version, method: 'GET', url: search ? `${path}?${search}` : path } as unknown as FastifyRequest;
};

function setup(maxEntries?: number) {
  Object.assign(state, { version: 'v1', now: Date.parse('2024-06-30T12:00:00.000Z'), runs: 0 });
  const cache = new ReadCache({ dataVersion: () => state.version, clock: () => new Date(state.now), ...(maxEntries ? { maxEntries } : {}) });
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
});
