/** `chs` reads a `.env` in its working directory at start-up; the environment wins over it. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHS_BIN } from '../jobs/testing.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function run(cwd: string, env: Record<string, string>, ...args: string[]) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CHS_'))) as Record<string, string>;
  return spawnSync(process.execPath, [CHS_BIN, ...args], { cwd, env: { ...clean, ...env }, encoding: 'utf8' });
}

describe('.env', () => {
  it('sets what the environment leaves unset, and the environment wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-dotenv-'));
    dirs.push(dir);
    writeFileSync(join(dir, '.env'), `# settings for this folder\nCHS_DATABASE_URL=${join(dir, 'from-dotenv.db')}\n`);
    const init = ['init', '--workspace', 'acme.com', '--name', 'Acme', '--owner-email', 'ana@acme.com', '--json'];
    expect(run(dir, {}, ...init).status).toBe(0);
    expect(existsSync(join(dir, 'from-dotenv.db'))).toBe(true);
    expect(run(dir, { CHS_DATABASE_URL: join(dir, 'from-env.db') }, ...init).status).toBe(0);
    expect(existsSync(join(dir, 'from-env.db'))).toBe(true);
  });
});
