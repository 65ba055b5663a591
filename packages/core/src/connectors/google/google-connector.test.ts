import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { isChsError } from '../../errors.js';
import { fixedClock } from '../../util/time.js';
import type { RawMessage } from '../../interfaces.js';
import { collect, readFixture, recordedRetry, useRecordedExchanges } from '../contract.harness.js';
import type { GoogleCredentials } from '../types.js';
import { createGoogleConnector, type GoogleConnectorOptions } from './google-connector.js';

const fx = (name: string) => readFixture(import.meta.url, name);
const raws = readFixture<Record<string, Record<string, unknown>>>(import.meta.url, 'messages-raw.json');
const msg = (id: string) => raws[id] as Record<string, unknown>;

const API = 'https://gmail.googleapis.com';
const TOKEN = 'https://oauth2.googleapis.com';
const NOW = '2024-05-20T00:00:00.000Z';
const until = Date.parse(NOW) / 1000;
const DAY = 86_400;

let sleeps: number[] = [];
const creds: GoogleCredentials = {
  accessToken: 'ya29.valid',
  refreshToken: '1//refresh',
  clientId: 'cid',
  clientSecret: 'csecret',
  expiresAt: '2099-01-01T00:00:00.000Z',
  email: 'rep@acme.test',
};

function connector(over: Partial<GoogleConnectorOptions> = {}) {
  return createGoogleConnector({
    credentials: creds,
    clock: fixedClock(NOW),
    retry: recordedRetry(sleeps),
    ...over,
  });
}

const text = (m: RawMessage) => m.raw.toString('utf8');

useRecordedExchanges(() => {
  sleeps = [];
});

describe('google connector: full read', () => {
  it('reads the newest window first over several pages, then older windows, and ends on the profile history id', async () => {
    const since = new Date((until - 20 * DAY) * 1000);
    const api = nock(API, { reqheaders: { authorization: 'Bearer ya29.valid' } })
      .get('/gmail/v1/users/me/profile')
      .reply(200, fx('profile.json'))
      .get('/gmail/v1/users/me/messages')
      .query((q) => q.maxResults === '1')
      .reply(200, { resultSizeEstimate: 4 })
      .get('/gmail/v1/users/me/messages')
      .query({ maxResults: '500', q: `after:${until - 7 * DAY} before:${until}` })
      .reply(200, fx('messages-list-recent-page1.json'))
      .get('/gmail/v1/users/me/messages')
      .query({ maxResults: '500', q: `after:${until - 7 * DAY} before:${until}`, pageToken: '09472618364652837163' })
      .reply(200, fx('messages-list-recent-page2.json'))
      .get('/gmail/v1/users/me/messages')
      .query({ maxResults: '500', q: `after:${until - 20 * DAY} before:${until - 7 * DAY}` })
      .reply(200, fx('messages-list-older.json'));
    for (const id of ['18f7a2c4b1e0d9a1', '18f7a1f03c2b7e55', '18f79ee2aa01c3d0', '18f5000000000001']) {
      api.get(`/gmail/v1/users/me/messages/${id}`).query({ format: 'raw' }).reply(200, msg(id));
    }
    const batches = await collect(connector().sync({ mode: 'quick', since }));
    expect(batches.map((b) => b.items.map((m) => m.providerId))).toEqual([
      ['18f7a2c4b1e0d9a1', '18f7a1f03c2b7e55'],
      ['18f79ee2aa01c3d0'],
      ['18f5000000000001'],
    ]);
    const first = batches[0]!.items[0]!;
    expect(text(first)).toContain('Subject: Q3 renewal');
    expect(text(first)).toContain('Message-ID: <CAF1234@mail.acme.test>');
    expect(first.envelopeDate).toBe('2024-05-14T09:30:00.000Z');
    expect(first.location).toBe('gmail:18f7a2c4b1e0d9a1');
    expect(batches[0]!.expectedIds).toEqual(['18f7a2c4b1e0d9a1', '18f7a1f03c2b7e55']);
    expect(batches.every((b) => b.unreconciled.length === 0)).toBe(true);
    // Mid-window the cursor carries the page token; the last batch moves to history mode.
    expect(batches[0]!.cursor).toMatchObject({ phase: 'full', pageToken: '09472618364652837163', windowStart: until - 7 * DAY });
    expect(batches[1]!.cursor).toMatchObject({ phase: 'full', windowStart: until - 20 * DAY, windowEnd: until - 7 * DAY });
    expect(batches[1]!.cursor).not.toHaveProperty('pageToken');
    expect(batches[2]!.cursor).toEqual({ v: 1, phase: 'incremental', historyId: '4182930' });
  });
});

