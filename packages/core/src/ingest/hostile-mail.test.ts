/**
 * The pathological-messages suite (issue 16): quadratic-regex bait, 1 MB headers, 10,000 parts,
 * 100-deep nesting, unknown charsets, NUL bytes, an 8 MB single line, a base64 bomb. Each one
 * alone finishes within a budget with the outcome it must have; all of them in one mbox go
 * through the real path (engine.ingest, the mbox reader, the worker pool) and every one is
 * counted: stored, skipped for a reason, or an error that names its location.
 * The messages are generated (test-support/hostile-mail.ts), nothing large is committed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { mboxSource } from '../source/index.js';
import { defaultTestDialect, dropTestSchemas } from '../store/testing.js';
import { HOSTILE_MESSAGES, HOSTILE_WORKSPACE, hostileMbox } from '../test-support/hostile-mail.js';
import { processOne } from './process.js';
import { cpuMsOf } from '../test-support/complexity.js';

const RULES = { blocklist: [], ownDomains: [HOSTILE_WORKSPACE] };
const dir = mkdtempSync(join(tmpdir(), 'chs-hostile-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropTestSchemas();
});

describe('each hostile message alone', () => {
  it.each(HOSTILE_MESSAGES.map((m) => [m.name, m] as const))('%s finishes within 5 s of CPU with its outcome', async (_name, m) => {
    const raw = m.build();
    let r: Awaited<ReturnType<typeof processOne>> | undefined;
    const cpu = await cpuMsOf(async () => (r = await processOne({ raw, location: m.name, envelopeDate: '2025-03-03T10:00:00.000Z' }, RULES)));
    expect(cpu).toBeLessThan(5_000);
    if (!r) throw new Error('no result');
    const outcome = !r.ok ? 'error' : r.outcome === 'kept' ? 'added' : r.outcome;
    expect(outcome, `${m.what}: ${JSON.stringify(r.ok ? r.outcome : r.reason)}`).toBe(m.outcome);
    if (r.ok && r.outcome === 'kept') {
      expect(r.messageId).toBe(`${m.name}@hostile.test`);
      // Nothing stored may hold a NUL (PostgreSQL refuses it in text: the whole batch would fail).
      expect(JSON.stringify(r)).not.toContain('\\u0000');
    }
  });

  it('a message over the size cap is skipped as too_large without being parsed', async () => {
    const raw = Buffer.from(`From: a@client.example\nTo: me@ourco.com\nDate: Mon, 3 Mar 2025 10:00:00 +0000\n\n${'x'.repeat(2_000)}`);
    const r = await processOne({ raw, location: 'big' }, RULES, undefined, undefined, 1_000);
    expect(r).toMatchObject({ ok: true, outcome: 'skipped', reason: 'too_large' });
  });
});

describe('all of them through engine.ingest over an mbox and the worker pool', () => {
  it('every message is counted (added, skipped or an error with its location) and the run finishes within a budget', async () => {
    const file = join(dir, 'hostile.mbox');
    writeFileSync(file, hostileMbox());
    const engine = await createEngine({ database: await defaultTestDialect().open() });
    try {
      await createWorkspace(engine.store.db, { domain: HOSTILE_WORKSPACE, name: 'Our Co', ownerEmail: 'lead@ourco.com' });
      const t0 = performance.now();
      const s = await engine.ingest({ workspaceId: HOSTILE_WORKSPACE, source: mboxSource(file), workers: 2 });
      expect(performance.now() - t0).toBeLessThan(120_000);

      const want = (o: string) => HOSTILE_MESSAGES.filter((m) => m.outcome === o);
      expect(s.status).toBe('completed');
      expect(s.itemsProcessed).toBe(HOSTILE_MESSAGES.length);
      expect([s.itemsAdded, s.itemsSkipped, s.itemsFiltered, s.errorsCount]).toEqual([want('added').length, want('skipped').length, 0, want('error').length]);
      expect(s.processingErrors.parseErrors).toBe(want('error').length);

      const stored = await engine.store.db.selectFrom('interactions').select('dedupe_key').execute();
      expect(stored.map((r) => r.dedupe_key).sort()).toEqual(
        want('added')
          .map((m) => `${m.name}@hostile.test`)
          .sort(),
      );
      const errors = await engine.store.db.selectFrom('ingestion_errors').select(['location', 'reason']).where('run_id', '=', s.runId).execute();
      expect(errors).toHaveLength(want('error').length);
      for (const e of errors) expect(e.location).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}@\\d+$`));
      expect(errors.map((e) => e.reason).sort()).toEqual(expect.arrayContaining([expect.stringMatching(/header block larger than 256 KiB/)]));
    } finally {
      await engine.close();
    }
  }, 180_000);
});
