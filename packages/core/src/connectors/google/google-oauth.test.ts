/**
 * Google sign-in as a person does it, against a local fake of Google's consent and token
 * endpoints and Gmail (real sockets, the real google-auth-library): the consent URL asks for
 * read-only mail with PKCE; the browser comes back to the loopback listener; the code is
 * exchanged with its verifier; the mailbox address is read; the tokens then refresh. Denied
 * consent, a forged answer and no answer at all each end with a clear error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isChsError } from '../../errors.js';
import { silentLogger } from '../../util/logger.js';
import { GoogleClient } from './google-client.js';
import { runLoopbackConsent, type LoopbackConsentOptions } from './google-oauth.js';
import { startFakeGmailServer, type FakeGmailServer } from './fake-gmail-server.js';
import { retryPolicy } from '../retry.js';

const servers: FakeGmailServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function google(options: Parameters<typeof startFakeGmailServer>[0] = {}): Promise<FakeGmailServer> {
  const s = await startFakeGmailServer({ emailAddress: 'Dana.CSM@ourco.com', ...options });
  servers.push(s);
  return s;
}

function flow(g: FakeGmailServer, onUrl: LoopbackConsentOptions['onUrl'], extra: Partial<LoopbackConsentOptions> = {}) {
  return runLoopbackConsent({
    clientId: 'fake-client-id',
    clientSecret: 'fake-client-secret',
    authUrl: g.authUrl,
    tokenUrl: g.tokenUrl,
    apiUrl: g.apiUrl,
    onUrl,
    logger: silentLogger,
    now: () => new Date(),
    ...extra,
  });
}

/** The browser: opens the consent URL and follows Google's redirect back to the loopback address. */
const browser = async (url: string) => {
  await fetch(url, { redirect: 'follow' });
};

describe('Google sign-in (installed-app loopback flow with PKCE)', () => {
  it('connects: read-only consent with S256, code exchanged with its verifier, address read, tokens that refresh', async () => {
    const g = await google();
    let consentUrl = '';
    const creds = await flow(g, async (url) => {
      consentUrl = url;
      await browser(url);
    });
    const asked = new URL(consentUrl);
    expect(`${asked.origin}${asked.pathname}`).toBe(g.authUrl);
    expect(g.lastConsent).toMatchObject({
      client_id: 'fake-client-id',
      response_type: 'code',
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
      code_challenge_method: 'S256',
      access_type: 'offline',
    });
    expect(g.lastConsent?.redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(g.lastConsent?.state).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(g.stats.codeExchanges).toBe(1); // the fake checked SHA-256(verifier) against the challenge

    expect(creds).toMatchObject({
      email: 'dana.csm@ourco.com',
      clientId: 'fake-client-id',
      clientSecret: 'fake-client-secret',
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
    });
    expect(creds.refreshToken).toMatch(/^1\/\/fake-refresh-/);
    expect(Date.parse(creds.expiresAt!)).toBeGreaterThan(Date.now());

    // The stored tokens work and refresh when the access token dies.
    g.expireAccessTokens();
    const client = new GoogleClient({
      credentials: creds,
      apiUrl: g.apiUrl,
      tokenUrl: g.tokenUrl,
      policy: retryPolicy({ maxRetries: 1 }),
      logger: silentLogger,
      now: () => new Date(),
    });
    expect((await client.getProfile()).emailAddress).toBe('Dana.CSM@ourco.com');
    expect(g.stats.tokenRefreshes).toBe(1);

    // The loopback listener is gone once the flow ends.
    const port = new URL(g.lastConsent!.redirect_uri!).port;
    await expect(fetch(`http://127.0.0.1:${port}/?state=x&code=y`)).rejects.toThrow();
  });

  it('denied consent ends with a clear error, and nothing is exchanged', async () => {
    const g = await google({ consent: 'deny' });
    const err = await flow(g, browser).catch((e: unknown) => e);
    expect(isChsError(err, 'OAUTH_FAILED')).toBe(true);
    expect((err as Error).message).toMatch(/consent was denied/);
    expect(g.stats.codeExchanges).toBe(0);
  });

  it('an answer whose state is not ours (forged or stale) is refused', async () => {
    const g = await google();
    const err = await flow(g, async (url) => {
      const redirect = new URL(url).searchParams.get('redirect_uri')!;
      const page = await fetch(`${redirect}/?code=4/0stolen&state=not-the-one`);
      expect(page.status).toBe(400);
      expect(await page.text()).toMatch(/does not match/);
    }).catch((e: unknown) => e);
    expect(isChsError(err, 'OAUTH_FAILED')).toBe(true);
    expect((err as Error).message).toMatch(/state that does not match/);
    expect(g.stats.codeExchanges).toBe(0);
  });

  it('no answer within the time limit ends with a timeout error', async () => {
    const g = await google();
    const started = Date.now();
    const err = await flow(g, () => undefined, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(isChsError(err, 'OAUTH_FAILED')).toBe(true);
    expect((err as Error).message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('the fake refuses a code exchanged with the wrong verifier, as Google does', async () => {
    const g = await google();
    // Take a code the way a browser would, but exchange it without the matching verifier.
    const loopback = await new Promise<{ url: string; code: Promise<string>; close: () => void }>((resolve) => {
      let give!: (c: string) => void;
      const code = new Promise<string>((r) => {
        give = r;
      });
      void import('node:http').then(({ createServer }) => {
        const s = createServer((req, res) => {
          give(new URL(req.url ?? '/', 'http://x').searchParams.get('code') ?? '');
          res.end('ok');
        });
        s.listen(0, '127.0.0.1', () => {
          const port = (s.address() as { port: number }).port;
          resolve({ url: `http://127.0.0.1:${port}`, code, close: () => s.close() });
        });
      });
    });
    const consent = new URL(g.authUrl);
    for (const [k, v] of Object.entries({
      client_id: 'fake-client-id',
      redirect_uri: loopback.url,
      response_type: 'code',
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
      state: 's',
    }))
      consent.searchParams.set(k, v);
    await fetch(consent, { redirect: 'follow' });
    const code = await loopback.code;
    loopback.close();
    const r = await fetch(g.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: 'b'.repeat(43),
        client_id: 'fake-client-id',
        client_secret: 'fake-client-secret',
        redirect_uri: loopback.url,
      }),
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: 'invalid_grant' });
  });
});
