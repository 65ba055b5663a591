import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  createEndpoint,
  createEngine,
  createWorkspace,
  getIntegrationCredentials,
  loadOrCreateSecretKey,
  parseSecretKey,
  rotateEndpointSecret,
  rotateIntegrationSecrets,
  sendTestEvent,
  WebhookDispatcher,
  type SecretKey,
} from '@chs/core';
import { startWebhookReceiver } from '../../http/webhook-testing.js';
import { loadConfig } from '../../config.js';
import type { CliContext } from '../context.js';
import { main } from '../main.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

async function chs(env: NodeJS.ProcessEnv, args: string[], stdin: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const ctx: CliContext = {
    env,
    stdout,
    stderr,
    stdin: Readable.from(stdin),
    config: (flags) => loadConfig(env, flags),
    openEngine: (config) => createEngine({ database: config.databaseUrl }),
  };
  const code = await main(['node', 'chs', ...args], ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** A database with two workspaces' connections, sealed with `key` (undefined: the generated key file). */
async function setup(env: NodeJS.ProcessEnv = {}): Promise<string> {
  const db = join(mkdtempSync(join(tmpdir(), 'chs-rotate-')), 'chs.db');
  const engine = await createEngine({ database: db });
  for (const domain of ['acme.test', 'beta.test']) await createWorkspace(engine.store.db, { domain, name: domain, ownerEmail: `ana@${domain}` });
  await engine.close();
  for (const [ws, token] of [
    ['acme.test', 'pat-acme'],
    ['beta.test', 'pat-beta'],
  ] as const) {
    expect((await chs({ ...env, CHS_CONNECT_ACCESS_TOKEN: token }, ['--db', db, 'connect', 'hubspot', '--workspace', ws])).code).toBe(0);
  }
  return db;
}

async function tokens(db: string, key: SecretKey): Promise<unknown[]> {
  const engine = await createEngine({ database: db });
  try {
    const out: unknown[] = [];
    for (const ws of ['acme.test', 'beta.test']) {
      out.push(
        await getIntegrationCredentials(engine.store.db, key, ws, 'hubspot').then(
          (c) => c.accessToken,
          (e: { code?: string }) => e.code,
        ),
      );
    }
    return out;
  } finally {
    await engine.close();
  }
}

describe('chs secrets rotate', () => {
  it('with the generated key file: a new key replaces it (0600) once every row is re-sealed', async () => {
    const db = await setup();
    const dataDir = join(db, '..');
    const oldKey = loadOrCreateSecretKey(dataDir);
    const r = await chs({}, ['--db', db, 'secrets', 'rotate', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      rows: 2,
      resealed: 2,
      upgradedFromV1: 0,
      alreadyCurrent: 0,
      webhookSecrets: 0,
      keyFile: join(dataDir, 'secret.key'),
    });
    const newKey = loadOrCreateSecretKey(dataDir);
    expect(newKey.equals(oldKey)).toBe(false);
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dataDir, 'secret.key.new'))).toBe(false);
    expect(await tokens(db, newKey)).toEqual(['pat-acme', 'pat-beta']);
    expect(await tokens(db, oldKey)).toEqual(['CREDENTIALS_UNREADABLE', 'CREDENTIALS_UNREADABLE']);
  });

  it('finishes a rotation interrupted after the commit (secret.key.new left behind)', async () => {
    const db = await setup();
    const dataDir = join(db, '..');
    const oldKey = loadOrCreateSecretKey(dataDir);
    const pending = randomBytes(32).toString('base64');
    writeFileSync(join(dataDir, 'secret.key.new'), `${pending}\n`, { mode: 0o600 });
    const engine = await createEngine({ database: db });
    await rotateIntegrationSecrets(engine.store.db, oldKey, parseSecretKey(pending));
    await engine.close();
    // The crash: secret.key still holds the old key, every row is under the new one.
    const r = await chs({}, ['--db', db, 'secrets', 'rotate']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Re-sealed 0 of 2 stored credentials \(0 from the old v1 format\); 2 were already under the new key\.\nThe new key is in .*secret\.key; restart every runner that uses it\.\n$/,
    );
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8').trim()).toBe(pending);
    expect(await tokens(db, parseSecretKey(pending))).toEqual(['pat-acme', 'pat-beta']);
  });

  it('re-seals the webhook signing secrets in the same transaction: deliveries by runners with the new key carry the same signatures', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const db = await setup();
      const dataDir = join(db, '..');
      const oldKey = loadOrCreateSecretKey(dataDir);
      const engine = await createEngine({ database: db });
      let endpoints: Array<{ id: string; workspaceId: string; secrets: string[] }>;
      try {
        const policy = { allowPrivate: true };
        const a = await createEndpoint(engine.store.db, oldKey, { workspaceId: 'acme.test', url: `${receiver.url}/a`, events: ['job.failed'] }, policy);
        const b = await createEndpoint(engine.store.db, oldKey, { workspaceId: 'beta.test', url: `${receiver.url}/b`, events: ['job.failed'] }, policy);
        // b is in a rotation's grace: two secrets sign its deliveries.
        const bNext = await rotateEndpointSecret(engine.store.db, oldKey, 'beta.test', b.endpoint.id);
        endpoints = [
          { id: a.endpoint.id, workspaceId: 'acme.test', secrets: [a.secret] },
          { id: b.endpoint.id, workspaceId: 'beta.test', secrets: [bNext.secret, b.secret] },
        ];
      } finally {
        await engine.close();
      }

      const r = await chs({}, ['--db', db, 'secrets', 'rotate', '--json']);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({ rows: 2, resealed: 2, webhookSecrets: 3 });
      const newKey = loadOrCreateSecretKey(dataDir);
      expect(newKey.equals(oldKey)).toBe(false);

      // A runner with the new key sends every endpoint's deliveries signed with its same secrets.
      const delivered = await createEngine({ database: db });
      const dispatch = (key: SecretKey) => new WebhookDispatcher({ db: delivered.store.db, secretKey: key, allowPrivate: true });
      try {
        for (const e of endpoints) await sendTestEvent(delivered.store.db, e.workspaceId, e.id);
        const stale = dispatch(oldKey);
        // The old key opens none of them any more: no attempt is made (they stay queued, under a lease).
        expect(await stale.drain()).toBe(0);
        await stale.stop(100);
        expect(receiver.received).toHaveLength(0);
        const fresh = dispatch(newKey);
        // Past the stale runner's lease.
        expect(await fresh.drain(new Date(Date.now() + 120_000))).toBe(2);
        await fresh.stop(100);
      } finally {
        await delivered.close();
      }
      expect(receiver.received.map((d) => d.path).sort()).toEqual(['/a', '/b']);
      for (const e of endpoints) {
        const got = receiver.received.find((d) => d.path === (e.workspaceId === 'acme.test' ? '/a' : '/b'))!;
        expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(e.secrets.length);
        for (const secret of e.secrets)
          expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
      }

      // Interrupted after the commit (the key file not yet replaced) and run again: nothing left to re-seal, nothing broken.
      const pending = randomBytes(32).toString('base64');
      writeFileSync(join(dataDir, 'secret.key.new'), `${pending}\n`, { mode: 0o600 });
      const e2 = await createEngine({ database: db });
      await rotateIntegrationSecrets(e2.store.db, newKey, parseSecretKey(pending));
      await e2.close();
      const again = await chs({}, ['--db', db, 'secrets', 'rotate']);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/^Re-sealed 0 of 2 stored credentials \(0 from the old v1 format\); 2 were already under the new key\.\nThe new key is in /);
      expect(readFileSync(join(dataDir, 'secret.key'), 'utf8').trim()).toBe(pending);
      const last = await chs({ CHS_SECRET_KEY: pending, CHS_NEW_SECRET_KEY: randomBytes(32).toString('hex') }, ['--db', db, 'secrets', 'rotate']);
      expect(last.stdout).toContain('Re-sealed 3 webhook signing secrets (receivers keep the same secrets).\n');
    } finally {
      await receiver.close();
    }
  });

  it('with CHS_SECRET_KEY: the new key from CHS_NEW_SECRET_KEY, a file or stdin, never argv; then CHS_SECRET_KEY changes', async () => {
    const k1 = randomBytes(32).toString('hex');
    const k2 = 'a passphrase for the second key, long enough';
    const k3 = randomBytes(32).toString('base64url');
    const db = await setup({ CHS_SECRET_KEY: k1 });

    const missing = await chs({ CHS_SECRET_KEY: k1 }, ['--db', db, 'secrets', 'rotate']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /CHS_SECRET_KEY is set: give the new key with --new-key-file <path>, --new-key-stdin or CHS_NEW_SECRET_KEY.*\[INVALID_INPUT\]/,
    );
    const same = await chs({ CHS_SECRET_KEY: k1, CHS_NEW_SECRET_KEY: k1 }, ['--db', db, 'secrets', 'rotate']);
    expect(same.stderr).toMatch(/the new key is the current key; use --keep-key/);
    const argv = await chs({ CHS_SECRET_KEY: k1 }, ['--db', db, 'secrets', 'rotate', '--new-key', k2]);
    expect(argv.code).not.toBe(0);
    expect(argv.stderr).toMatch(/unknown option '--new-key'/);

    const viaEnv = await chs({ CHS_SECRET_KEY: k1, CHS_NEW_SECRET_KEY: k2 }, ['--db', db, 'secrets', 'rotate']);
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stdout).toBe(
      'Re-sealed 2 of 2 stored credentials (0 from the old v1 format); 0 were already under the new key.\nNow set CHS_SECRET_KEY to the new key and restart every runner.\n',
    );
    expect(await tokens(db, parseSecretKey(k2))).toEqual(['pat-acme', 'pat-beta']);
    // Run again before CHS_SECRET_KEY was changed: nothing to do, nothing broken.
    expect(JSON.parse((await chs({ CHS_SECRET_KEY: k1, CHS_NEW_SECRET_KEY: k2 }, ['--db', db, 'secrets', 'rotate', '--json'])).stdout)).toEqual({
      rows: 2,
      resealed: 0,
      upgradedFromV1: 0,
      alreadyCurrent: 2,
      webhookSecrets: 0,
    });

    const viaStdin = await chs({ CHS_SECRET_KEY: k2 }, ['--db', db, 'secrets', 'rotate', '--new-key-stdin', '--json'], [`${k3}\n`]);
    expect(viaStdin.code).toBe(0);
    expect(JSON.parse(viaStdin.stdout)).toMatchObject({ resealed: 2 });
    const file = join(db, '..', 'k4');
    const k4 = randomBytes(32).toString('hex');
    writeFileSync(file, k4, { mode: 0o600 });
    expect((await chs({ CHS_SECRET_KEY: k3 }, ['--db', db, 'secrets', 'rotate', '--new-key-file', file])).code).toBe(0);
    expect(await tokens(db, parseSecretKey(k4))).toEqual(['pat-acme', 'pat-beta']);
    // A key file never written: CHS_SECRET_KEY was the key all along.
    expect(existsSync(join(db, '..', 'secret.key'))).toBe(false);

    // A wrong current key: nothing opens, nothing changes.
    const wrong = await chs({ CHS_SECRET_KEY: k1, CHS_NEW_SECRET_KEY: k2 }, ['--db', db, 'secrets', 'rotate']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /cannot decrypt the stored hubspot credentials of workspace (acme|beta)\.test: wrong CHS_SECRET_KEY .*\[CREDENTIALS_UNREADABLE\]\n$/,
    );
    expect(await tokens(db, parseSecretKey(k4))).toEqual(['pat-acme', 'pat-beta']);
  });
});
