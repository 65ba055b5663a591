/**
 * HubSpot public-app OAuth on the wire (nock, shaped as HubSpot answers; the real
 * @hubspot/api-client): the install URL, the code exchange, the refresh of the 30-minute access
 * token, and HubSpot's refusals (a used code, a dead refresh token, its 5xx); then the connector on
 * OAuth tokens: refreshed before expiry and once after a 401, the new tokens handed on to be saved.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChsError } from '../../errors.js';
import { exchangeHubSpotCode, hubspotAuthorizeUrl, hubspotNeedsRefresh, refreshHubSpotToken, runHubSpotLoopbackInstall } from './hubspot-oauth.js';
import { createHubSpotConnector } from './hubspot-connector.js';

const API = 'https://api.hubapi.com';
const APP = { clientId: '5a1b2c3d-app', clientSecret: 'app-secret-xyz', apiUrl: API };
const NOW = new Date('2026-02-01T10:00:00.000Z');

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

/** The form a token request sends, as HubSpot reads it (nock hands a url-encoded body over parsed). */
const form = (body: unknown): Record<string, string> =>
  typeof body === 'string' ? Object.fromEntries(new URLSearchParams(body)) : Object.fromEntries(Object.entries(body as Record<string, string>));

describe('HubSpot OAuth (public app)', () => {
  it('builds the install URL with the app, the redirect, the read scopes and the state', () => {
    const url = new URL(hubspotAuthorizeUrl({ clientId: APP.clientId, redirectUri: 'https://h.example/api/integrations/hubspot/callback', state: 's1' }));
    expect(`${url.origin}${url.pathname}`).toBe('https://app.hubspot.com/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: APP.clientId,
      redirect_uri: 'https://h.example/api/integrations/hubspot/callback',
      state: 's1',
      scope: 'crm.objects.companies.read crm.objects.contacts.read crm.objects.owners.read sales-email-read',
    });
  });

  it('exchanges the code, then refreshes the 30-minute access token; refreshing is due 5 minutes before expiry', async () => {
    let seen: Record<string, string> = {};
    nock(API)
      .post('/oauth/v1/token', (b) => ((seen = form(b)), true))
      .reply(200, { token_type: 'bearer', access_token: 'CJT-first', refresh_token: 'rt-1', expires_in: 1800 });
    const first = await exchangeHubSpotCode(APP, { code: 'code-1', redirectUri: 'https://h.example/cb', now: NOW });
    expect(seen).toEqual({
      grant_type: 'authorization_code',
      code: 'code-1',
      redirect_uri: 'https://h.example/cb',
      client_id: APP.clientId,
      client_secret: APP.clientSecret,
    });
    expect(first).toEqual({
      accessToken: 'CJT-first',
      refreshToken: 'rt-1',
      clientId: APP.clientId,
      clientSecret: APP.clientSecret,
      expiresAt: '2026-02-01T10:30:00.000Z',
    });

    expect(hubspotNeedsRefresh(first, new Date('2026-02-01T10:24:59.000Z'))).toBe(false);
    expect(hubspotNeedsRefresh(first, new Date('2026-02-01T10:25:00.000Z'))).toBe(true);
    expect(hubspotNeedsRefresh({ accessToken: 'pat-na1-private' }, NOW)).toBe(false); // a private-app token never expires

    nock(API)
      .post('/oauth/v1/token', (b) => ((seen = form(b)), true))
      .reply(200, { token_type: 'bearer', access_token: 'CJT-second', refresh_token: 'rt-1', expires_in: 1800 });
    const later = new Date('2026-02-01T10:26:00.000Z');
    const second = await refreshHubSpotToken(APP, { refreshToken: 'rt-1', now: later });
    expect(seen).toEqual({ grant_type: 'refresh_token', refresh_token: 'rt-1', client_id: APP.clientId, client_secret: APP.clientSecret });
    expect(second).toMatchObject({ accessToken: 'CJT-second', refreshToken: 'rt-1', expiresAt: '2026-02-01T10:56:00.000Z' });
  });

  it('a used code is OAUTH_FAILED, a dead refresh token INTEGRATION_NEEDS_REAUTH, a 5xx PROVIDER_ERROR; no secret is echoed', async () => {
    nock(API).post('/oauth/v1/token').reply(400, { status: 'BAD_AUTH_CODE', message: 'auth code not found', correlationId: 'c1' });
    const code = (await exchangeHubSpotCode(APP, { code: 'used', redirectUri: 'https://h.example/cb', now: NOW }).catch((e: unknown) => e)) as ChsError;
    expect(code).toMatchObject({ code: 'OAUTH_FAILED', details: { reason: 'code' } });
    expect(code.message).toContain('BAD_AUTH_CODE (auth code not found)');

    nock(API).post('/oauth/v1/token').reply(400, { status: 'BAD_REFRESH_TOKEN', message: 'missing or invalid refresh token', correlationId: 'c2' });
    const dead = (await refreshHubSpotToken(APP, { refreshToken: 'rt-dead', now: NOW }).catch((e: unknown) => e)) as ChsError;
    expect(dead.code).toBe('INTEGRATION_NEEDS_REAUTH');
    expect(dead.message).toContain('BAD_REFRESH_TOKEN');

    nock(API).post('/oauth/v1/token').reply(502, { status: 'error', message: 'Bad gateway' });
    const down = (await refreshHubSpotToken(APP, { refreshToken: 'rt-1', now: NOW }).catch((e: unknown) => e)) as ChsError;
    expect(down.code).toBe('PROVIDER_ERROR');
    for (const e of [code, dead, down]) expect(e.message).not.toMatch(/app-secret-xyz|rt-dead|rt-1/);
  });
});

