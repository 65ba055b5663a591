import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
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

function context(env: NodeJS.ProcessEnv = {}, stdin: NodeJS.ReadableStream = process.stdin): { ctx: CliContext; stdout: Capture; stderr: Capture } {
  const stdout = new Capture();
  const stderr = new Capture();
  const ctx: CliContext = {
    env,
    stdout,
    stderr,
    stdin,
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
      [
        'node',
        'chs',
        '--db',
        db,
        'connect',
        'google',
        '--workspace',
        'acme.test',
        '--email',
        'Rep@Acme.test',
        '--access-token',
        'ya29.SECRET',
        '--refresh-token',
        '1//REFRESH',
        '--client-id',
        'cid',
        '--client-secret',
        'csecret',
        '--expires-at',
        '2024-05-20T01:00:00Z',
        '--json',
      ],
      ctx,
    );
    expect(code).toBe(0);
    // The argv form still works, with a warning per secret given on it.
    for (const flag of ['access-token', 'refresh-token', 'client-secret'])
      expect(stderr.text).toContain(`chs: warning: --${flag} on the command line is visible to other users in \`ps\``);
    expect(stderr.text).not.toMatch(/ya29\.SECRET|1\/\/REFRESH|csecret/);
    expect(JSON.parse(stdout.text)).toEqual({
      connected: true,
      provider: 'google',
      workspaceId: 'acme.test',
      email: 'rep@acme.test',
      expiresAt: '2024-05-20T01:00:00.000Z',
      hasRefresh: true,
      lastSyncAt: null,
      scope: null,
    });
    expect(stdout.text).not.toContain('SECRET');
    const dataDir = join(db, '..');
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(db).includes('ya29.SECRET')).toBe(false);
    const engine = await createEngine({ database: db });
    try {
      const creds = await getIntegrationCredentials(engine.store.db, loadOrCreateSecretKey(dataDir), 'acme.test', 'google');
      expect(creds).toEqual({
        accessToken: 'ya29.SECRET',
        email: 'rep@acme.test',
        refreshToken: '1//REFRESH',
        clientId: 'cid',
        clientSecret: 'csecret',
        expiresAt: '2024-05-20T01:00:00.000Z',
      });
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
      expect(await getIntegrationCredentials(engine.store.db, Buffer.from('a'.repeat(64), 'hex'), 'acme.test', 'hubspot')).toEqual({
        accessToken: 'pat-na1-xyz',
      });
    } finally {
      await engine.close();
    }
    const second = context(env);
    expect(await main(['node', 'chs', '--db', db, 'disconnect', 'hubspot', '--workspace', 'acme.test', '--json'], second.ctx)).toBe(0);
    expect(JSON.parse(second.stdout.text)).toEqual({ provider: 'hubspot', workspaceId: 'acme.test', disconnected: true, revoked: null, revokeError: null });
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

  describe('secrets never on argv: a file, stdin or the environment', () => {
    async function stored(db: string, provider: 'google' | 'hubspot'): Promise<unknown> {
      const engine = await createEngine({ database: db });
      try {
        return await getIntegrationCredentials(engine.store.db, loadOrCreateSecretKey(join(db, '..')), 'acme.test', provider);
      } finally {
        await engine.close();
      }
    }

    it('takes every Google secret from files, stdin and CHS_CONNECT_* without a warning', async () => {
      const db = await setup();
      const dir = join(db, '..');
      writeFileSync(join(dir, 'access'), 'ya29.FROMFILE\n', { mode: 0o600 });
      writeFileSync(join(dir, 'client'), 'csecret-file\n', { mode: 0o600 });
      const { ctx, stdout, stderr } = context({ CHS_CONNECT_REFRESH_TOKEN: '1//FROMENV' });
      const code = await main(
        [
          'node',
          'chs',
          '--db',
          db,
          'connect',
          'google',
          '--workspace',
          'acme.test',
          '--email',
          'rep@acme.test',
          '--access-token-file',
          join(dir, 'access'),
          '--client-id',
          'cid',
          '--client-secret-file',
          join(dir, 'client'),
        ],
        ctx,
      );
      expect(stderr.text).toBe('');
      expect(code).toBe(0);
      expect(stdout.text).toMatch(/Connected google for acme.test \(rep@acme.test\)\./);
      expect(await stored(db, 'google')).toEqual({
        accessToken: 'ya29.FROMFILE',
        email: 'rep@acme.test',
        refreshToken: '1//FROMENV',
        clientId: 'cid',
        clientSecret: 'csecret-file',
      });

      for (const args of [['--access-token-stdin'], ['--access-token', '-'], ['--access-token-file', '-']]) {
        const piped = context({}, Readable.from([Buffer.from('pat-na1-'), Buffer.from('STDIN\n')]));
        expect(await main(['node', 'chs', '--db', db, 'connect', 'hubspot', '--workspace', 'acme.test', ...args], piped.ctx)).toBe(0);
        expect(piped.stderr.text).toBe('');
        expect(await stored(db, 'hubspot')).toEqual({ accessToken: 'pat-na1-STDIN' });
      }
      const fromEnv = context({ CHS_CONNECT_ACCESS_TOKEN: 'pat-na1-ENV' });
      expect(await main(['node', 'chs', '--db', db, 'connect', 'hubspot', '--workspace', 'acme.test'], fromEnv.ctx)).toBe(0);
      expect(fromEnv.stderr.text).toBe('');
      expect(await stored(db, 'hubspot')).toEqual({ accessToken: 'pat-na1-ENV' });
      // A flag wins over the environment.
      writeFileSync(join(dir, 'access'), 'pat-na1-FILE', { mode: 0o600 });
      const both = context({ CHS_CONNECT_ACCESS_TOKEN: 'pat-na1-ENV' });
      expect(
        await main(['node', 'chs', '--db', db, 'connect', 'hubspot', '--workspace', 'acme.test', '--access-token-file', join(dir, 'access')], both.ctx),
      ).toBe(0);
      expect(await stored(db, 'hubspot')).toEqual({ accessToken: 'pat-na1-FILE' });
    });

    it('warns about a token file other users can read, and refuses ambiguous or empty input', async () => {
      const db = await setup();
      const dir = join(db, '..');
      const file = join(dir, 'token');
      writeFileSync(file, 'pat-na1-LOOSE\n');
      chmodSync(file, 0o644);
      const loose = context();
      expect(await main(['node', 'chs', '--db', db, 'connect', 'hubspot', '--workspace', 'acme.test', '--access-token-file', file], loose.ctx)).toBe(0);
      expect(loose.stderr.text).toBe(`chs: warning: ${file} can be read or written by other users (mode 0644); run \`chmod 600 ${file}\`\n`);

      writeFileSync(join(dir, 'empty'), '\n');
      writeFileSync(join(dir, 'two-lines'), 'a\nb\n');
      const cases: Array<[string[], RegExp]> = [
        [
          ['connect', 'hubspot', '--workspace', 'acme.test'],
          /an access token is required: --access-token-file <path>, --access-token-stdin, CHS_CONNECT_ACCESS_TOKEN/,
        ],
        [['connect', 'hubspot', '--workspace', 'acme.test', '--access-token', 'x', '--access-token-file', file], /give --access-token one way only/],
        [
          [
            'connect',
            'google',
            '--workspace',
            'acme.test',
            '--email',
            'a@acme.test',
            '--access-token-stdin',
            '--refresh-token',
            '-',
            '--client-id',
            'c',
            '--client-secret',
            's',
          ],
          /only one secret can be read from stdin/,
        ],
        [['connect', 'hubspot', '--workspace', 'acme.test', '--access-token-file', join(dir, 'empty')], /--access-token-file is empty/],
        [['connect', 'hubspot', '--workspace', 'acme.test', '--access-token-file', join(dir, 'two-lines')], /more than one line/],
        [
          ['connect', 'hubspot', '--workspace', 'acme.test', '--access-token-file', join(dir, 'missing')],
          /--access-token-file: cannot read .*missing \(ENOENT\)/,
        ],
        [
          ['connect', 'intercom', '--workspace', 'acme.test', '--access-token-stdin', '--client-secret-file', file],
          /--client-secret-file applies to google only/,
        ],
      ];
      for (const [args, message] of cases) {
        const { ctx, stderr } = context({}, Readable.from([]));
        expect(await main(['node', 'chs', '--db', db, ...args], ctx), args.join(' ')).toBe(1);
        expect(stderr.text).toMatch(message);
        expect(stderr.text).toMatch(/\[INVALID_INPUT\]\n$/);
        expect(stderr.text).not.toContain('pat-na1-LOOSE');
      }
    });
  });
});
