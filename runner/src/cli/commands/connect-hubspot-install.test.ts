/**
 * Installing the HubSpot public app from the terminal, as a person does: `chs connect hubspot
 * --client-id … --client-secret-file …` with no token prints HubSpot's install URL; "the browser"
 * opens it, HubSpot (a local fake of its install screen, token endpoint and CRM, real sockets, the
 * real @hubspot/api-client in the child) sends it back to http://localhost:<port>, one of the app's
 * redirect URLs; the tokens are stored. Then `chs sync` reads the companies with them, refreshing
 * the access token once it expired. Denied consent, a redirect URL the app does not list, and
 * flags that do not fit end with a clear error and nothing stored.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeHubSpotServer, type FakeHubSpotServer } from '@chs/core/testing';
import { chs, chsConsent, connectSetting, type Env } from '../../jobs/testing.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const APP = { clientId: 'hs-app-4711', clientSecret: 'hs-app-secret-do-not-print' };

/** A port free right now on 127.0.0.1 (the one the app's redirect URL names). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function setUp(): Promise<{ env: Env; fake: FakeHubSpotServer; secretFile: string; port: number }> {
  const port = await freePort();
  const fake = await startFakeHubSpotServer({
    app: APP,
    redirectUrls: [`http://localhost:${port}`],
    companies: [
      { id: '101', name: 'Globex', domain: 'globex.com', updatedAt: new Date(Date.now() - 5 * 3600_000).toISOString() },
      { id: '102', name: 'Initech', domain: 'initech.com', updatedAt: new Date(Date.now() - 3 * 3600_000).toISOString() },
    ],
  });
  cleanup.push(() => fake.close());
  const { env, secretFile } = await connectSetting(cleanup, APP.clientSecret, { CHS_HUBSPOT_API_URL: fake.apiUrl, CHS_HUBSPOT_AUTH_URL: fake.authUrl });
  return { env, fake, secretFile, port };
}

const install = (env: Env, secretFile: string, more: string[], browser?: Parameters<typeof chsConsent>[2]) =>
  chsConsent(
    env,
    ['connect', 'hubspot', '--workspace', 'acme.com', '--client-id', APP.clientId, '--client-secret-file', secretFile, '--no-browser', ...more],
    browser,
  );

describe('chs connect hubspot: install the public app', () => {
  it('prints the install URL on a line of its own, stores the tokens; chs sync then reads my companies and refreshes the expired token', async () => {
    const { env, fake, secretFile, port } = await setUp();
    const r = await install(env, secretFile, ['--port', String(port)]);
    expect(r.code, r.stderr).toBe(0);
    const asked = new URL(r.consentUrl);
    expect(`${asked.origin}${asked.pathname}`).toBe(fake.authUrl);
    expect(fake.lastInstall).toMatchObject({
      client_id: APP.clientId,
      redirect_uri: `http://localhost:${port}`,
      scope: 'crm.objects.companies.read crm.objects.contacts.read crm.objects.owners.read sales-email-read',
    });
    expect(r.stderr).toContain(`its redirect URLs must include http://localhost:${port}`);
    expect(fake.stats.codeExchanges).toBe(1);
    expect(r.stdout).toContain('Connected hubspot for acme.com.');
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/hs-app-secret-do-not-print|CJT-/);

    const first = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'hubspot', '--json');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 'completed', itemsProcessed: 2, itemsAdded: 2, errorsCount: 0 });

    fake.expireAccessTokens();
    const again = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'hubspot', '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'completed', errorsCount: 0 });
    expect(fake.stats.tokenRefreshes).toBe(1);
  }, 120_000);

  it('denied consent, or a port whose redirect URL the app does not list: a clear error, exit 1, nothing connected', async () => {
    const { env, fake, secretFile, port } = await setUp();
    fake.setConsent('deny');
    const denied = await install(env, secretFile, ['--port', String(port)]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/HubSpot install was cancelled: consent was denied \[OAUTH_FAILED\]/);
    fake.setConsent('grant');

    // HubSpot shows its error page and never comes back: the install waits (5 minutes at most);
    // the person gives up with Ctrl-C, which ends it with a clear error.
    const other = await freePort();
    let screen = 0;
    const stopped = await install(env, secretFile, ['--port', String(other)], (url, child) => {
      void fetch(url, { redirect: 'follow' }).then((r) => {
        screen = r.status;
        child.kill('SIGINT');
      });
    });
    expect(screen).toBe(400);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/HubSpot install was interrupted \[OAUTH_FAILED\]/);
    expect(fake.stats.codeExchanges).toBe(0);

    const sync = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'hubspot', '--json');
    expect(sync.code).not.toBe(0);
    expect(sync.stderr).toMatch(/not connected|INTEGRATION_NOT_CONNECTED/);
  }, 120_000);

  it('refuses an install without the client secret, and --port with a private-app token', async () => {
    const { env } = await setUp();
    const noSecret = await chs(env, 'connect', 'hubspot', '--workspace', 'acme.com', '--client-id', APP.clientId, '--no-browser');
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toMatch(/a HubSpot install needs the OAuth client secret: --client-secret-file/);
    const token = await chs({ ...env, CHS_CONNECT_ACCESS_TOKEN: 'pat-na1-x' }, 'connect', 'hubspot', '--workspace', 'acme.com', '--port', '9999');
    expect(token.code).toBe(1);
    expect(token.stderr).toMatch(/--port and --no-browser apply to a google sign-in or a HubSpot install \(--client-id and a client secret, no token\) only/);
  }, 60_000);
});
