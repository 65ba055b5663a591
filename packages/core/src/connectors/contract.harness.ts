/**
 * What the connector contract suite (contract.test.ts) asks of each provider, and the test helpers
 * the providers' own test files share. Each provider folder has a `<name>.harness.ts`: a fake of
 * its API (persistent nock interceptors answering from its recorded `__fixtures__`, with the
 * provider's own paging, filters and error envelopes), a connector pointed at it, and the
 * provider's own answers to the failures every connector must handle. The cases themselves are written once.
 *
 * Harness files are test code: the build leaves them out (packages/core/tsconfig.json).
 */
import { readFileSync } from 'node:fs';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Clock } from '../util/time.js';
import type { RetryPolicy } from './retry.js';
import type { Connector, Provider, SyncBatch } from './types.js';

/** A request the fake API received. */
export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Parsed JSON body (POST), else undefined. */
  body: unknown;
}

/** A canned HTTP answer. */
export interface FakeReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Fault {
  match: (r: FakeRequest) => boolean;
  reply: FakeReply;
  left: number;
}

/** The requests a fake API saw, and the faults waiting for the requests they match. */
export class FakeApi {
  readonly requests: FakeRequest[] = [];
  readonly #faults: Fault[] = [];

  /** The next `times` requests matching `match` get `reply` instead of the data (Infinity: every one). */
  fail(match: (r: FakeRequest) => boolean, reply: FakeReply, times = 1): void {
    this.#faults.push({ match, reply, left: times });
  }

  /** Requests that matched `match`. */
  count(match: (r: FakeRequest) => boolean): number {
    return this.requests.filter(match).length;
  }

  /**
   * Serves `method` `path` on `base` for as long as the test runs: each request is logged, then
   * answered by the first fault it matches, else by `serve`.
   */
  route(base: string, method: 'GET' | 'POST', path: RegExp, serve: (r: FakeRequest) => FakeReply): void {
    const scope = nock(base).persist();
    const interceptor = method === 'GET' ? scope.get(path) : scope.post(path);
    interceptor.query(true).reply((uri, body) => {
      const url = new URL(uri, base);
      const r: FakeRequest = { method, path: url.pathname, query: url.searchParams, body: typeof body === 'string' && body !== '' ? JSON.parse(body) : body };
      this.requests.push(r);
      const fault = this.#faults.find((f) => f.left > 0 && f.match(r));
      if (fault) fault.left--;
      const a = fault?.reply ?? serve(r);
      return [a.status, JSON.stringify(a.body), { 'content-type': 'application/json', ...a.headers }];
    });
  }
}

/** What a connector is built with in the contract cases. */
interface HarnessConnectorOptions {
  clock: Clock;
  retry: Partial<RetryPolicy>;
}

/** One provider's fake, its data as recorded, and its connector. */
export interface ProviderFake {
  /** A connector reading the fake API, with credentials that a refresh cannot renew (a 401 is final). */
  connector(o: HarnessConnectorOptions): Connector;
  /** Provider ids a first full sync yields, in order; they come over more than one page. */
  readonly firstSync: readonly string[];
  /** The first page of the first listing a full sync reads: where faults are injected. */
  readonly isFirstPage: (r: FakeRequest) => boolean;
  /** The provider's answer to a dead token. */
  readonly unauthorized: FakeReply;
  /** The provider's answer when it is down. */
  readonly serverError: FakeReply;
  /** The provider's 429, asking for a wait of `seconds` from `now` its own way (Retry-After, a reset time). */
  rateLimited(seconds: number, now: Date): FakeReply;
  /** Changes the provider's data at `at` (after the first sync): returns the ids a quick sync must yield then. */
  change(at: Date): readonly string[];
}

export interface ConnectorHarness {
  readonly provider: Provider;
  /** Registers the fake API on `api`. */
  create(api: FakeApi): ProviderFake;
}

/** Reads a recorded JSON fixture from the `__fixtures__` folder beside `moduleUrl`. */
export function readFixture<T = Record<string, unknown>>(moduleUrl: string, name: string): T {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, moduleUrl), 'utf8')) as T;
}

/** Every batch of a sync. */
export async function collect<T>(batches: AsyncIterable<SyncBatch<T>>): Promise<SyncBatch<T>[]> {
  const out: SyncBatch<T>[] = [];
  for await (const b of batches) out.push(b);
  return out;
}

/** A retry policy for tests: waits are recorded in `sleeps` and return at once; no jitter. */
export function recordedRetry(sleeps: number[], over: Partial<RetryPolicy> = {}): Partial<RetryPolicy> {
  return { maxRetries: 3, sleep: async (ms) => void sleeps.push(ms), random: () => 0, ...over };
}

/**
 * A test file of recorded exchanges (nock): no network while it runs, and after each test every
 * exchange it set up was used, then `reset` runs.
 */
export function useRecordedExchanges(reset?: () => void): void {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    reset?.();
    expect(pending).toEqual([]);
  });
}
