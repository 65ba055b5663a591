/**
 * `chs ingest` on a hostile folder (issue 16): CHS_MAX_MESSAGE_BYTES caps the files read, a
 * symlink out of the folder is not followed, and both are counted by reason in the summary.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '@chs/core';
import { createTestDatabase } from '../../../../packages/core/src/store/testing.js';
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

async function chs(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const ctx: CliContext = {
    env,
    stdout,
    stderr,
    stdin: process.stdin,
    config: (flags) => loadConfig(env, flags),
    openEngine: (config) => createEngine({ database: config.databaseUrl, ...(config.mailLimits ? { mailLimits: config.mailLimits } : {}) }),
  };
  const code = await main(['node', 'chs', ...args], ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  process.exitCode = undefined;
  for (const f of cleanup.splice(0)) await f();
});

const mail = (n: string, pad = 0) =>
  `From: ana@client.example\nTo: me@ourco.com\nDate: Mon, 3 Mar 2025 10:00:00 +0000\nMessage-ID: <${n}@t>\nSubject: ${n}\n\nHello ${n}\n${'x'.repeat(pad)}`;

describe('message limits from the environment', () => {
  it('CHS_PARSE_BUDGET_MS and CHS_MAX_MESSAGE_BYTES: defaults 10 s and 64 MiB, positive integers', () => {
    expect(loadConfig({}).mailLimits).toEqual({ parseBudgetMs: 10_000, maxMessageBytes: 64 * 1024 * 1024 });
    expect(loadConfig({ CHS_PARSE_BUDGET_MS: '2500', CHS_MAX_MESSAGE_BYTES: '1000' }).mailLimits).toEqual({ parseBudgetMs: 2500, maxMessageBytes: 1000 });
    expect(() => loadConfig({ CHS_PARSE_BUDGET_MS: '0' })).toThrow(/CHS_PARSE_BUDGET_MS must be a positive integer/);
    expect(() => loadConfig({ CHS_MAX_MESSAGE_BYTES: 'big' })).toThrow(/CHS_MAX_MESSAGE_BYTES/);
  });

  it('chs ingest --eml-dir skips files over CHS_MAX_MESSAGE_BYTES and symlinks out of the folder, by reason', async () => {
    const db = await createTestDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'chs-ingest-limits-'));
    cleanup.push(
      () => db.drop(),
      () => rmSync(dir, { recursive: true, force: true }),
    );
    const folder = join(dir, 'mail');
    const outside = join(dir, 'outside.eml');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.eml'), mail('small'));
    writeFileSync(join(folder, 'b.eml'), mail('big', 5_000));
    writeFileSync(outside, mail('outside'));
    symlinkSync(outside, join(folder, 'c.eml'));

    const env = { CHS_DATA_DIR: dir, CHS_MAX_MESSAGE_BYTES: '4000' };
    expect((await chs(env, ['--db', db.url, 'init', '--workspace', 'ourco.com', '--name', 'Our Co', '--owner-email', 'lead@ourco.com', '--json'])).code).toBe(
      0,
    );
    const run = await chs(env, ['--db', db.url, 'ingest', '--workspace', 'ourco.com', '--eml-dir', folder, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { itemsProcessed: number; itemsAdded: number; itemsSkipped: number; skipped: Record<string, number> };
    expect([summary.itemsProcessed, summary.itemsAdded, summary.itemsSkipped]).toEqual([3, 1, 2]);
    expect(summary.skipped).toMatchObject({ too_large: 1, outside_folder: 1 });
  });
});
