import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { isChsError } from '../errors.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Store } from '../store/database.js';
import { decryptSecret, encryptSecret, loadOrCreateSecretKey, parseSecretKey } from './secrets.js';
import {
  connectIntegration,
  disconnectIntegration,
  getIntegrationCredentials,
  integrationStatus,
  markIntegrationSynced,
  markNeedsReauth,
  updateIntegrationTokens,
} from './repository.js';

afterAll(() => dropTestSchemas());

describe('secrets', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh IV each time, and never contains the plaintext', () => {
    const a = encryptSecret(key, '{"accessToken":"ya29.secret"}');
    const b = encryptSecret(key, '{"accessToken":"ya29.secret"}');
    expect(a).not.toBe(b);
    expect(a).not.toContain('ya29');
    expect(decryptSecret(key, a)).toBe('{"accessToken":"ya29.secret"}');
  });

  it('refuses a wrong key and a tampered value', () => {
    const sealed = encryptSecret(key, 'x');
    expect(() => decryptSecret(randomBytes(32), sealed)).toThrow(/cannot decrypt/);
    const parts = sealed.split('.');
    // Flip one bit of the ciphertext (replacing it with a fixed byte would, 1 time in 256, be no change).
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 0x01;
    parts[3] = body.toString('base64url');
    expect(() => decryptSecret(key, parts.join('.'))).toThrow(/cannot decrypt/);
  });

  it('takes CHS_SECRET_KEY as hex or base64, and rejects a short one', () => {
    const k = randomBytes(32);
    expect(parseSecretKey(k.toString('hex')).equals(k)).toBe(true);
    expect(parseSecretKey(k.toString('base64')).equals(k)).toBe(true);
    expect(parseSecretKey(k.toString('base64url')).equals(k)).toBe(true);
    // A long passphrase is hashed to a key; a short one is refused.
    expect(parseSecretKey('correct horse battery staple, correct horse')).toHaveLength(32);
    expect(() => parseSecretKey('abc')).toThrow(/32 bytes/);
  });

  it('creates a 0600 key file once and reads it back; the env value wins', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'chs-key-')), 'data');
    const k1 = loadOrCreateSecretKey(dir);
    expect(k1).toHaveLength(32);
    expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecretKey(dir).equals(k1)).toBe(true);
    expect(readFileSync(join(dir, 'secret.key'), 'utf8').trim()).toBe(k1.toString('base64'));
    const env = randomBytes(32);
    expect(loadOrCreateSecretKey(dir, env.toString('hex')).equals(env)).toBe(true);
  });
});

describe('integrations repository', async () => {
  for (const dialect of await testDialects()) {
    describe(dialect.name, () => {
      const key = randomBytes(32);
      const open = async (): Promise<Store> => {
        const store = await dialect.open();
        const at = new Date().toISOString();
        await store.db.insertInto('workspaces').values({ id: 'acme.test', name: 'Acme', plan: 'free', billing_status: 'active', created_at: at, updated_at: at }).execute();
        return store;
      };

      it('connects, reports status, stores only ciphertext, refreshes, needs reauth, disconnects', async () => {
        const store = await open();
        try {
          const db = store.db;
          expect(await integrationStatus(db, 'acme.test', 'google')).toMatchObject({ connected: false, state: 'not_connected', hasRefresh: false, email: null });
          await connectIntegration(db, key, {
            workspaceId: 'acme.test',
            provider: 'google',
            credentials: { accessToken: 'ya29.first', refreshToken: '1//r', clientId: 'c', clientSecret: 's', expiresAt: '2024-05-20T01:00:00.000Z' },
            accountEmail: 'rep@acme.test',
            scope: 'https://www.googleapis.com/auth/gmail.readonly',
            expiresAt: '2024-05-20T01:00:00.000Z',
          });
          const row = await db.selectFrom('integrations').selectAll().executeTakeFirstOrThrow();
          expect(row.credentials_enc).not.toContain('ya29');
          expect(row.credentials_enc).not.toContain('1//r');
          expect(await integrationStatus(db, 'acme.test', 'google')).toEqual({
            connected: true, provider: 'google', workspaceId: 'acme.test', email: 'rep@acme.test', expiresAt: '2024-05-20T01:00:00.000Z',
            hasRefresh: true, lastSyncAt: null, scope: 'https://www.googleapis.com/auth/gmail.readonly', state: 'connected',
          });
          expect(await getIntegrationCredentials(db, key, 'acme.test', 'google')).toMatchObject({ accessToken: 'ya29.first', refreshToken: '1//r' });

          await updateIntegrationTokens(db, key, 'acme.test', 'google', { accessToken: 'ya29.second', refreshToken: '1//r', expiresAt: '2024-05-20T02:00:00.000Z' });
          expect((await getIntegrationCredentials(db, key, 'acme.test', 'google')).accessToken).toBe('ya29.second');
          expect((await integrationStatus(db, 'acme.test', 'google')).expiresAt).toBe('2024-05-20T02:00:00.000Z');

          await markIntegrationSynced(db, 'acme.test', 'google', new Date('2024-05-20T00:30:00.000Z'));
          expect((await integrationStatus(db, 'acme.test', 'google')).lastSyncAt).toBe('2024-05-20T00:30:00.000Z');

          await markNeedsReauth(db, 'acme.test', 'google', 'invalid_grant');
          expect(await integrationStatus(db, 'acme.test', 'google')).toMatchObject({ connected: false, state: 'needs_reauth' });
          // Reconnecting clears it.
          await connectIntegration(db, key, { workspaceId: 'acme.test', provider: 'google', credentials: { accessToken: 'ya29.third' } });
          expect(await integrationStatus(db, 'acme.test', 'google')).toMatchObject({ connected: true, state: 'connected', hasRefresh: false });
          expect(await db.selectFrom('integrations').select('id').execute()).toHaveLength(1);

          expect(await disconnectIntegration(db, 'acme.test', 'google')).toBe(true);
          expect(await disconnectIntegration(db, 'acme.test', 'google')).toBe(false);
          const err = await getIntegrationCredentials(db, key, 'acme.test', 'google').catch((e: unknown) => e);
          expect(isChsError(err, 'INTEGRATION_NOT_CONNECTED')).toBe(true);
        } finally {
          await store.close();
        }
      });
    });
  }
});
