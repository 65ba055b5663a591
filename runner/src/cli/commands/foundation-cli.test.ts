/**
 * The "Done when", through the built `chs` binary (run `npx tsc -b` first; `npm test` does):
 * init --json, keys, bad input as one line + non-zero exit, then `serve` answering with the key.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, defaultTestDialectName } from '@chs/core/testing';

// Each spawn pays the CLI's start-up (about 1.5 s here), so these tests get more than the default.
const SLOW = 90_000;

const BIN = fileURLToPath(new URL('../../../bin/chs.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'chs-cli-'));
// SQLite in a folder that does not exist yet (init creates it); a fresh PostgreSQL database when CHS_TEST_DATABASE=postgres.
const database = defaultTestDialectName() === 'postgres' ? await createTestDatabase('postgres') : undefined;
const db = database?.url ?? join(dir, 'data', 'chs.db');
afterAll(async () => database?.drop());
const env = { ...process.env, CHS_LOG_LEVEL: 'warn', CHS_DATABASE_URL: '', CHS_SMTP_URL: '', CHS_DATA_DIR: '' };

function chs(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function expectOneLineError(r: { code: number; stdout: string; stderr: string }, code: string): void {
  expect(r.code).not.toBe(0);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^chs: .*\\[${code}\\]$`));
}

describe('chs init, keys and serve (built binary)', () => {
  let workspaceId = '';
  let apiKey = '';

  beforeAll(() => {
    const r = chs('init', '--workspace', 'acme.com', '--name', 'Acme', '--owner-email', 'ana@acme.com', '--json', '--db', db);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, string>;
    expect(Object.keys(out)).toEqual(['workspaceId', 'apiKey']);
    workspaceId = out.workspaceId!;
    apiKey = out.apiKey!;
  }, SLOW);

  it('init prints {"workspaceId","apiKey"} with a full sk- key', () => {
    expect(workspaceId).toBe('acme.com');
    expect(apiKey).toMatch(/^sk-[A-Za-z0-9_-]{43}$/);
  });

  it(
    'refuses bad input with one line and a non-zero exit',
    () => {
      expectOneLineError(chs('init', '--workspace', 'acme.com', '--name', 'Again', '--owner-email', 'b@acme.com', '--db', db), 'WORKSPACE_EXISTS');
      expectOneLineError(chs('init', '--workspace', 'mail.globex.com', '--name', 'G', '--owner-email', 'h@globex.com', '--db', db), 'INVALID_DOMAIN');
      expectOneLineError(chs('init', '--workspace', 'localhost', '--name', 'G', '--owner-email', 'h@globex.com', '--db', db), 'INVALID_DOMAIN');
      expectOneLineError(
        chs('init', '--workspace', 'globex.com', '--name', 'G', '--owner-email', 'h@globex.com', '--db', 'postgres://127.0.0.1:1/x'),
        'DATABASE_UNREACHABLE',
      );
      expectOneLineError(chs('keys', 'list', '--workspace', 'nope.com', '--db', db), 'WORKSPACE_NOT_FOUND');
      expectOneLineError(chs('keys', 'delete', '--workspace', 'acme.com', '--id', 'key_nope', '--db', db), 'KEY_NOT_FOUND');
    },
    SLOW,
  );

  it(
    'keys create, list (masked) and delete',
    () => {
      const created = chs('keys', 'create', '--workspace', 'ACME.com', '--name', 'CI', '--json', '--db', db);
      expect(created.code).toBe(0);
      const key = JSON.parse(created.stdout) as { id: string; key: string; name: string; workspaceId: string };
      expect(key).toMatchObject({ name: 'CI', workspaceId: 'acme.com' });
      expect(key.key).toMatch(/^sk-/);

      const listed = chs('keys', 'list', '--workspace', 'acme.com', '--json', '--db', db);
      expect(listed.code).toBe(0);
      const rows = JSON.parse(listed.stdout) as Array<{ id: string; name: string; key: string; isActive: boolean }>;
      expect(rows.map((r) => r.name)).toEqual(['Default key', 'CI']);
      expect(listed.stdout).not.toContain(key.key);
      expect(listed.stdout).not.toContain(apiKey);
      expect(rows[1]?.key).toBe(`sk-${key.key.slice(3, 7)}…${key.key.slice(-4)}`);

      const del = chs('keys', 'delete', '--workspace', 'acme.com', '--id', key.id, '--db', db);
      expect(del.code).toBe(0);
      const after = JSON.parse(chs('keys', 'list', '--workspace', 'acme.com', '--json', '--db', db).stdout) as unknown[];
      expect(after).toHaveLength(1);
    },
    SLOW,
  );

  describe('serve', () => {
    let child: ChildProcessWithoutNullStreams;
    let base = '';
    let exit: Promise<number | null>;
    let logs = '';
    let human = '';

    beforeAll(async () => {
      // Request logs on (info), to check that stdout carries them and nothing else.
      child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db], { env: { ...env, CHS_LOG_LEVEL: 'info' } });
      exit = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
      base = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`chs serve did not start: ${human}`)), 20_000);
        child.stdout.on('data', (chunk: Buffer) => {
          logs += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          human += chunk.toString();
          const m = /serving (http:\/\/\S+)\/api/.exec(human);
          if (m?.[1]) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        child.on('exit', () => reject(new Error(`chs serve exited: ${human}`)));
      });
    }, SLOW);

    afterAll(async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exit;
    }, SLOW);

    it(
      'answers GET /api/settings with the key, 401 without, 403 for another workspace’s key, 400 without workspaceId, JSON 404',
      async () => {
        const url = `${base}/api/settings?workspaceId=${workspaceId}`;
        const ok = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
        expect(ok.status).toBe(200);
        expect(((await ok.json()) as { workspace: { domain: string } }).workspace.domain).toBe('acme.com');
        for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(ok.headers.get(h)).toMatch(/^\d+$/);

        const none = await fetch(url);
        expect(none.status).toBe(401);
        expect(await none.json()).toMatchObject({ code: 'AUTH_INVALID_KEY', status: 401 });
        expect(none.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);

        // Another workspace, created while the server runs.
        const other = chs('init', '--workspace', 'globex.com', '--name', 'Globex', '--owner-email', 'hank@globex.com', '--json', '--db', db);
        const otherKey = (JSON.parse(other.stdout) as { apiKey: string }).apiKey;
        const forbidden = await fetch(url, { headers: { 'x-api-key': otherKey } });
        expect(forbidden.status).toBe(403);
        expect(await forbidden.json()).toMatchObject({ code: 'FORBIDDEN_WORKSPACE', status: 403 });

        const missing = await fetch(`${base}/api/settings`, { headers: { authorization: `Bearer ${apiKey}` } });
        expect(missing.status).toBe(400);
        expect(await missing.json()).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });

        const unknown = await fetch(`${base}/api/does-not-exist`, { headers: { authorization: `Bearer ${apiKey}` } });
        expect(unknown.status).toBe(404);
        expect(await unknown.json()).toEqual({ error: expect.any(String), code: 'NOT_FOUND', status: 404 });

        // A key deleted from the command line (another process) is refused at once.
        const k = JSON.parse(chs('keys', 'create', '--workspace', 'acme.com', '--name', 'temp', '--json', '--db', db).stdout) as { id: string; key: string };
        expect((await fetch(url, { headers: { authorization: `Bearer ${k.key}` } })).status).toBe(200);
        expect(chs('keys', 'delete', '--workspace', 'acme.com', '--id', k.id, '--db', db).code).toBe(0);
        expect((await fetch(url, { headers: { authorization: `Bearer ${k.key}` } })).status).toBe(401);
      },
      SLOW,
    );

    it(
      'shuts down on SIGTERM with exit code 0 and writes lastUsedAt',
      async () => {
        child.kill('SIGTERM');
        expect(await exit).toBe(0);
        const rows = JSON.parse(chs('keys', 'list', '--workspace', 'acme.com', '--json', '--db', db).stdout) as Array<{
          name: string;
          lastUsedAt: string | null;
        }>;
        expect(rows.find((r) => r.name === 'Default key')?.lastUsedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      },
      SLOW,
    );

    it('writes only JSON log lines on stdout; the address line goes to stderr', () => {
      const lines = logs.split('\n').filter((l) => l !== '');
      expect(lines.length).toBeGreaterThan(5);
      for (const line of lines) expect(JSON.parse(line) as { level?: unknown }, line).toHaveProperty('level');
      expect(lines.some((l) => l.includes('/api/settings'))).toBe(true);
      expect(logs).not.toContain('serving');
      expect(human).toMatch(/^chs: serving http:\/\/127\.0\.0\.1:\d+\/api \(database /m);
    });
  });
});
