import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, updateSettings } from '@chs/core';
import { seedClient, seedScores, seedSnapshot } from '../../../../packages/core/src/notify/test-data.js';
import { main } from '../main.js';
import { captureContext } from '../testing.js';

const DATA_NOW = '2024-05-20T09:00:00.000Z';

const context = captureContext;

afterEach(() => {
  process.exitCode = undefined;
});

describe('chs notify', () => {
  it('--dry-run prints what would be sent and records nothing; without it, sends into the outbox once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-notify-'));
    const db = join(dir, 'chs.db');
    const setup = await createEngine({ database: db });
    await createWorkspace(setup.store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
    await updateSettings(setup.store.db, 'acme.com', { notifications: { alertOnRenewals: false } });
    await seedClient(setup.store.db, 'acme.com', { id: 'cl_globex', name: 'Globex', domain: 'globex.com', mrr: 4000, score: 60 });
    await seedScores(setup.store.db, 'acme.com', 'cl_globex', { '2024-05-13': 78, '2024-05-19': 80 });
    await seedSnapshot(setup.store.db, 'acme.com', 'cl_globex', '2024-05-20', 60);
    await setup.close();
    const env = { CHS_NOW: DATA_NOW };

    let { ctx, stdout } = context(env);
    expect(await main(['node', 'chs', '--db', db, 'notify', '--workspace', 'acme.com', '--dry-run'], ctx)).toBe(0);
    expect(stdout.text).toContain('Dry run for acme.com: 1 message would be sent now');
    expect(stdout.text).toContain('=== score_drop · score_drop:cl_globex:2024-05-20');
    expect(stdout.text).toContain('Subject: Score drop: Globex fell 25.0% to 60.0');

    ({ ctx, stdout } = context(env));
    expect(await main(['node', 'chs', '--db', db, 'notify', '--workspace', 'acme.com', '--dry-run', '--json', '--digest', 'weekly'], ctx)).toBe(0);
    const preview = JSON.parse(stdout.text) as {
      dryRun: boolean;
      transport: string;
      messages: Array<{ kind: string; to: string[] }>;
      quiet: Array<{ dedupeKey: string }>;
    };
    expect(preview.dryRun).toBe(true);
    expect(preview.transport).toBe('outbox');
    // The forced weekly digest: 05-13…05-19 has no change (05-12 has no score), so it would be quiet.
    expect(preview.messages.map((m) => [m.kind, m.to])).toEqual([['score_drop', ['ana@acme.com']]]);
    expect(preview.quiet.map((q) => q.dedupeKey)).toEqual([expect.stringMatching(/^digest_weekly:\d{4}-\d{2}-\d{2}$/)]);
    expect(readdirSync(dir)).not.toContain('outbox');

    ({ ctx, stdout } = context(env));
    expect(await main(['node', 'chs', '--db', db, 'notify', '--workspace', 'acme.com'], ctx)).toBe(0);
    expect(stdout.text).toContain('acme.com: 1 sent, 0 failed, 0 already claimed');
    const files = readdirSync(join(dir, 'outbox'));
    expect(files).toHaveLength(1);
    const eml = readFileSync(join(dir, 'outbox', files[0]!), 'utf8');
    expect(eml).toContain('Subject: Score drop: Globex fell 25.0% to 60.0');
    expect(eml).toContain('Content-Type: text/html');

    ({ ctx, stdout } = context(env));
    expect(await main(['node', 'chs', '--db', db, 'notify', '--workspace', 'acme.com'], ctx)).toBe(0);
    expect(stdout.text).toContain('acme.com: 0 sent, 0 failed, 0 already claimed');
    expect(readdirSync(join(dir, 'outbox'))).toHaveLength(1);
  });

  it('refuses an unknown workspace and a bad --digest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-notify-'));
    let { ctx, stderr } = context({});
    expect(await main(['node', 'chs', '--db', join(dir, 'chs.db'), 'notify', '--workspace', 'nope.com', '--dry-run'], ctx)).toBe(1);
    expect(stderr.text).toContain('[WORKSPACE_NOT_FOUND]');
    ({ ctx, stderr } = context({}));
    expect(await main(['node', 'chs', '--db', join(dir, 'chs.db'), 'notify', '--workspace', 'nope.com', '--digest', 'monthly'], ctx)).toBe(1);
    expect(stderr.text).toContain('--digest must be daily or weekly');
  });
});
