/**
 * Issue 16 on the command line: `chs keys` records `cli` as the maker and shows who made each key,
 * honours the cap (CHS_MAX_API_KEYS), `chs keys revoke-all` revokes every key of a workspace, and
 * `chs profile confirm-email` takes the confirmation token on stdin (never argv).
 */
import { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey, createEngine, createWorkspace, getOwner, requestEmailChange, verifyApiKey } from '@chs/core';
import { createTestDatabase, type TestDatabase } from '@chs/core/testing';
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

function context(env: NodeJS.ProcessEnv = {}, stdin = ''): { ctx: CliContext; stdout: Capture; stderr: Capture } {
  const stdout = new Capture();
  const stderr = new Capture();
  const ctx: CliContext = {
    env,
    stdout,
    stderr,
    stdin: Readable.from([stdin]),
    config: (flags) => loadConfig(env, flags),
    openEngine: (config) => createEngine({ database: config.databaseUrl }),
  };
  return { ctx, stdout, stderr };
}

const databases: TestDatabase[] = [];
afterEach(async () => {
  process.exitCode = undefined;
  for (const d of databases.splice(0)) await d.drop();
});

/** A fresh database (SQLite file, or PostgreSQL when CHS_TEST_DATABASE=postgres) with acme.com and globex.com. */
async function setup(): Promise<{ db: string; firstKey: string; firstKeyId: string; globexKey: string; ownerId: string }> {
  const d = await createTestDatabase();
  databases.push(d);
  const engine = await createEngine({ database: d.url });
  try {
    const acme = await createWorkspace(engine.store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
    const globex = await createWorkspace(engine.store.db, { domain: 'globex.com', name: 'Globex', ownerEmail: 'hank@globex.com' });
    // A key made through the API by the first key.
    await createApiKey(engine.store.db, { workspaceId: 'acme.com', name: 'Zapier', createdBy: acme.apiKey.id, now: new Date(Date.now() + 60_000) });
    return { db: d.url, firstKey: acme.apiKey.key, firstKeyId: acme.apiKey.id, globexKey: globex.apiKey.key, ownerId: acme.owner.id };
  } finally {
    await engine.close();
  }
}

async function run(args: string[], env: NodeJS.ProcessEnv = {}, stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const { ctx, stdout, stderr } = context(env, stdin);
  const code = await main(['node', 'chs', ...args], ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('chs keys: who made each key, the cap, revoke-all', () => {
  it('shows createdBy, refuses a key over CHS_MAX_API_KEYS, and revokes every key of one workspace', async () => {
    const s = await setup();
    const made = await run(['--db', s.db, 'keys', 'create', '--workspace', 'acme.com', '--name', 'CI', '--json'], { CHS_MAX_API_KEYS: '3' });
    expect(made.code).toBe(0);
    const ci = JSON.parse(made.stdout) as { id: string };

    const list = await run(['--db', s.db, 'keys', 'list', '--workspace', 'acme.com', '--json']);
    expect((JSON.parse(list.stdout) as Array<{ name: string; createdBy: string | null }>).map((k) => [k.name, k.createdBy])).toEqual([
      ['Default key', 'cli'],
      ['CI', 'cli'],
      ['Zapier', s.firstKeyId],
    ]);
    const table = await run(['--db', s.db, 'keys', 'list', '--workspace', 'acme.com']);
    expect(table.stdout.split('\n')[0]).toMatch(/CREATED BY$/);
    expect(table.stdout).toContain(s.firstKeyId);

    const over = await run(['--db', s.db, 'keys', 'create', '--workspace', 'acme.com', '--name', 'one more'], { CHS_MAX_API_KEYS: '3' });
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/^chs: .*at most 3.*\[KEY_LIMIT_REACHED\]\n$/);
    expect((await run(['--db', s.db, 'keys', 'create', '--workspace', 'acme.com', '--name', 'x'], { CHS_MAX_API_KEYS: 'lots' })).stderr).toContain(
      'CHS_MAX_API_KEYS must be a positive integer',
    );

    const revoked = await run(['--db', s.db, 'keys', 'revoke-all', '--workspace', 'ACME.com', '--json']);
    expect(revoked.code).toBe(0);
    const out = JSON.parse(revoked.stdout) as { workspaceId: string; revoked: string[] };
    expect(out.workspaceId).toBe('acme.com');
    expect(out.revoked).toHaveLength(3);
    expect(out.revoked).toContain(ci.id);

    const engine = await createEngine({ database: s.db });
    try {
      expect(await verifyApiKey(engine.store.db, s.firstKey)).toBeNull();
      // Only acme.com's keys.
      expect(await verifyApiKey(engine.store.db, s.globexKey)).not.toBeNull();
    } finally {
      await engine.close();
    }
    const again = await run(['--db', s.db, 'keys', 'revoke-all', '--workspace', 'acme.com']);
    expect(again.stdout).toContain('Revoked 0 keys of acme.com.');
    const after = JSON.parse((await run(['--db', s.db, 'keys', 'list', '--workspace', 'acme.com', '--json'])).stdout) as Array<{ isActive: boolean }>;
    expect(after.map((k) => k.isActive)).toEqual([false, false, false]);
    // A fresh key can be made at once.
    expect((await run(['--db', s.db, 'keys', 'create', '--workspace', 'acme.com', '--name', 'after the leak'], { CHS_MAX_API_KEYS: '3' })).code).toBe(0);
    expect((await run(['--db', s.db, 'keys', 'revoke-all', '--workspace', 'nope.com'])).stderr).toContain('[WORKSPACE_NOT_FOUND]');
  });
});

describe('chs profile', () => {
  it('shows the pending address and confirms it with the token read from stdin', async () => {
    const s = await setup();
    const engine = await createEngine({ database: s.db });
    let token: string;
    try {
      const req = await requestEmailChange(engine.store.db, s.ownerId, 'ana@newco.io');
      if (req.status !== 'pending') throw new Error('expected a pending change');
      token = req.token;
    } finally {
      await engine.close();
    }
    const shown = await run(['--db', s.db, 'profile', 'show', '--workspace', 'acme.com', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ workspaceId: 'acme.com', email: 'ana@acme.com', pendingEmail: 'ana@newco.io' });

    const empty = await run(['--db', s.db, 'profile', 'confirm-email', '--workspace', 'acme.com'], {}, '\n\n');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('[INVALID_INPUT]');
    const wrong = await run(['--db', s.db, 'profile', 'confirm-email', '--workspace', 'globex.com'], {}, `${token}\n`);
    expect(wrong.stderr).toContain('[CONFIRMATION_INVALID]');

    const ok = await run(['--db', s.db, 'profile', 'confirm-email', '--workspace', 'acme.com'], {}, `  ${token}  \r\n`);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('Confirmed: alerts and digests for acme.com now go to ana@newco.io.\n');
    const check = await createEngine({ database: s.db });
    try {
      expect((await getOwner(check.store.db, 'acme.com'))?.email).toBe('ana@newco.io');
    } finally {
      await check.close();
    }
    expect((await run(['--db', s.db, 'profile', 'confirm-email', '--workspace', 'acme.com'], {}, token)).stderr).toContain('[CONFIRMATION_INVALID]');
  });
});
