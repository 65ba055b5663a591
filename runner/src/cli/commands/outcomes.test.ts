/**
 * `chs outcomes import` (DESIGN.md's CLI): a CS lead imports the renewals their CRM recorded. A
 * file with a bad row imports nothing, names each bad line (file:line) and exits non-zero; the
 * fixed file imports every row; `--json` prints the counts. Then `chs health backtest` says how
 * well the score saw those renewals coming.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, listWorkspaceOutcomes } from '@chs/core';
import { createTestDatabase, type TestDatabase } from '@chs/core/testing';
import { insertClient, insertSnapshot } from '../../../../packages/core/src/health/test-fixtures.js';
import { captureContext } from '../testing.js';
import { main } from '../main.js';

const context = () => captureContext({});

const databases: TestDatabase[] = [];
afterEach(async () => {
  process.exitCode = undefined;
  for (const d of databases.splice(0)) await d.drop();
});

/** A fresh database with the workspace ourco.com and its clients globex and initech; the engine left open. */
async function workspace() {
  const d = await createTestDatabase();
  databases.push(d);
  const setup = await createEngine({ database: d.url });
  await createWorkspace(setup.store.db, { domain: 'ourco.com', name: 'Ourco', ownerEmail: 'ana@ourco.com', ownerName: 'Ana' });
  await insertClient(setup.store.db, 'ourco.com', { id: 'globex', domain: 'globex.com' });
  await insertClient(setup.store.db, 'ourco.com', { id: 'initech', domain: 'initech.com' });
  return { d, setup };
}

describe('chs outcomes import', () => {
  it('imports nothing from a file with a bad row and names each bad line; the fixed file imports every row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-outcomes-'));
    const { d, setup } = await workspace();
    await setup.close();

    const file = join(dir, 'renewals.csv');
    const rows = ['domain,date,outcome,mrrBefore,mrrAfter', 'globex.com,2025-04-30,renewed,1500,1500', 'initech.com,2025-05-31,downgraded,900,'];
    writeFileSync(file, rows.join('\n'));
    const bad = context();
    expect(await main(['node', 'chs', '--db', d.url, 'outcomes', 'import', '--workspace', 'ourco.com', '--file', file], bad.ctx)).toBe(2);
    expect(bad.stdout.text).toBe('2 rows: 1 rejected, so nothing was imported. Fix them and run it again.\n');
    expect(bad.stderr.text).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: a downgrade needs mrrBefore and mrrAfter\\n$`));

    const check = async () => {
      const engine = await createEngine({ database: d.url });
      try {
        return (await listWorkspaceOutcomes(engine.store.db, 'ourco.com')).map((o) => [o.clientId, o.date, o.outcome, o.mrrAfter]);
      } finally {
        await engine.close();
      }
    };
    expect(await check()).toEqual([]);

    process.exitCode = undefined;
    writeFileSync(file, [...rows.slice(0, 2), 'initech.com,2025-05-31,downgraded,900,300'].join('\n'));
    const good = context();
    expect(await main(['node', 'chs', '--db', d.url, 'outcomes', 'import', '--workspace', 'ourco.com', '--file', file, '--json'], good.ctx)).toBe(0);
    expect(JSON.parse(good.stdout.text)).toEqual({ rows: 2, created: 2, updated: 0, errors: [] });
    expect(await check()).toEqual([
      ['globex', '2025-04-30', 'renewed', 1500],
      ['initech', '2025-05-31', 'downgraded', 300],
    ]);

    const missing = context();
    expect(await main(['node', 'chs', '--db', d.url, 'outcomes', 'import', '--workspace', 'ourco.com', '--file', join(dir, 'none.csv')], missing.ctx)).not.toBe(
      0,
    );
    expect(missing.stderr.text).toMatch(/SOURCE_UNREADABLE|cannot read/);
  });
});

describe('chs health backtest', () => {
  it('says, in words and in the figures DESIGN.md pins, whether the score saw the imported churn coming', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-backtest-'));
    const { d, setup } = await workspace();
    // 30 days before their renewals on May 31st: initech red (20), globex green (80).
    await insertSnapshot(setup.store.db, 'ourco.com', 'initech', '2025-05-01', [5, 5, 5, 5]);
    await insertSnapshot(setup.store.db, 'ourco.com', 'globex', '2025-05-01', [20, 20, 20, 20]);
    await setup.close();
    const file = join(dir, 'renewals.csv');
    writeFileSync(file, 'domain,date,outcome\nglobex.com,2025-05-31,renewed\ninitech.com,2025-05-31,churned\n');
    expect(await main(['node', 'chs', '--db', d.url, 'outcomes', 'import', '--workspace', 'ourco.com', '--file', file], context().ctx)).toBe(0);

    const json = context();
    expect(await main(['node', 'chs', '--db', d.url, 'health', 'backtest', '--workspace', 'ourco.com', '--days', '30', '--json'], json.ctx)).toBe(0);
    const r = JSON.parse(json.stdout.text) as Record<string, unknown>;
    expect(r).toMatchObject({ days: 30, outcomes: 2, churned: 1, auc: 1, precision: 1, recall: 1, leadTimeDaysMedian: 0 });

    const text = context();
    expect(await main(['node', 'chs', '--db', d.url, 'health', 'backtest', '--workspace', 'ourco.com', '--days', '30'], text.ctx)).toBe(0);
    expect(text.stdout.text).toMatch(/^The one client that churned was not at risk \(red\) at least 45 days before/);
    expect(text.stdout.text).toMatch(
      /30 days before a renewal, a client that went on to churn scored lower than one that stayed 100 % of the time \(AUC 1\.00\)/,
    );
    expect(text.stdout.text).toMatch(/^DAYS BEFORE +OUTCOMES/m);
    expect(text.stdout.text).toMatch(/^30 +2 +1 +1\.00 +100 % +100 %/m);

    const bad = context();
    expect(await main(['node', 'chs', '--db', d.url, 'health', 'backtest', '--workspace', 'ourco.com', '--days', '0'], bad.ctx)).not.toBe(0);
    expect(bad.stderr.text).toMatch(/--days must be an integer from 1 to 365/);
  });
});
