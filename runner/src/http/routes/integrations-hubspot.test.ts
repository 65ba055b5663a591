/**
 * Installing the HubSpot public app from the dashboard, end to end over real sockets: the app (its
 * callback at CHS_PUBLIC_URL), a local fake of HubSpot's install screen, token endpoint and CRM
 * (it checks the client id, the secret, the redirect URI and the single-use code), and the real
 * @hubspot/api-client. "The browser" follows the redirects by hand so each hop can be checked.
 * Then the stored tokens sync the workspace's companies, refreshing the 30-minute access token
 * HubSpot let expire; a refused install (denied, forged, replayed, another provider's state, a
 * code HubSpot refuses, expired) lands on a page saying why, with nothing stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getIntegrationCredentials, loadOrCreateSecretKey, silentLogger, syncProvider, systemClock } from '@chs/core';
import { startFakeHubSpotServer, type FakeHubSpotServer } from '@chs/core/testing';
import { createLogger } from '../logging.js';
import { authorizeIntegration, consentRedirect as install, landInBrowser as land, refusalPage as refusal, startTestApp, type TestApp } from '../testing.js';

const authorize = (t: TestApp, provider = 'hubspot') => authorizeIntegration(t, provider);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const APP = { clientId: 'hs-app-4711', clientSecret: 'hs-app-secret-do-not-log' };
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

async function setUp(
  opts: { hubspot?: { clientId: string; clientSecret: string } | false; logs?: string[] } = {},
): Promise<{ t: TestApp; fake: FakeHubSpotServer }> {
  const fake = await startFakeHubSpotServer({
    app: APP,
    companies: [
      { id: '101', name: 'Globex', domain: 'globex.com', updatedAt: hoursAgo(5) },
      { id: '102', name: 'Initech', domain: 'initech.com', updatedAt: hoursAgo(3) },
    ],
  });
  cleanup.push(() => fake.close());
  const logs = opts.logs;
  const t = await startTestApp({
    ...(logs ? { logger: createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } }) } : {}),
    config: {
      providers: { hubspotApi: fake.apiUrl, hubspotAuth: fake.authUrl },
      // Google's sign-in is set up too: its states must not open HubSpot's callback.
      googleOAuth: { clientId: 'google-client-id', clientSecret: 'google-client-secret' },
      ...(opts.hubspot === false ? {} : { hubspotOAuth: opts.hubspot ?? APP }),
    },
  });
  cleanup.push(() => t.close());
  // The public URL is the app's own address, known once it listens (behind a proxy it would be the proxy's).
  t.config.publicUrl = t.baseUrl;
  return { t, fake };
}

const sync = (t: TestApp, fake: FakeHubSpotServer) =>
  syncProvider(
    {
      db: t.engine.store.db,
      logger: silentLogger,
      clock: systemClock,
      secretKey: loadOrCreateSecretKey(t.config.dataDir, t.config.secretKey),
      urls: { hubspotApi: fake.apiUrl },
    },
    { workspaceId: t.workspaceId, provider: 'hubspot', mode: 'full', since: new Date(Date.now() - 7 * 86_400_000) },
  );

describe('HubSpot install over HTTP (authorize → install screen → callback)', () => {
  it('after I install the app, my HubSpot companies sync, and keep syncing once the 30-minute access token has expired', async () => {
    const logs: string[] = [];
    const { t, fake } = await setUp({ logs });
    const { url, expiresAt } = await authorize(t);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    const asked = new URL(url);
    expect(`${asked.origin}${asked.pathname}`).toBe(fake.authUrl);
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      client_id: APP.clientId,
      redirect_uri: `${t.baseUrl}/api/integrations/hubspot/callback`,
      scope: 'crm.objects.companies.read crm.objects.contacts.read crm.objects.owners.read sales-email-read',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const state = asked.searchParams.get('state') ?? '';
    // Only the state's hash is stored, bound to the workspace, to HubSpot and to the key's user.
    const row = await t.engine.store.db.selectFrom('oauth_states').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ workspace_id: 'acme.com', provider: 'hubspot', used_at: null, created_by: t.ownerId });
    expect(JSON.stringify(row)).not.toContain(state);

    const callback = await install(url);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${t.baseUrl}/api/integrations/hubspot/callback`);
    const done = await land(callback);
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe(`${t.baseUrl}/?integration=hubspot`);
    expect(fake.stats.codeExchanges).toBe(1); // client id, secret, redirect URI and code all matched
    // The callback's URL (its code and state) and the app's secret are in no log line; the outcome is.
    const code = callback.searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    const logged = logs.join('');
    expect(logged).toContain('hubspot connected by install');
    for (const secret of [code, state, APP.clientSecret]) expect(logged).not.toContain(secret);

    const status = (await (await t.request(`/api/integrations/hubspot/status?workspaceId=${t.workspaceId}`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ connected: true, hasRefresh: true, state: 'connected' });
    expect(Date.parse(String(status.expiresAt)) - Date.now()).toBeGreaterThan(29 * 60_000);
    const stored = await t.engine.store.db.selectFrom('integrations').select('credentials_enc').executeTakeFirstOrThrow();
    expect(stored.credentials_enc).not.toContain(APP.clientSecret);
    const key = loadOrCreateSecretKey(t.config.dataDir, t.config.secretKey);
    const first = await getIntegrationCredentials(t.engine.store.db, key, 'acme.com', 'hubspot');
    expect(first).toMatchObject({ clientId: APP.clientId, clientSecret: APP.clientSecret, refreshToken: expect.any(String), accessToken: /^CJT-/ });
    expect(stored.credentials_enc).not.toContain(first.refreshToken);

    // The first sync reads the companies with the installed app's token.
    const s1 = await sync(t, fake);
    expect(s1.clientsCreated).toBe(2);
    const clients = await (await t.request(`/api/clients?workspaceId=${t.workspaceId}`)).text();
    expect(clients).toContain('globex.com');
    expect(clients).toContain('initech.com');
    expect(fake.stats.tokenRefreshes).toBe(0);

    // Half an hour later HubSpot refuses the access token (401 EXPIRED_AUTHENTICATION): the sync
    // refreshes it with the stored refresh token, goes on, and keeps the new token.
    fake.expireAccessTokens();
    const s2 = await sync(t, fake);
    expect(s2.status).toBe('completed');
    expect(fake.stats.tokenRefreshes).toBe(1);
    const refreshed = await getIntegrationCredentials(t.engine.store.db, key, 'acme.com', 'hubspot');
    expect(refreshed.accessToken).not.toBe(first.accessToken);
    expect(refreshed.refreshToken).toBe(first.refreshToken);
  });

  it('denied consent, a forged state, a Google state, a replayed callback, a code HubSpot refuses and an expired state each land on a page saying why', async () => {
    const { t, fake } = await setUp();
    const db = t.engine.store.db;
    const connected = async () => (await db.selectFrom('integrations').select('id').execute()).length;

    // Denied consent: the state is spent, nothing is connected.
    fake.setConsent('deny');
    const denied = await install((await authorize(t)).url);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    const deniedPage = await refusal(await land(denied));
    expect(deniedPage).toContain('HubSpot install was cancelled: consent was denied');
    expect(deniedPage).toContain('OAUTH_FAILED');
    expect(await refusal(await land(denied))).toContain('already completed');
    fake.setConsent('grant');

    // A forged state: the page for a browser, the documented error body for anyone else.
    const forged = new URL(`${t.baseUrl}/api/integrations/hubspot/callback?state=forged&code=abc`);
    expect(await refusal(await land(forged))).toContain('not one the service started');
    const api = await fetch(forged, { redirect: 'manual' });
    expect(api.status).toBe(400);
    expect(await api.json()).toEqual({ code: 'OAUTH_FAILED', status: 400, error: expect.stringContaining('not one the service started') });

    // A state a Google sign-in drew, brought to HubSpot's callback with a real HubSpot code: unknown
    // here, the code is not exchanged, and the Google sign-in can still complete with it.
    const googleState = new URL((await authorize(t, 'google')).url).searchParams.get('state') ?? '';
    const real = await install((await authorize(t)).url);
    const crossed = new URL(real);
    crossed.searchParams.set('state', googleState);
    expect(await refusal(await land(crossed))).toContain('not one the service started');
    expect(fake.stats.codeExchanges).toBe(0);
    expect(await db.selectFrom('oauth_states').select('used_at').where('provider', '=', 'google').executeTakeFirstOrThrow()).toEqual({ used_at: null });
    expect(await connected()).toBe(0);

    // The real callback completes; replayed, it is refused.
    expect((await land(real)).status).toBe(302);
    expect(await refusal(await land(real))).toContain('already completed');
    // Its code (already exchanged) brought back with a fresh state: HubSpot refuses it.
    const again = new URL(real);
    again.searchParams.set('state', new URL((await authorize(t)).url).searchParams.get('state') ?? '');
    expect(await refusal(await land(again))).toContain('HubSpot did not exchange the code for tokens: BAD_AUTH_CODE (missing or unknown auth code)');
    expect(fake.stats.refusals).toEqual({ BAD_AUTH_CODE: 1 });
    expect(fake.stats.codeExchanges).toBe(1);

    // An expired state: ten minutes passed (the row's expiry moved back).
    const late = await install((await authorize(t)).url);
    await db
      .updateTable('oauth_states')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('used_at', 'is', null)
      .where('provider', '=', 'hubspot')
      .execute();
    expect(await refusal(await land(late))).toContain('expired');
    expect(fake.stats.codeExchanges).toBe(1);
    expect(await connected()).toBe(1);
  });

  it('a server with the wrong app secret: HubSpot refuses the exchange, the page says so, nothing is stored and the secret is not shown', async () => {
    const { t, fake } = await setUp({ hubspot: { clientId: APP.clientId, clientSecret: 'stale-secret-do-not-show' } });
    const page = await refusal(await land(await install((await authorize(t)).url)));
    expect(page).toContain('BAD_CLIENT_SECRET');
    expect(page).not.toContain('stale-secret-do-not-show');
    expect(fake.stats.refusals).toEqual({ BAD_CLIENT_SECRET: 1 });
    expect(await t.engine.store.db.selectFrom('integrations').select('id').execute()).toHaveLength(0);
  });

  it('without the HubSpot app settings: authorize is 409 OAUTH_NOT_CONFIGURED naming them, the callback a page; Google is unaffected; authorize needs a key', async () => {
    const { t } = await setUp({ hubspot: false });
    const r = await t.request(`/api/integrations/hubspot/authorize?workspaceId=${t.workspaceId}`, { method: 'POST' });
    expect(r.status).toBe(409);
    const body = (await r.json()) as { code: string; status: number; error: string };
    expect(body).toMatchObject({ code: 'OAUTH_NOT_CONFIGURED', status: 409 });
    expect(body.error).toContain('CHS_HUBSPOT_CLIENT_ID and CHS_HUBSPOT_CLIENT_SECRET');
    expect(await refusal(await land(`${t.baseUrl}/api/integrations/hubspot/callback?state=a&code=b`), 409)).toContain('OAUTH_NOT_CONFIGURED');
    await authorize(t, 'google');
    const noKey = await t.request(`/api/integrations/hubspot/authorize?workspaceId=${t.workspaceId}`, { method: 'POST', key: null });
    expect(noKey.status).toBe(401);
  });
});