describe('google connector: the total, before the first page', () => {
  it("tells Gmail's estimate of the whole window (one list call of one id) before any page is read, and the mailbox's count when Gmail gives none", async () => {
    const since = new Date((until - 20 * DAY) * 1000);
    for (const [estimate, expected] of [
      [{ resultSizeEstimate: 2750 }, 2750],
      [{}, 3012],
    ] as const) {
      nock(API)
        .get('/gmail/v1/users/me/profile')
        .reply(200, { ...fx('profile.json'), messagesTotal: 3012 })
        .get('/gmail/v1/users/me/messages')
        .query({ maxResults: '1', q: `after:${until - 20 * DAY} before:${until}` })
        .reply(200, estimate)
        .get('/gmail/v1/users/me/messages')
        .query(true)
        .times(2)
        .reply(200, { resultSizeEstimate: 0 });
      const seen: Array<{ totalEstimate?: number | undefined; batches: number }> = [];
      let batches = 0;
      for await (const _b of connector().sync({ mode: 'full', since, onProgress: (p) => seen.push({ totalEstimate: p.totalEstimate, batches }) })) batches += 1;
      expect(seen[0]).toEqual({ totalEstimate: expected, batches: 0 });
      expect(nock.isDone()).toBe(true);
    }
  });
});

describe('google connector: incremental', () => {
  it('with no changes yields one empty batch carrying the new history id', async () => {
    nock(API).get('/gmail/v1/users/me/history').query(true).reply(200, fx('history-empty.json'));
    const batches = await collect(connector().sync({ mode: 'quick', cursor: { v: 1, phase: 'incremental', historyId: '4182900' } }));
    expect(batches).toHaveLength(1);
    expect(batches[0]!.items).toEqual([]);
    expect(batches[0]!.cursor).toEqual({ v: 1, phase: 'incremental', historyId: '4182930' });
  });

  it('history 404 → a windowed full resync, signalled on the first batch', async () => {
    nock(API)
      .get('/gmail/v1/users/me/history')
      .query(true)
      .reply(404, fx('error-404.json'))
      .get('/gmail/v1/users/me/profile')
      .reply(200, fx('profile.json'))
      .get('/gmail/v1/users/me/messages')
      .query((q) => q.maxResults === '1')
      .reply(200, { resultSizeEstimate: 4 })
      .get('/gmail/v1/users/me/messages')
      .query({ maxResults: '500', q: `after:${until - 7 * DAY} before:${until}` })
      .reply(200, fx('messages-list-recent-page2.json'))
      .get('/gmail/v1/users/me/messages/18f79ee2aa01c3d0')
      .query({ format: 'raw' })
      .reply(200, msg('18f79ee2aa01c3d0'));
    const batches = await collect(connector({ horizonDays: 7 }).sync({ mode: 'quick', cursor: { v: 1, phase: 'incremental', historyId: '1' } }));
    expect(batches).toHaveLength(1);
    expect(batches[0]!.resync?.reason).toMatch(/history id 1 .*404/);
    expect(batches[0]!.items.map((m) => m.providerId)).toEqual(['18f79ee2aa01c3d0']);
    expect(batches[0]!.cursor).toEqual({ v: 1, phase: 'incremental', historyId: '4182930' });
  });
});

