import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { isChsError, type ChsError } from '../errors.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Db, Store } from '../store/database.js';
import { decryptSecret, encryptSecret, loadOrCreateSecretKey, parseSecretKey, SecretKey } from './secrets.js';
import {
  connectIntegration,
  disconnectIntegration,
  getIntegrationCredentials,
  integrationStatus,
  markIntegrationSynced,
  markNeedsReauth,
  rotateIntegrationSecrets,
  updateIntegrationTokens,
} from './repository.js';

afterAll(() => dropTestSchemas());

async function addWorkspace(db: Db, id: string): Promise<void> {
  const at = new Date().toISOString();
  await db.insertInto('workspaces').values({ id, name: id, plan: 'free', billing_status: 'active', created_at: at, updated_at: at }).execute();
}

const ACME_GOOGLE = { workspaceId: 'acme.test', provider: 'google' };

/** A v1 value as earlier versions sealed it: AES-256-GCM under the raw key or SHA-256 of the passphrase, no AAD. */
function sealV1(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

async function reasonOf(p: Promise<unknown>): Promise<unknown> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isChsError(err, 'CREDENTIALS_UNREADABLE'), String(err)).toBe(true);
  return (err as ChsError).details?.reason;
}

describe('secrets', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh salt and IV each time, and never contains the plaintext', async () => {
    const a = await encryptSecret(key, '{"accessToken":"ya29.secret"}', ACME_GOOGLE);
    const b = await encryptSecret(key, '{"accessToken":"ya29.secret"}', ACME_GOOGLE);
    expect(a).not.toBe(b);
    expect(a).not.toContain('ya29');
    expect(a.split('.')).toHaveLength(7);
    expect(a.startsWith('v2.')).toBe(true);
    expect(await decryptSecret(key, a, ACME_GOOGLE)).toBe('{"accessToken":"ya29.secret"}');
  });

  it('refuses a wrong key and a tampered value, without echoing anything secret', async () => {
    const sealed = await encryptSecret(key, 'ya29.x', ACME_GOOGLE);
    const err = await decryptSecret(randomBytes(32), sealed, ACME_GOOGLE).catch((e: unknown) => e as ChsError);
    expect(err).toMatchObject({ code: 'CREDENTIALS_UNREADABLE', details: { reason: 'key', workspaceId: 'acme.test', provider: 'google' } });
    expect((err as Error).message).toMatch(/cannot decrypt the stored google credentials of workspace acme.test/);
    expect((err as Error).message).not.toContain('ya29');
    const parts = sealed.split('.');
    // Flip one bit of the ciphertext (replacing it with a fixed byte would, 1 time in 256, be no change).
    const body = Buffer.from(parts[6]!, 'base64url');
    body[0] = body[0]! ^ 0x01;
    parts[6] = body.toString('base64url');
    expect(await reasonOf(decryptSecret(key, parts.join('.'), ACME_GOOGLE))).toBe('key');
    expect(await reasonOf(decryptSecret(key, 'not-a-sealed-value', ACME_GOOGLE))).toBe('format');
  });

  it('binds a value to its workspace and provider: moved to another row it fails with reason "binding"', async () => {
    const sealed = await encryptSecret(key, 'ya29.x', ACME_GOOGLE);
    for (const other of [
      { workspaceId: 'evil.test', provider: 'google' },
      { workspaceId: 'acme.test', provider: 'hubspot' },
    ]) {
      const err = await decryptSecret(key, sealed, other).catch((e: unknown) => e as ChsError);
      expect(err).toMatchObject({ code: 'CREDENTIALS_UNREADABLE', details: { reason: 'binding', ...other } });
      expect((err as Error).message).toMatch(/sealed for google of workspace acme\.test: a value copied from another row is refused/);
    }
    // Rewriting the clear binding to match the new row does not help: it is the GCM additional data.
    const parts = sealed.split('.');
    parts[1] = Buffer.from('evil.test\u0000google').toString('base64url');
    expect(await reasonOf(decryptSecret(key, parts.join('.'), { workspaceId: 'evil.test', provider: 'google' }))).toBe('key');
  });

  it('stretches a passphrase with scrypt and a salt (not one SHA-256); each process seals under its own salt', async () => {
    const pass = parseSecretKey('correct horse battery staple, correct horse');
    expect(pass.kind).toBe('passphrase');
    const sealed = await encryptSecret(pass, 'tok', ACME_GOOGLE);
    const kdf = sealed.split('.')[2]!;
    expect(kdf).toMatch(/^scrypt-[A-Za-z0-9_-]{22}$/);
    expect(await decryptSecret(parseSecretKey('correct horse battery staple, correct horse'), sealed, ACME_GOOGLE)).toBe('tok');
    // The sealed value's key is not SHA-256(passphrase): the v1 key cannot open it.
    const legacy = createHash('sha256').update('correct horse battery staple, correct horse').digest();
    expect(await reasonOf(decryptSecret(legacy, sealed, ACME_GOOGLE))).toBe('key');
    expect(await reasonOf(decryptSecret(parseSecretKey('another passphrase of at least thirty-two chars'), sealed, ACME_GOOGLE))).toBe('key');
    // Nothing of the key shows when it is printed or logged.
    expect(`${String(pass)} ${JSON.stringify({ pass })} ${inspect(pass)}`).toBe('[SecretKey] {"pass":"[SecretKey]"} [SecretKey]');
  });

  it('still reads the v1 format of earlier versions (raw key and SHA-256 of a passphrase)', async () => {
    expect(await decryptSecret(key, sealV1(key, 'old-token'), ACME_GOOGLE)).toBe('old-token');
    const phrase = 'correct horse battery staple, correct horse';
    const v1 = sealV1(createHash('sha256').update(phrase).digest(), 'old-pass-token');
    expect(await decryptSecret(parseSecretKey(phrase), v1, ACME_GOOGLE)).toBe('old-pass-token');
    expect(await reasonOf(decryptSecret(randomBytes(32), v1, ACME_GOOGLE))).toBe('key');
  });

  it('takes CHS_SECRET_KEY as hex or base64, and rejects a short one', async () => {
    const k = randomBytes(32);
    const sealed = await encryptSecret(k, 'v', ACME_GOOGLE);
    for (const text of [k.toString('hex'), k.toString('base64'), k.toString('base64url')]) {
      const parsed = parseSecretKey(text);
      expect(parsed.kind).toBe('bytes');
      expect(parsed.equals(SecretKey.fromBytes(k))).toBe(true);
      expect(await decryptSecret(parsed, sealed, ACME_GOOGLE)).toBe('v');
    }
    expect(() => parseSecretKey('abc')).toThrow(/32 bytes/);
  });

  it('creates a 0600 key file once and reads it back; the env value wins', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'chs-key-')), 'data');
    const k1 = loadOrCreateSecretKey(dir);
    expect(k1.kind).toBe('bytes');
    expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(loadOrCreateSecretKey(dir).equals(k1)).toBe(true);
    expect(parseSecretKey(readFileSync(join(dir, 'secret.key'), 'utf8')).equals(k1)).toBe(true);
    const env = randomBytes(32);
    expect(loadOrCreateSecretKey(dir, env.toString('hex')).equals(SecretKey.fromBytes(env))).toBe(true);
  });
});

