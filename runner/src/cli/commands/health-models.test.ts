/**
 * `chs health learn` and `chs health model list|apply|revert`: a CS lead with a book of renewals
 * learns weights from it, sees them offered beside the hand-written ones with both held-out AUCs,
 * applies them (the scores from today are rebuilt with them) and goes back one step. Too few
 * renewals, a second revert and an unknown model are refused with the reason, exit non-zero.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace } from '@chs/core';
import { createTestDatabase, type TestDatabase } from '@chs/core/testing';
import { renewalBook } from '../../../../packages/core/src/metrics/test-book.js';
import { captureContext } from '../testing.js';
import { main } from '../main.js';

const NOW = '2025-06-30T12:00:00.000Z';
const context = () => captureContext({ CHS_NOW: NOW });

const databases: TestDatabase[] = [];
afterEach(async () => {
  process.exitCode = undefined;
  for (const d of databases.splice(0)) await d.drop();
});

/** A database with the workspace ourco.com and a book of `n` renewals. */
async function book(n: number): Promise<string> {
  const d = await createTestDatabase();
  databases.push(d);
  const setup = await createEngine({ database: d.url });
  try {
    await createWorkspace(setup.store.db, { domain: 'ourco.com', name: 'Ourco', ownerEmail: 'ana@ourco.com', ownerName: 'Ana' });
    await renewalBook(setup.store.db, 'ourco.com', new Date(NOW), n, { churnEngagement: [10, 45], seed: 7 });
  } finally {
    await setup.close();
  }
  return d.url;
}

const chs = async (url: string, ...args: string[]) => {
  const c = context();
  const code = await main(['node', 'chs', '--db', url, ...args], c.ctx);
  process.exitCode = undefined;
  return { code, stdout: c.stdout.text, stderr: c.stderr.text };
};

describe('chs health learn and chs health model', () => {
  it('learns weights from the renewals, offers them, applies them on request and reverts one step', async () => {
    const url = await book(60);
    const learned = await chs(url, 'health', 'learn', '--workspace', 'ourco.com', '--json');
    expect(learned.code).toBe(0);
    const r = JSON.parse(learned.stdout) as {
      model: { version: number; status: string; heldOut: { aucLearned: number; aucDefault: number } };
      summary: string;
    };
    expect(r.model).toMatchObject({ version: 1, status: 'offered' });
    expect(r.model.heldOut.aucLearned).toBeGreaterThan(r.model.heldOut.aucDefault);
    expect(r.summary).toMatch(/Offered as model 1: apply it with chs health model apply --model 1/);

    const list = await chs(url, 'health', 'model', 'list', '--workspace', 'ourco.com');
    expect(list.stdout).toMatch(/^In use: the hand-written weights\.$/m);
    expect(list.stdout).toMatch(/^VERSION +STATUS +LEARNED +RENEWALS +CHURNED +AUC LEARNED +AUC HAND-WRITTEN +WEIGHTS$/m);
    expect(list.stdout).toMatch(/^1 +offered +2025-06-30 +60 +20 +0\.\d{3} +0\.\d{3} +sentiment \d+ %, engagement \d+ %/m);

    const applied = await chs(url, 'health', 'model', 'apply', '--workspace', 'ourco.com', '--model', '1', '--json');
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ model: { version: 1, status: 'active', previousVersion: null }, clientsRescored: 60 });
    const listed = JSON.parse((await chs(url, 'health', 'model', 'list', '--workspace', 'ourco.com', '--json')).stdout) as { active: number | null };
    expect(listed.active).toBe(1);

    const reverted = await chs(url, 'health', 'model', 'revert', '--workspace', 'ourco.com');
    expect(reverted).toMatchObject({ code: 0, stdout: 'The hand-written weights are in use again: 60 client(s) rescored from today.\n' });
    const again = await chs(url, 'health', 'model', 'revert', '--workspace', 'ourco.com');
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/there is no learned model to revert/);
    const unknown = await chs(url, 'health', 'model', 'apply', '--workspace', 'ourco.com', '--model', '7');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no health model 7/);
  });

  it('refuses to learn from too few renewals and says how many it needs', async () => {
    const url = await book(12);
    const r = await chs(url, 'health', 'learn', '--workspace', 'ourco.com');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/needs at least 30 renewal outcomes with a score 60 days before them, 8 of them churns; this workspace has 12 with 4 churn/);
    expect((await chs(url, 'health', 'model', 'list', '--workspace', 'ourco.com')).stdout).toMatch(/No model learned yet/);
  });
});