describe('google connector: politeness and failures', () => {
  const oneMessageWindow = () =>
    nock(API)
      .get('/gmail/v1/users/me/profile')
      .reply(200, fx('profile.json'))
      .get('/gmail/v1/users/me/messages')
      .query((q) => q.maxResults === '1')
      .reply(200, { resultSizeEstimate: 4 })
      .get('/gmail/v1/users/me/messages')
      .query(true)
      .reply(200, fx('messages-list-recent-page2.json'));

  // 429, 5xx, 401 and resuming are the connector contract's (contract.test.ts); a 403 that means "slow down" is Gmail's own.
  it('a 403 userRateLimitExceeded is retried with backoff', async () => {
    oneMessageWindow()
      .get('/gmail/v1/users/me/messages/18f79ee2aa01c3d0')
      .query({ format: 'raw' })
      .reply(403, fx('error-403-user-rate.json'))
      .get('/gmail/v1/users/me/messages/18f79ee2aa01c3d0')
      .query({ format: 'raw' })
      .reply(200, msg('18f79ee2aa01c3d0'));
    const batches = await collect(connector({ horizonDays: 7, retry: recordedRetry(sleeps, { random: () => 0.5 }) }).sync({ mode: 'full' }));
    expect(batches[0]!.items.map((m) => m.providerId)).toEqual(['18f79ee2aa01c3d0']);
    // Full jitter with random 0.5: half of 500·2^0.
    expect(sleeps).toEqual([250]);
  });

  it('a message that fails to fetch twice is listed as unreconciled with its reason; the rest is kept', async () => {
    nock(API)
      .get('/gmail/v1/users/me/profile')
      .reply(200, fx('profile.json'))
      .get('/gmail/v1/users/me/messages')
      .query((q) => q.maxResults === '1')
      .reply(200, { resultSizeEstimate: 4 })
      .get('/gmail/v1/users/me/messages')
      .query(true)
      .reply(200, {
        ...fx('messages-list-recent-page1.json'),
        messages: [
          { id: '18f7a2c4b1e0d9a1', threadId: 'a' },
          { id: '18f7a1f03c2b7e55', threadId: 'b' },
          { id: '18f79ee2aa01c3d0', threadId: 'c' },
          { id: '18f7000000000bad', threadId: 'd' },
        ],
        nextPageToken: undefined,
      })
      .get('/gmail/v1/users/me/messages/18f7a2c4b1e0d9a1')
      .query({ format: 'raw' })
      .reply(200, msg('18f7a2c4b1e0d9a1'))
      .get('/gmail/v1/users/me/messages/18f7a1f03c2b7e55')
      .query({ format: 'raw' })
      .twice()
      .reply(500, fx('error-503.json'))
      .get('/gmail/v1/users/me/messages/18f79ee2aa01c3d0')
      .query({ format: 'raw' })
      .reply(200, msg('18f79ee2aa01c3d0'))
      // A malformed message in the middle: no raw content.
      .get('/gmail/v1/users/me/messages/18f7000000000bad')
      .query({ format: 'raw' })
      .reply(200, { id: '18f7000000000bad', threadId: 'd', labelIds: ['INBOX'], internalDate: '1715600000000', sizeEstimate: 10 });
    const batches = await collect(connector({ horizonDays: 7, retry: { maxRetries: 0, sleep: async () => undefined } }).sync({ mode: 'full' }));
    expect(batches).toHaveLength(1);
    const b = batches[0]!;
    expect(b.items.map((m) => m.providerId)).toEqual(['18f7a2c4b1e0d9a1', '18f79ee2aa01c3d0']);
    expect(b.expectedIds).toHaveLength(4);
    expect(b.unreconciled).toEqual([
      { providerId: '18f7a1f03c2b7e55', reason: expect.stringMatching(/Backend Error/) },
      { providerId: '18f7000000000bad', reason: 'message has no raw content' },
    ]);
  });

  it('refreshes an expired access token through the token endpoint and hands the new tokens to onTokens', async () => {
    const saved: GoogleCredentials[] = [];
    const token = nock(TOKEN)
      .post(
        '/token',
        (body: Record<string, string>) => body['grant_type'] === 'refresh_token' && body['refresh_token'] === '1//refresh' && body['client_id'] === 'cid',
      )
      .reply(200, fx('token-refresh.json'));
    nock(API, { reqheaders: { authorization: 'Bearer ya29.a0AfB_refreshed' } })
      .get('/gmail/v1/users/me/profile')
      .reply(200, fx('profile.json'))
      .get('/gmail/v1/users/me/messages')
      .query((q) => q.maxResults === '1')
      .reply(200, { resultSizeEstimate: 4 })
      .get('/gmail/v1/users/me/messages')
      .query(true)
      .reply(200, fx('messages-list-empty.json'));
    const c = connector({ horizonDays: 7, credentials: { ...creds, expiresAt: '2000-01-01T00:00:00.000Z' }, onTokens: (t) => void saved.push(t) });
    const batches = await collect(c.sync({ mode: 'full' }));
    expect(token.isDone()).toBe(true);
    expect(batches[0]!.items).toEqual([]);
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({
      accessToken: 'ya29.a0AfB_refreshed',
      refreshToken: '1//refresh',
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
    });
    expect(Date.parse(saved[0]!.expiresAt!)).toBeGreaterThan(Date.now());
  });

  it('invalid_grant from the token endpoint → INTEGRATION_NEEDS_REAUTH, asked once, never retried', async () => {
    nock(TOKEN).post('/token').once().reply(400, fx('token-invalid-grant.json'));
    const c = connector({ credentials: { ...creds, expiresAt: '2000-01-01T00:00:00.000Z' } });
    const err = await collect(c.sync({ mode: 'full' })).catch((e: unknown) => e);
    expect(isChsError(err, 'INTEGRATION_NEEDS_REAUTH')).toBe(true);
    expect((err as Error).message).toMatch(/invalid_grant/);
    expect(sleeps).toEqual([]);
  });

  it('a 401 with a refresh token refreshes once and carries on', async () => {
    nock(API).get('/gmail/v1/users/me/profile').reply(401, fx('error-401.json'));
    nock(TOKEN).post('/token').reply(200, fx('token-refresh.json'));
    nock(API, { reqheaders: { authorization: 'Bearer ya29.a0AfB_refreshed' } })
      .get('/gmail/v1/users/me/profile')
      .reply(200, fx('profile.json'))
      .get('/gmail/v1/users/me/messages')
      .query((q) => q.maxResults === '1')
      .reply(200, { resultSizeEstimate: 4 })
      .get('/gmail/v1/users/me/messages')
      .query(true)
      .reply(200, fx('messages-list-empty.json'));
    const batches = await collect(connector({ horizonDays: 7 }).sync({ mode: 'full' }));
    expect(batches).toHaveLength(1);
  });

  it('a daily quota parks the sync with a resume time', async () => {
    nock(API)
      .get('/gmail/v1/users/me/profile')
      .reply(403, {
        error: {
          code: 403,
          message: 'Daily Limit Exceeded',
          errors: [{ domain: 'usageLimits', reason: 'dailyLimitExceeded', message: 'Daily Limit Exceeded' }],
        },
      });
    const err = await collect(connector().sync({ mode: 'full' })).catch((e: unknown) => e);
    expect(isChsError(err, 'PROVIDER_RATE_LIMITED')).toBe(true);
    // 2024-05-20T00:00Z is 17:00 PDT on the 19th: Pacific midnight is 7 hours later.
    expect((err as { details: { resumeAt: string } }).details.resumeAt).toBe('2024-05-20T07:00:00.000Z');
  });
});