describe('integrations repository', async () => {
  for (const dialect of await testDialects()) {
    describe(dialect.name, () => {
      const key = randomBytes(32);
      const open = async (): Promise<Store> => {
        const store = await dialect.open();
        await addWorkspace(store.db, 'acme.test');
        return store;
      };

      it('connects, reports status, stores only ciphertext, refreshes, needs reauth, disconnects', async () => {
        const store = await open();
        try {
          const db = store.db;
          expect(await integrationStatus(db, 'acme.test', 'google')).toMatchObject({
            connected: false,
            state: 'not_connected',
            hasRefresh: false,
            email: null,
          });
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
            connected: true,
            provider: 'google',
            workspaceId: 'acme.test',
            email: 'rep@acme.test',
            expiresAt: '2024-05-20T01:00:00.000Z',
            hasRefresh: true,
            lastSyncAt: null,
            scope: 'https://www.googleapis.com/auth/gmail.readonly',
            state: 'connected',
            accounts: [
              {
                account: 'rep@acme.test',
                email: 'rep@acme.test',
                state: 'connected',
                lastSyncAt: null,
                lastError: null,
                expiresAt: '2024-05-20T01:00:00.000Z',
                hasRefresh: true,
                connectedAt: expect.any(String),
              },
            ],
          });
          expect(await getIntegrationCredentials(db, key, 'acme.test', 'google')).toMatchObject({ accessToken: 'ya29.first', refreshToken: '1//r' });

          await updateIntegrationTokens(db, key, 'acme.test', 'google', {
            accessToken: 'ya29.second',
            refreshToken: '1//r',
            expiresAt: '2024-05-20T02:00:00.000Z',
          });
          expect((await getIntegrationCredentials(db, key, 'acme.test', 'google')).accessToken).toBe('ya29.second');
          expect((await integrationStatus(db, 'acme.test', 'google')).expiresAt).toBe('2024-05-20T02:00:00.000Z');

          await markIntegrationSynced(db, 'acme.test', 'google', new Date('2024-05-20T00:30:00.000Z'));
          expect((await integrationStatus(db, 'acme.test', 'google')).lastSyncAt).toBe('2024-05-20T00:30:00.000Z');

          await markNeedsReauth(db, 'acme.test', 'google', 'invalid_grant');
          expect(await integrationStatus(db, 'acme.test', 'google')).toMatchObject({ connected: false, state: 'needs_reauth' });
          // Reconnecting clears it.
          await connectIntegration(db, key, {
            workspaceId: 'acme.test',
            provider: 'google',
            credentials: { accessToken: 'ya29.third' },
            accountEmail: 'Rep@Acme.test',
          });
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

      it("a ciphertext copied into another workspace's or provider's row fails with CREDENTIALS_UNREADABLE (binding)", async () => {
        const store = await open();
        try {
          const db = store.db;
          await addWorkspace(db, 'evil.test');
          await connectIntegration(db, key, { workspaceId: 'acme.test', provider: 'hubspot', credentials: { accessToken: 'pat-acme' } });
          await connectIntegration(db, key, { workspaceId: 'evil.test', provider: 'hubspot', credentials: { accessToken: 'pat-evil' } });
          await connectIntegration(db, key, { workspaceId: 'evil.test', provider: 'intercom', credentials: { accessToken: 'ic-evil' } });
          const acme = await db.selectFrom('integrations').select('credentials_enc').where('workspace_id', '=', 'acme.test').executeTakeFirstOrThrow();
          await db.updateTable('integrations').set({ credentials_enc: acme.credentials_enc }).where('workspace_id', '=', 'evil.test').execute();
          for (const provider of ['hubspot', 'intercom'] as const) {
            const err = await getIntegrationCredentials(db, key, 'evil.test', provider).catch((e: unknown) => e);
            expect(err).toMatchObject({ code: 'CREDENTIALS_UNREADABLE', details: { reason: 'binding', workspaceId: 'evil.test', provider } });
            expect(String(err)).not.toContain('pat-acme');
          }
          expect(await getIntegrationCredentials(db, key, 'acme.test', 'hubspot')).toEqual({ accessToken: 'pat-acme' });
        } finally {
          await store.close();
        }
      });

      it('reads a v1 row and re-seals it as v2 on the next write', async () => {
        const store = await open();
        try {
          const db = store.db;
          await connectIntegration(db, key, { workspaceId: 'acme.test', provider: 'google', credentials: { accessToken: 'placeholder' } });
          await db
            .updateTable('integrations')
            .set({ credentials_enc: sealV1(key, JSON.stringify({ accessToken: 'ya29.old', refreshToken: '1//r' })) })
            .execute();
          expect(await getIntegrationCredentials(db, key, 'acme.test', 'google')).toEqual({ accessToken: 'ya29.old', refreshToken: '1//r' });
          await updateIntegrationTokens(db, key, 'acme.test', 'google', { accessToken: 'ya29.new', refreshToken: '1//r' });
          const row = await db.selectFrom('integrations').select('credentials_enc').executeTakeFirstOrThrow();
          expect(row.credentials_enc.startsWith('v2.')).toBe(true);
          expect((await getIntegrationCredentials(db, key, 'acme.test', 'google')).accessToken).toBe('ya29.new');
        } finally {
          await store.close();
        }
      });

      it('rotates every row (v1 and v2, every workspace) to a new key in one transaction; again is a no-op; an unreadable row changes nothing', async () => {
        const store = await open();
        try {
          const db = store.db;
          await addWorkspace(db, 'beta.test');
          const oldKey = parseSecretKey(randomBytes(32).toString('hex'));
          const newKey = parseSecretKey('a new passphrase, long enough to be accepted as one');
          await connectIntegration(db, oldKey, { workspaceId: 'acme.test', provider: 'google', credentials: { accessToken: 'g-acme' } });
          await connectIntegration(db, oldKey, { workspaceId: 'acme.test', provider: 'hubspot', credentials: { accessToken: 'h-acme' } });
          await connectIntegration(db, oldKey, { workspaceId: 'beta.test', provider: 'intercom', credentials: { accessToken: 'placeholder' } });
          await db
            .updateTable('integrations')
            .set({ credentials_enc: sealV1(oldKey.legacyKey(), JSON.stringify({ accessToken: 'i-beta' })) })
            .where('workspace_id', '=', 'beta.test')
            .execute();

          expect(await rotateIntegrationSecrets(db, oldKey, newKey)).toEqual({ rows: 3, resealed: 3, upgradedFromV1: 1, alreadyCurrent: 0, webhookSecrets: 0 });
          for (const [ws, provider, token] of [
            ['acme.test', 'google', 'g-acme'],
            ['acme.test', 'hubspot', 'h-acme'],
            ['beta.test', 'intercom', 'i-beta'],
          ] as const) {
            expect((await getIntegrationCredentials(db, newKey, ws, provider)).accessToken).toBe(token);
            expect(await reasonOf(getIntegrationCredentials(db, oldKey, ws, provider))).toBe('key');
          }
          const rows = await db.selectFrom('integrations').select('credentials_enc').execute();
          expect(rows.every((r) => r.credentials_enc.startsWith('v2.') && r.credentials_enc.split('.')[2]!.startsWith('scrypt-'))).toBe(true);
          // Run again (e.g. after a crash before the new key was put in place): nothing to do.
          expect(await rotateIntegrationSecrets(db, oldKey, newKey)).toEqual({ rows: 3, resealed: 0, upgradedFromV1: 0, alreadyCurrent: 3, webhookSecrets: 0 });

          // A row neither key opens: the rotation fails naming it, and no row changes.
          const before = await db.selectFrom('integrations').select(['id', 'credentials_enc']).orderBy('id').execute();
          await connectIntegration(db, parseSecretKey(randomBytes(32).toString('hex')), {
            workspaceId: 'beta.test',
            provider: 'hubspot',
            credentials: { accessToken: 'x' },
          });
          // Last in the rotation's order, so the three other rows are re-sealed before it fails.
          await db.updateTable('integrations').set({ id: 'zzzz-last' }).where('workspace_id', '=', 'beta.test').where('provider', '=', 'hubspot').execute();
          const third = parseSecretKey(randomBytes(32).toString('base64'));
          const err = await rotateIntegrationSecrets(db, newKey, third).catch((e: unknown) => e);
          expect(err).toMatchObject({ code: 'CREDENTIALS_UNREADABLE', details: { reason: 'key', workspaceId: 'beta.test', provider: 'hubspot' } });
          const after = await db.selectFrom('integrations').select(['id', 'credentials_enc']).where('id', '!=', 'zzzz-last').orderBy('id').execute();
          expect(after).toEqual(before);
        } finally {
          await store.close();
        }
      });
    });
  }
});
