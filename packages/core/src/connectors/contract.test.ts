/**
 * One contract for every connector: the same cases over Google, HubSpot and Intercom, each
 * against a fake of its API answering from its recorded fixtures (see contract.harness.ts).
 * What is provider-specific (mapping, windows, quotas that park) stays in each provider's tests.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isChsError } from '../errors.js';
import { collect, FakeApi, recordedRetry, type ConnectorHarness, type FakeRequest, type ProviderFake } from './contract.harness.js';
import { googleHarness } from './google/google.harness.js';
import { hubspotHarness } from './hubspot/hubspot.harness.js';
import { intercomHarness } from './intercom/intercom.harness.js';
import type { RetryPolicy } from './retry.js';
import type { Connector, ProviderRecord, SyncBatch, SyncOptions } from './types.js';
import type { RawMessage } from '../interfaces.js';

const NOW = Date.parse('2024-05-20T00:00:00.000Z');
const CHANGED_AT = new Date(NOW + 30 * 60_000);
const LATER = NOW + 60 * 60_000;

const harnesses: ConnectorHarness[] = [googleHarness, hubspotHarness, intercomHarness];

/** Every batch of a sync, whichever kind of connector. */
const sync = (c: Connector, o: SyncOptions): Promise<Array<SyncBatch<RawMessage> | SyncBatch<ProviderRecord>>> =>
  c.kind === 'mail' ? collect(c.sync(o)) : collect(c.sync(o));
const ids = (batches: SyncBatch<{ providerId?: string | undefined }>[]) => batches.flatMap((b) => b.items.map((i) => i.providerId));
const requestKey = (r: FakeRequest) => `${r.method} ${r.path}?${r.query.toString()} ${JSON.stringify(r.body ?? null)}`;

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());

describe.each(harnesses)('connector contract: $provider', (harness) => {
  let api: FakeApi;
  let fake: ProviderFake;
  let now: number;
  let sleeps: number[];
  const connector = (retry: Partial<RetryPolicy> = {}): Connector => fake.connector({ clock: () => new Date(now), retry: recordedRetry(sleeps, retry) });

  beforeEach(() => {
    api = new FakeApi();
    fake = harness.create(api);
    now = NOW;
    sleeps = [];
  });
  afterEach(() => void nock.cleanAll());

  it('a first sync reads every page, yields each item once and asks for nothing twice', async () => {
    const batches = await sync(connector(), { mode: 'full' });
    expect(ids(batches)).toEqual(fake.firstSync);
    expect(batches.filter((b) => b.items.length > 0).length).toBeGreaterThan(1);
    expect(batches.flatMap((b) => b.unreconciled)).toEqual([]);
    const keys = api.requests.map(requestKey);
    expect(keys).toEqual([...new Set(keys)]);
    expect(sleeps).toEqual([]);
  });

  it('a dead token gives INTEGRATION_NEEDS_REAUTH at the first request, never retried', async () => {
    api.fail(() => true, fake.unauthorized, Infinity);
    const err = await sync(connector(), { mode: 'full' }).catch((e: unknown) => e);
    expect(isChsError(err, 'INTEGRATION_NEEDS_REAUTH')).toBe(true);
    expect(api.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('a 429 waits what the provider asked, then the sync carries on to the end', async () => {
    api.fail(fake.isFirstPage, fake.rateLimited(7, new Date(NOW)));
    const batches = await sync(connector(), { mode: 'full' });
    expect(sleeps).toEqual([7000]);
    expect(api.count(fake.isFirstPage)).toBe(2);
    expect(ids(batches)).toEqual(fake.firstSync);
  });

  it('a 5xx is retried with backoff, then the sync carries on to the end', async () => {
    api.fail(fake.isFirstPage, fake.serverError, 2);
    const batches = await sync(connector({ random: () => 1 }), { mode: 'full' });
    // Full jitter at its ceiling: 500 ms, then 1 s.
    expect(sleeps).toEqual([500, 1000]);
    expect(api.count(fake.isFirstPage)).toBe(3);
    expect(ids(batches)).toEqual(fake.firstSync);
  });

  it('a 5xx that persists fails with a PROVIDER_ERROR naming the provider, after the bounded retries', async () => {
    api.fail(fake.isFirstPage, fake.serverError, Infinity);
    const err = await sync(connector({ maxRetries: 2 }), { mode: 'full' }).catch((e: unknown) => e);
    expect(isChsError(err, 'PROVIDER_ERROR')).toBe(true);
    if (!isChsError(err)) return;
    expect(err.message).toContain(harness.provider);
    expect(err.details).toMatchObject({ provider: harness.provider, attempts: 3 });
    expect(api.count(fake.isFirstPage)).toBe(3);
  });

  it('a quick sync after a first sync reads only what changed, and the next one nothing', async () => {
    const first = await sync(connector(), { mode: 'full' });
    const saved = first.at(-1)?.cursor;
    now = LATER;
    const changed = fake.change(CHANGED_AT);
    const quick = await sync(connector(), { mode: 'quick', ...(saved ? { cursor: saved } : {}) });
    expect(ids(quick)).toEqual(changed);
    const next = quick.at(-1)?.cursor;
    const again = await sync(connector(), { mode: 'quick', ...(next ? { cursor: next } : {}) });
    expect(ids(again)).toEqual([]);
  });

  it('resuming from a cursor saved mid-way yields the remaining items exactly once', async () => {
    const first = await sync(connector(), { mode: 'full' });
    expect(first.length).toBeGreaterThan(1);
    const [head, ...rest] = first;
    // A crash after the first batch was stored: the next run starts from its cursor.
    const resumed = await sync(connector(), { mode: 'quick', ...(head ? { cursor: head.cursor } : {}) });
    expect(ids(resumed)).toEqual(ids(rest));
    // The first page is not read again.
    expect(api.count(fake.isFirstPage)).toBe(1);
  });
});