describe('installing from the terminal (loopback)', () => {
  it('an install nobody completes ends after the time limit with a clear error naming the redirect URL', async () => {
    let url = '';
    const err = (await runHubSpotLoopbackInstall({ ...APP, port: 0, timeoutMs: 1000, onUrl: (u) => void (url = u), now: () => NOW }).catch(
      (e: unknown) => e,
    )) as ChsError;
    const redirect = new URL(url).searchParams.get('redirect_uri') ?? '';
    expect(redirect).toMatch(/^http:\/\/localhost:\d+$/);
    expect(err.code).toBe('OAUTH_FAILED');
    expect(err.message).toBe(`HubSpot install timed out: no answer came back to ${redirect} within 1 s`);
  });
});

describe('a HubSpot connector on OAuth tokens', () => {
  const company = {
    id: '101',
    properties: { name: 'Globex', domain: 'globex.com', hs_lastmodifieddate: '2026-01-20T10:00:00.000Z' },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-20T10:00:00.000Z',
    archived: false,
  };
  const read = async (credentials: Parameters<typeof createHubSpotConnector>[0]['credentials'], onTokens: (c: unknown) => void) => {
    const connector = createHubSpotConnector({
      credentials,
      onTokens,
      apiUrl: API,
      streams: ['companies'],
      clock: () => NOW,
      retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
    });
    const items = [];
    for await (const b of connector.sync({ mode: 'full', since: new Date('2026-01-01T00:00:00.000Z') })) items.push(...b.items);
    return items;
  };

  it('refreshes an expired access token before the first call and persists the new one', async () => {
    nock(API).post('/oauth/v1/token').reply(200, { token_type: 'bearer', access_token: 'CJT-new', refresh_token: 'rt-1', expires_in: 1800 });
    nock(API, { reqheaders: { authorization: 'Bearer CJT-new' } })
      .persist()
      .post('/crm/v3/objects/companies/search')
      .reply(200, { total: 1, results: [company] });
    nock(API)
      .get(/\/crm\/v3\/owners/)
      .optionally()
      .reply(200, { results: [] });
    const saved: unknown[] = [];
    const items = await read(
      { accessToken: 'CJT-old', refreshToken: 'rt-1', clientId: APP.clientId, clientSecret: APP.clientSecret, expiresAt: '2026-02-01T09:59:00.000Z' },
      (c) => saved.push(c),
    );
    expect(items.some((i) => i.kind === 'company' && i.providerId === '101')).toBe(true);
    expect(saved).toEqual([
      { accessToken: 'CJT-new', refreshToken: 'rt-1', clientId: APP.clientId, clientSecret: APP.clientSecret, expiresAt: '2026-02-01T10:30:00.000Z' },
    ]);
    nock.cleanAll();
  });

  it('a 401 on a token that should still live: one refresh, then the call again; a private-app token is never refreshed', async () => {
    nock(API, { reqheaders: { authorization: 'Bearer CJT-live' } })
      .post('/crm/v3/objects/companies/search')
      .reply(401, { status: 'error', message: 'The OAuth token used to make this call expired 75 second(s) ago.', category: 'EXPIRED_AUTHENTICATION' });
    nock(API).post('/oauth/v1/token').reply(200, { token_type: 'bearer', access_token: 'CJT-fresh', refresh_token: 'rt-1', expires_in: 1800 });
    nock(API, { reqheaders: { authorization: 'Bearer CJT-fresh' } })
      .persist()
      .post('/crm/v3/objects/companies/search')
      .reply(200, { total: 1, results: [company] });
    nock(API)
      .get(/\/crm\/v3\/owners/)
      .optionally()
      .reply(200, { results: [] });
    const saved: unknown[] = [];
    await read(
      { accessToken: 'CJT-live', refreshToken: 'rt-1', clientId: APP.clientId, clientSecret: APP.clientSecret, expiresAt: '2026-02-01T10:20:00.000Z' },
      (c) => saved.push(c),
    );
    expect(saved).toHaveLength(1);
    nock.cleanAll();

    nock(API)
      .post('/crm/v3/objects/companies/search')
      .reply(401, { status: 'error', message: 'Authentication credentials not found.', category: 'INVALID_AUTHENTICATION' });
    const err = (await read({ accessToken: 'pat-na1-private' }, () => undefined).catch((e: unknown) => e)) as ChsError;
    expect(err.code).toBe('INTEGRATION_NEEDS_REAUTH');
  });
});
