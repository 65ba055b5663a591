import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, getIntegrationCredentials, integrationStatus, loadOrCreateSecretKey } from '@chs/core';
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

function context(env: NodeJS.ProcessEnv = {}): { ctx: CliContext; stdout: Capture; stderr: Capture } {
  const stdout = new Capture();
  const stderr = new Capture();
  const ctx: CliContext = {
    env,
    stdout,
    stderr,
    stdin: process.stdin,
    config: (flags) => loadConfig(env, flags),
    openEngine: (config) => createEngine({ database: config.databaseUrl }),
  };
  return { ctx, stdout, stderr };
}

afterEach(() => {
  process.exitCode = undefined;
});

async function setup(): Promise<string> {
  const db = join(mkdtempSync(join(tmpdir(), 'chs-connect-')), 'chs.db');
  const engine = await createEngine({ database: db });
  await createWorkspace(engine.store.db, { domain: 'acme.test', name: 'Acme', ownerEmail: 'ana@acme.test' });
  await engine.close();
  return db;
}

describe('chs connect / disconnect', () => {
  it('stores Google credentials encrypted with a generated 0600 key, never printing the tokens', async () => {
    const db = await setup();
    const { ctx, stdout, stderr } = context();
    const code = await main(
      ['node', 'chs', '--db', db, 'connect', 'google', '--workspace', 'acme.test', '--email', 'Rep@Acme.test', '--access-token', 'ya29.SECRET', '--refresh-token', '1//REFRESH', '--client-id', 'cid', '--client-secret', 'csecret', '--expires-at', '2024-05-20T01:00:00Z', '--json'],
      ctx,
    );
    expect(stderr.text).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout.text)).toEqual({ connected: true, provider: 'google', workspaceId: 'acme.test', email: 'rep@acme.test', expiresAt: '2024-05-20T01:00:00.000Z', hasRefresh: true, lastSyncAt: null, scope: null });
    expect(stdout.text).not.toContain('SECRET');
    const dataDir = join(db, '..');
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(db).includes('ya29.SECRET')).toBe(false);
    const engine = await createEngine({ database: db });
    try {
      const creds = await getIntegrationCredentials(engine.store.db, loadOrCreateSecretKey(dataDir), 'acme.test', 'google');
      expect(creds).toEqual({ accessToken: 'ya29.SECRET', email: 'rep@acme.test', refreshToken: '1//REFRESH', clientId: 'cid', clientSecret: 'csecret', expiresAt: '2024-05-20T01:00:00.000Z' });
    } finally {
      await engine.close();
    }
  });

  it('uses CHS_SECRET_KEY when set; hubspot takes only a token; disconnect forgets it', async () => {
    const db = await setup();
    const env = { CHS_SECRET_KEY: 'a'.repeat(64) };
    const { ctx, stdout } = context(env);
    expect(await main(['node', 'chs', '--db', db, 'connect', 'hubspot', '--workspace', 'acme.test', '--access-token', 'pat-na1-xyz'], ctx)).toBe(0);
    expect(stdout.text).toMatch(/Connected hubspot for acme.test/);
    const engine = await createEngine({ database: db });
    try {
      expect(await getIntegrationCredentials(engine.store.db, Buffer.from('a'.repeat(64), 'hex'), 'acme.test', 'hubspot')).toEqual({ accessToken: 'pat-na1-xyz' });
    } finally {
      await engine.close();
    }
    const second = context(env);
    expect(await main(['node', 'chs', '--db', db, 'disconnect', 'hubspot', '--workspace', 'acme.test', '--json'], second.ctx)).toBe(0);
    expect(JSON.parse(second.stdout.text)).toEqual({ provider: 'hubspot', workspaceId: 'acme.test', disconnected: true });
    const e2 = await createEngine({ database: db });
    try {
      expect((await integrationStatus(e2.store.db, 'acme.test', 'hubspot')).connected).toBe(false);
    } finally {
      await e2.close();
    }
  });

  it('refuses an unknown provider, google without --email, and half of the refresh flags', async () => {
    const db = await setup();
    for (const args of [
      ['connect', 'slack', '--workspace', 'acme.test', '--access-token', 't'],
      ['connect', 'google', '--workspace', 'acme.test', '--access-token', 't'],
      ['connect', 'google', '--workspace', 'acme.test', '--email', 'a@acme.test', '--access-token', 't', '--refresh-token', 'r'],
      ['connect', 'intercom', '--workspace', 'acme.test', '--access-token', 't', '--email', 'a@acme.test'],
    ]) {
      const { ctx, stderr } = context();
      expect(await main(['node', 'chs', '--db', db, ...args], ctx)).toBe(1);
      expect(stderr.text).toMatch(/INVALID_INPUT/);
    }
  });
});
