/**
 * Connecting Google from the dashboard, end to end over real sockets: the app (its callback at
 * CHS_PUBLIC_URL), a local fake of Google's consent, token and revoke endpoints and of Gmail (it
 * checks the PKCE S256 challenge), and the real google-auth-library. "The browser" follows the
 * redirects by hand so each hop can be checked. Then the stored tokens sync the mailbox; a
 * refused sign-in (denied, forged, replayed, a code used twice) lands on a page saying why; and
 * DELETE revokes the grant at Google before forgetting it, and says so when the revoke fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getIntegrationCredentials, loadOrCreateSecretKey, silentLogger, syncProvider, systemClock } from '@chs/core';
import { startFakeGmailServer, type FakeGmailServer } from '@chs/core/testing';
import { createLogger } from '../logging.js';
import { authorizeIntegration, consentRedirect as consent, landInBrowser as land, refusalPage as refusal, startTestApp, type TestApp } from '../testing.js';

const authorize = (t: TestApp) => authorizeIntegration(t, 'google');
import { makeMailbox } from '../../jobs/testing.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function setUp(
  opts: { configured?: boolean; logs?: string[] } = {},
): Promise<{ t: TestApp; fake: FakeGmailServer; box: ReturnType<typeof makeMailbox> }> {
  const box = makeMailbox(8);
  const fake = await startFakeGmailServer({ messages: box.messages, accessTokens: [], emailAddress: 'Dana.CSM@acme.com' });
  cleanup.push(() => fake.close());
  const logs = opts.logs;
  const t = await startTestApp({
    ...(logs ? { logger: createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(line) } }) } : {}),
    config: {
      providers: { googleAuth: fake.authUrl, googleToken: fake.tokenUrl, googleApi: fake.apiUrl, googleRevoke: fake.revokeUrl },
      ...(opts.configured === false ? {} : { googleOAuth: { clientId: 'fake-client-id', clientSecret: 'fake-client-secret' } }),
    },
  });
  cleanup.push(() => t.close());
  // The public URL is the app's own address, known once it listens (behind a proxy it would be the proxy's).
  if (opts.configured !== false) t.config.publicUrl = t.baseUrl;
  return { t, fake, box };
}

describe('Google sign-in over HTTP (authorize → consent → callback)', () => {
  it('connects the mailbox: state and PKCE checked, tokens stored encrypted, on to CHS_PUBLIC_URL; the tokens then sync and refresh', async () => {
    const logs: string[] = [];
    const { t, fake, box } = await setUp({ logs });
    const { url, expiresAt } = await authorize(t);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    const asked = new URL(url);
    expect(`${asked.origin}${asked.pathname}`).toBe(fake.authUrl);
    expect(Object.fromEntries(asked.searchParams)).toMatchObject({
      client_id: 'fake-client-id',
      redirect_uri: `${t.baseUrl}/api/integrations/google/callback`,
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
      code_challenge_method: 'S256',
      access_type: 'offline',
      response_type: 'code',
    });
    const state = asked.searchParams.get('state') ?? '';
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only the state's hash is stored, and the PKCE verifier only sealed.
    const row = await t.engine.store.db.selectFrom('oauth_states').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ workspace_id: 'acme.com', provider: 'google', used_at: null, created_by: t.ownerId });
    expect(JSON.stringify(row)).not.toContain(state);
    expect(row.verifier_enc.startsWith('v2.')).toBe(true);

    const callback = await consent(url);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${t.baseUrl}/api/integrations/google/callback`);
    const done = await land(callback);
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe(`${t.baseUrl}/?integration=google&account=dana.csm%40acme.com`);
    expect(fake.stats.codeExchanges).toBe(1); // the fake verified SHA-256(verifier) = challenge
    // The callback's URL (its code and state) is in no log line; its outcome is.
    const code = callback.searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    expect(logs.join('')).toContain('google connected by sign-in');
    expect(logs.join('')).not.toContain(code);
    expect(logs.join('')).not.toContain(state);

    const status = await (await t.request(`/api/integrations/google/status?workspaceId=${t.workspaceId}`)).json();
    expect(status).toMatchObject({
      connected: true,
      email: 'dana.csm@acme.com',
      hasRefresh: true,
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
      state: 'connected',
    });
    const stored = await t.engine.store.db.selectFrom('integrations').select('credentials_enc').executeTakeFirstOrThrow();
    expect(stored.credentials_enc).not.toMatch(/fake-access|fake-refresh|fake-client-secret/);

    // The stored tokens read the mailbox, refreshing the access token Google let expire.
    fake.expireAccessTokens();
    const secretKey = loadOrCreateSecretKey(t.config.dataDir, t.config.secretKey);
    const s = await syncProvider(
      { db: t.engine.store.db, logger: silentLogger, clock: systemClock, secretKey, urls: { googleApi: fake.apiUrl, googleToken: fake.tokenUrl } },
      { workspaceId: 'acme.com', provider: 'google', mode: 'full', since: new Date(Date.now() - 86_400_000) },
    );
    expect(s.itemsAdded).toBe(box.messages.length);
    expect(fake.stats.tokenRefreshes).toBeGreaterThanOrEqual(1);
    const creds = await getIntegrationCredentials(t.engine.store.db, secretKey, 'acme.com', 'google');
    expect(creds.email).toBe('dana.csm@acme.com');
  });

  it('a replayed callback, a forged state, an expired state, denied consent and a code used twice each land on a page saying why; nothing else is stored', async () => {
    const { t, fake } = await setUp();
    const db = t.engine.store.db;

    // Denied consent: the state is spent, nothing is connected.
    fake.setConsent('deny');
    const denied = await consent((await authorize(t)).url);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    const deniedPage = await refusal(await land(denied));
    expect(deniedPage).toContain('consent was denied');
    expect(deniedPage).toContain('OAUTH_FAILED');
    expect(await db.selectFrom('integrations').select('id').execute()).toHaveLength(0);
    expect(await refusal(await land(denied))).toContain('already completed');
    fake.setConsent('grant');

    // A forged state (and no state at all), with an error description that tries markup.
    const forged = new URL(`${t.baseUrl}/api/integrations/google/callback?state=forged&code=4/0x`);
    expect(await refusal(await land(forged))).toContain('not one the service started');
    // A caller that is not a browser gets the documented error body instead of the page.
    const api = await fetch(forged, { redirect: 'manual' });
    expect(api.status).toBe(400);
    expect(await api.json()).toEqual({ code: 'OAUTH_FAILED', status: 400, error: expect.stringContaining('not one the service started') });
    const markup = await refusal(await land(`${t.baseUrl}/api/integrations/google/callback?error=x&error_description=%3Cscript%3Ealert(1)%3C/script%3E`));
    expect(markup).not.toContain('<script>');
    expect(markup).toContain('unknown state');

    // Two sign-ins started; the first completes; its callback replayed is refused.
    const first = await consent((await authorize(t)).url);
    const second = new URL((await authorize(t)).url);
    expect((await land(first)).status).toBe(302);
    expect(await refusal(await land(first))).toContain('already completed');
    // The first's code (already exchanged) brought back with the second's state: Google refuses it.
    const reused = new URL(first);
    reused.searchParams.set('state', second.searchParams.get('state') ?? '');
    const reusedPage = await refusal(await land(reused));
    expect(reusedPage).toContain('Google did not exchange the code for tokens: invalid_grant');
    expect(fake.stats.codeExchanges).toBe(1);

    // An expired state: ten minutes passed (the row's expiry moved back).
    const late = await consent((await authorize(t)).url);
    await db
      .updateTable('oauth_states')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('used_at', 'is', null)
      .execute();
    expect(await refusal(await land(late))).toContain('expired');
    expect(fake.stats.codeExchanges).toBe(1);
  });

  it('without CHS_PUBLIC_URL and an OAuth client: authorize is 409 OAUTH_NOT_CONFIGURED, the callback a page; authorize needs a key', async () => {
    const { t } = await setUp({ configured: false });
    const r = await t.request(`/api/integrations/google/authorize?workspaceId=${t.workspaceId}`, { method: 'POST' });
    expect(r.status).toBe(409);
    expect(await r.json()).toMatchObject({ code: 'OAUTH_NOT_CONFIGURED', status: 409, error: expect.stringContaining('CHS_PUBLIC_URL') });
    expect(await refusal(await land(`${t.baseUrl}/api/integrations/google/callback?state=a&code=b`), 409)).toContain('OAUTH_NOT_CONFIGURED');
    const noKey = await t.request(`/api/integrations/google/authorize?workspaceId=${t.workspaceId}`, { method: 'POST', key: null });
    expect(noKey.status).toBe(401);
  });
});

describe('DELETE /api/integrations/{provider}: revoke, then forget', () => {
  it('revokes the grant at Google and forgets the tokens; a failed revoke still forgets and says so', async () => {
    const { t, fake } = await setUp();
    await land(await consent((await authorize(t)).url));
    const granted = await getIntegrationCredentials(t.engine.store.db, loadOrCreateSecretKey(t.config.dataDir, t.config.secretKey), 'acme.com', 'google');
    const refreshWith = (token: string) =>
      fetch(fake.tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }) });
    expect((await refreshWith(granted.refreshToken ?? '')).status).toBe(200);
    const del = await t.request(`/api/integrations/google?workspaceId=${t.workspaceId}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(await del.json()).toMatchObject({ provider: 'google', workspaceId: 'acme.com', disconnected: true, revoked: true, revokeError: null });
    expect(fake.stats.revocations).toBe(1);
    // Google no longer refreshes the revoked grant.
    expect((await refreshWith(granted.refreshToken ?? '')).status).toBe(400);
    expect(((await (await t.request(`/api/integrations/google/status?workspaceId=${t.workspaceId}`)).json()) as { connected: boolean }).connected).toBe(false);

    await land(await consent((await authorize(t)).url));
    fake.injectFailure({ path: /^\/revoke$/, status: 503, times: 1 });
    const failed = await t.request(`/api/integrations/google?workspaceId=${t.workspaceId}`, { method: 'DELETE' });
    const body = (await failed.json()) as { disconnected: boolean; revoked: boolean; revokeError: string; message: string };
    expect(body).toMatchObject({ disconnected: true, revoked: false });
    expect(body.revokeError).toContain('HTTP 503');
    expect(body.message).toContain('the revoke failed');
    expect(body.message).not.toMatch(/fake-refresh|fake-access/);
    expect(await t.engine.store.db.selectFrom('integrations').select('id').execute()).toHaveLength(0);

    const again = await (await t.request(`/api/integrations/google?workspaceId=${t.workspaceId}`, { method: 'DELETE' })).json();
    expect(again).toMatchObject({ disconnected: false, revoked: null });
  });
});
