/**
 * A Google Workspace service account with domain-wide delegation, against the fake token
 * endpoint over a real socket with the real google-auth-library JWT client: the fake verifies the
 * assertion's RS256 signature with the account's public key, its audience, `sub` (the mailbox)
 * and scope. A first token connects the mailbox; when it dies a new one is minted without anyone;
 * a key the domain did not delegate to, a wrong key and a mailbox outside the grant are refused.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChsError } from '../../errors.js';
import { silentLogger } from '../../util/logger.js';
import { retryPolicy } from '../retry.js';
import { GoogleClient } from './google-client.js';
import { connectServiceAccount, parseServiceAccountKey } from './google-oauth.js';
import { startFakeGmailServer, type FakeGmailServer } from './fake-gmail-server.js';

const servers: FakeGmailServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const pair = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const CLIENT_EMAIL = 'chs-reader@acme-prod.iam.gserviceaccount.com';

async function setUp() {
  const key = pair();
  const fake = await startFakeGmailServer({
    emailAddress: 'dana@acme.com',
    accessTokens: [],
    serviceAccounts: [{ clientEmail: CLIENT_EMAIL, publicKey: key.publicKey }],
  });
  servers.push(fake);
  const keyFile = JSON.stringify({
    type: 'service_account',
    project_id: 'acme-prod',
    private_key_id: 'k1',
    private_key: key.privateKey,
    client_email: CLIENT_EMAIL,
    token_uri: 'https://oauth2.googleapis.com/token',
  });
  return { fake, keyFile };
}

const connect = (fake: FakeGmailServer, keyText: string, subject: string) =>
  connectServiceAccount({
    key: parseServiceAccountKey(keyText),
    subject,
    tokenUrl: fake.tokenUrl,
    apiUrl: fake.apiUrl,
    logger: silentLogger,
    now: () => new Date(),
  });

describe('service account with domain-wide delegation', () => {
  it('connects the mailbox with a signed JWT grant, then mints new tokens by itself', async () => {
    const { fake, keyFile } = await setUp();
    const creds = await connect(fake, keyFile, 'Dana@acme.com');
    expect(fake.stats.jwtGrants).toBe(1);
    expect(creds).toMatchObject({
      email: 'dana@acme.com',
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
      serviceAccount: { clientEmail: CLIENT_EMAIL, privateKeyId: 'k1' },
    });
    expect(creds.accessToken).toMatch(/^fake-access-/);
    expect(creds.refreshToken).toBeUndefined();

    fake.expireAccessTokens();
    const client = new GoogleClient({
      credentials: creds,
      apiUrl: fake.apiUrl,
      tokenUrl: fake.tokenUrl,
      policy: retryPolicy({ maxRetries: 1 }),
      logger: silentLogger,
      now: () => new Date(),
    });
    expect((await client.getProfile()).emailAddress).toBe('dana@acme.com');
    expect(fake.stats.jwtGrants).toBe(2);
    expect(client.credentials.accessToken).not.toBe(creds.accessToken);
  });

  it('refuses a key the domain does not know, a key that does not match, and a mailbox outside the grant, each saying why', async () => {
    const { fake, keyFile } = await setUp();
    const refused = async (text: string, subject: string) => (await connect(fake, text, subject).catch((e: unknown) => e)) as ChsError;

    const forged = JSON.stringify({ ...JSON.parse(keyFile), private_key: pair().privateKey });
    const badSig = await refused(forged, 'dana@acme.com');
    expect(badSig).toMatchObject({ code: 'OAUTH_FAILED', details: { reason: 'service_account' } });
    expect(badSig.message).toMatch(/Invalid JWT Signature/);

    expect((await refused(keyFile, 'eve@other.com')).message).toMatch(/Invalid email or User ID/);
    const stranger = JSON.stringify({ ...JSON.parse(keyFile), client_email: 'someone@else.iam.gserviceaccount.com' });
    expect((await refused(stranger, 'dana@acme.com')).message).toMatch(/invalid_client/);
    expect(fake.stats.jwtGrants).toBe(0);
    // Nothing of the key is echoed.
    for (const e of [badSig, await refused(keyFile, 'eve@other.com')]) expect(e.message).not.toContain('PRIVATE KEY');

    expect(() => parseServiceAccountKey('{"type":"authorized_user"}')).toThrow(/not a service account key/);
    expect(() => parseServiceAccountKey('not json')).toThrow(/not JSON/);
  });
});
