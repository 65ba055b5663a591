/**
 * Connecting a mailbox as a person does: `chs connect google --client-id … ` with the client
 * secret in a file and no token prints Google's consent URL; "the browser" opens it, Google (a
 * local fake of its consent and token endpoints and of Gmail, real sockets, the real
 * google-auth-library in the child) redirects to the loopback listener; the tokens are stored and
 * the mailbox's address printed. Then `chs sync` reads the mailbox with them, refreshing them when
 * they expire. Denied consent ends with a clear error and nothing stored.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeGmailServer, type FakeGmailOptions, type FakeGmailServer } from '@chs/core/testing';
import { chs, chsConsent, connectSetting, makeMailbox, type Env } from '../../jobs/testing.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function setUp(consent: 'grant' | 'deny', extra: Partial<FakeGmailOptions> = {}): Promise<{ env: Env; fake: FakeGmailServer; secretFile: string }> {
  const box = makeMailbox(12);
  const fake = await startFakeGmailServer({ messages: box.messages, accessTokens: [], emailAddress: 'Dana.CSM@acme.com', consent, ...extra });
  cleanup.push(() => fake.close());
  const { env, secretFile } = await connectSetting(cleanup, 'fake-client-secret', {
    CHS_GOOGLE_AUTH_URL: fake.authUrl,
    CHS_GOOGLE_TOKEN_URL: fake.tokenUrl,
    CHS_GOOGLE_API_URL: fake.apiUrl,
    CHS_GOOGLE_REVOKE_URL: fake.revokeUrl,
  });
  return { env, fake, secretFile };
}

/** Runs the sign-in; plays the browser on the consent URL it prints. */
const signIn = (env: Env, secretFile: string) =>
  chsConsent(env, ['connect', 'google', '--workspace', 'acme.com', '--client-id', 'fake-client-id', '--client-secret-file', secretFile, '--no-browser']);

describe('chs connect google: sign in with Google', () => {
  it('prints the consent URL on a line of its own, stores the tokens, names the mailbox; chs sync then reads it and refreshes the token', async () => {
    const { env, fake, secretFile } = await setUp('grant');
    const r = await signIn(env, secretFile);
    expect(r.code, r.stderr).toBe(0);
    const asked = new URL(r.consentUrl);
    expect(`${asked.origin}${asked.pathname}`).toBe(fake.authUrl);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('scope')).toBe('https://www.googleapis.com/auth/gmail.readonly');
    expect(fake.stats.codeExchanges).toBe(1);
    expect(r.stdout).toContain('Connected google for acme.com (dana.csm@acme.com).');
    // Neither the client secret nor a token is printed.
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/fake-client-secret|fake-access-|fake-refresh-/);

    fake.expireAccessTokens();
    const sync = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'google', '--json');
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ status: 'completed', itemsProcessed: 12, itemsAdded: 12, errorsCount: 0 });
    expect(fake.stats.tokenRefreshes).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('chs disconnect google revokes the grant at Google and forgets it; a failed revoke still forgets, warns, exits 0', async () => {
    const { env, fake, secretFile } = await setUp('grant');
    expect((await signIn(env, secretFile)).code).toBe(0);
    const off = await chs(env, 'disconnect', 'google', '--workspace', 'acme.com', '--json');
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toEqual({ provider: 'google', workspaceId: 'acme.com', disconnected: true, revoked: true, revokeError: null });
    expect(fake.stats.revocations).toBe(1);
    const sync = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'google', '--json');
    expect(sync.stderr).toMatch(/INTEGRATION_NOT_CONNECTED|not connected/);

    expect((await signIn(env, secretFile)).code).toBe(0);
    fake.injectFailure({ path: /^\/revoke$/, status: 500, times: 1 });
    const failed = await chs(env, 'disconnect', 'google', '--workspace', 'acme.com');
    expect(failed.code, failed.stderr).toBe(0);
    expect(failed.stdout).toContain('Disconnected google from acme.com; the credentials are forgotten, but the revoke failed.');
    expect(failed.stderr).toMatch(/could not be revoked \(dana\.csm@acme\.com: Google did not revoke the token: HTTP 500/);
    expect(`${failed.stdout}${failed.stderr}`).not.toMatch(/fake-refresh-|fake-access-/);
    expect(fake.stats.revocations).toBe(1);
    const again = await chs(env, 'disconnect', 'google', '--workspace', 'acme.com');
    expect(again.stdout).toContain('google was not connected to acme.com.');
  }, 120_000);

  it('--service-account <key.json> --subject <mailbox>: domain-wide delegation, no consent; chs sync mints new tokens by itself', async () => {
    const key = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const clientEmail = 'chs-reader@acme-prod.iam.gserviceaccount.com';
    const { env, fake, secretFile } = await setUp('grant', { serviceAccounts: [{ clientEmail, publicKey: key.publicKey }] });
    const keyFile = join(secretFile, '..', 'sa-key.json');
    writeFileSync(
      keyFile,
      JSON.stringify({ type: 'service_account', project_id: 'acme-prod', private_key_id: 'k1', private_key: key.privateKey, client_email: clientEmail }),
      { mode: 0o600 },
    );

    const outside = await chs(env, 'connect', 'google', '--workspace', 'acme.com', '--service-account', keyFile, '--subject', 'eve@elsewhere.com');
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/Invalid email or User ID.*domain-wide delegation.*\[OAUTH_FAILED\]/);

    const r = await chs(env, 'connect', 'google', '--workspace', 'acme.com', '--service-account', keyFile, '--subject', 'Dana.CSM@acme.com');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Connected google for acme.com (dana.csm@acme.com).');
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/PRIVATE KEY|fake-access-/);
    expect(fake.stats.jwtGrants).toBe(1);

    fake.expireAccessTokens();
    const sync = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'google', '--json');
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ status: 'completed', itemsAdded: 12 });
    expect(fake.stats.jwtGrants).toBe(2);
    const noSubject = await chs(env, 'connect', 'google', '--workspace', 'acme.com', '--service-account', keyFile);
    expect(noSubject.stderr).toMatch(/needs --subject/);
  }, 120_000);

  it('denied consent: a clear error, exit 1, nothing connected', async () => {
    const { env, fake, secretFile } = await setUp('deny');
    const r = await signIn(env, secretFile);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/consent was denied \[OAUTH_FAILED\]/);
    expect(fake.stats.codeExchanges).toBe(0);
    const sync = await chs(env, 'sync', '--workspace', 'acme.com', '--provider', 'google', '--json');
    expect(sync.code).not.toBe(0);
    expect(sync.stderr).toMatch(/not connected|INTEGRATION_NOT_CONNECTED/);
  }, 120_000);

  it('refuses a sign-in without the client secret, and --port on other providers', async () => {
    const { env } = await setUp('grant');
    const noSecret = await chs(env, 'connect', 'google', '--workspace', 'acme.com', '--client-id', 'fake-client-id', '--no-browser');
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toMatch(/needs the OAuth client secret/);
    const hub = await chs(env, 'connect', 'hubspot', '--workspace', 'acme.com', '--access-token-stdin', '--port', '9999');
    expect(hub.code).toBe(1);
  }, 60_000);
});
