/**
 * End to end, "Did the score predict churn?": `chs demo` (the demo data and the built dashboard)
 * in a child process and Debian's Chromium driven by playwright-core, as dashboard.e2e.test.ts
 * does, on a server of its own. A CS lead opens the screen before any outcome is recorded and is
 * told how to import them; runs that very `chs outcomes import` with a CSV of renewals (the
 * lowest-scored demo clients churned, the others renewed or downgraded); and then sees the
 * engine's sentence, the figures, the ROC and reliability charts drawn on canvas with their text
 * alternatives, the churns linked to their clients, and another horizon asked. Before the import,
 * the learned weights below say none is learned, and learning is refused for want of outcomes.
 *
 * Needs the dashboard built (`npm run build -w dashboard`), the runner built (`npx tsc -b`) and
 * Chromium (`apt-get install chromium`; CHS_CHROMIUM names another binary).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnDemo } from './demo.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '@chs/core/testing';
import { chs, type Env } from '../../runner/src/jobs/testing.js';

const CHROMIUM = process.env.CHS_CHROMIUM ?? '/usr/bin/chromium';
const WORKSPACE = 'ourco.com';
/** The demo's "now" (DEMO_END_DATE): the renewals are recorded on that day. */
const RENEWAL_DAY = '2025-06-30';

let db: TestDatabase;
let dir: string;
let env: Env;
let server: ChildProcess;
let link: string;
let origin: string;
let browser: Browser;
let page: Page;
/** Console errors and page errors, per test (reset by each). */
let problems: string[] = [];

function startDemo(): Promise<string> {
  env = {
    ...(process.env as Env),
    CHS_DATABASE_URL: db.url,
    CHS_DATA_DIR: dir,
    CHS_LOG_LEVEL: 'warn',
    CHS_SCHEDULER: 'off',
    CHS_SMTP_URL: '',
    CHS_RATE_LIMIT_PER_MINUTE: '100000',
    CHS_RATE_LIMIT_PER_HOUR: '1000000',
    CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000',
  };
  delete env.CHS_NOW;
  const demo = spawnDemo(env, dir);
  server = demo.server;
  return demo.link;
}

/** The JSON of a GET on the API with the demo's key, from the test. */
async function apiJson<T>(path: string): Promise<T> {
  const key = decodeURIComponent(new URL(link).hash.split('key=')[1]!);
  const res = await fetch(`${origin}/api${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dashboard/dist/index.html'))) throw new Error('dashboard/dist is not built: run `npm run build -w dashboard` (npm ci does it)');
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHS_CHROMIUM)`);
  db = await createTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'chs-e2e-backtest-'));
  link = await startDemo();
  origin = new URL(link).origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, timezoneId: 'UTC', locale: 'en-US' });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
  await new Promise((r) => (server && server.exitCode === null ? server.once('exit', r) : r(null)));
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('did the score predict churn? on the demo data', () => {
  it('before any outcome: says so and how to import them, with no charts', async () => {
    problems = [];
    await page.goto(link);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Churn backtest' }).click();
    await page.waitForURL(`${origin}/backtest`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Did the score predict churn?');
    const summary = page.getByTestId('backtest-summary');
    await summary.waitFor({ timeout: 30_000 });
    expect(await summary.innerText()).toMatch(/^No renewal outcomes recorded yet/);
    expect(await page.getByTestId('import-command').innerText()).toBe(`chs outcomes import --workspace ${WORKSPACE} --file outcomes.csv`);
    expect(await page.locator('canvas').count()).toBe(0);

    // Below: no learned model, the hand-written weights in use, and learning refused in the engine's words.
    const learned = page.getByRole('region', { name: 'Learned weights' });
    await expect
      .poll(() =>
        learned
          .getByTestId('model-in-use')
          .innerText()
          .catch(() => ''),
      )
      .toMatch(/^In use: the hand-written weights \(sentiment \d+%/);
    expect(await learned.innerText()).toContain('No model learned yet.');
    await learned.getByRole('button', { name: 'Learn from outcomes' }).click();
    const refusal = learned.getByRole('alert');
    await refusal.waitFor({ timeout: 30_000 });
    expect(await refusal.innerText()).toMatch(
      /^learning weights needs at least 30 renewal outcomes with a score 60 days before them, 8 of them churns; .*\(CONFLICT\)/s,
    );
    expect(await learned.getByTestId('models-table').count()).toBe(0);
    // The refused request is the browser's one logged line (a 409 answer).
    expect(problems.filter((p) => !/status of 409/.test(p))).toEqual([]);
  });

  it('after `chs outcomes import`: the sentence, the figures, both charts with their text alternatives, the churns; 90 days asked', async () => {
    problems = [];
    // The renewals of the day: the six lowest-scored clients churned, two downgraded, the rest renewed.
    const clients = (
      await apiJson<{ id: string; name: string; domain: string | null; sentimentScore: number; isExcluded: boolean }[]>(`/clients?workspaceId=${WORKSPACE}`)
    )
      .filter((c) => !c.isExcluded && c.domain)
      .sort((a, b) => a.sentimentScore - b.sentimentScore);
    expect(clients.length).toBeGreaterThan(12);
    const churned = clients.slice(0, 6);
    const rows = clients.map((c, i) =>
      i < 6 ? `${c.domain},${RENEWAL_DAY},churned,,` : i < 8 ? `${c.domain},${RENEWAL_DAY},downgraded,2000,1500` : `${c.domain},${RENEWAL_DAY},renewed,,`,
    );
    const csv = join(dir, 'outcomes.csv');
    writeFileSync(csv, ['domain,date,outcome,mrrBefore,mrrAfter', ...rows].join('\n') + '\n');
    const imported = await chs(env, 'outcomes', 'import', '--workspace', WORKSPACE, '--file', csv);
    expect(imported.code, imported.stderr).toBe(0);

    await page.reload();
    const summary = page.getByTestId('backtest-summary');
    await summary.waitFor({ timeout: 30_000 });
    expect(await summary.innerText()).toMatch(/^Of the 6 clients that churned, \d+ (was|were) at risk \(red\) at least 45 days before/);
    expect(await summary.innerText()).toMatch(/60 days before a renewal, a client that went on to churn scored lower than one that stayed \d+ % of the time/);

    const figures = page.getByTestId('backtest-figures');
    for (const label of ['Churns seen coming: recall', 'Flagged that did churn: precision', 'AUC', 'Median warning time (days)', 'Riskiest tenth churns'])
      expect(await figures.innerText()).toContain(label);
    expect(await figures.locator('.stat').nth(2).locator('.stat-value').innerText()).toMatch(/^(0\.\d\d|1\.00)$/);

    // Both charts drawn, each labelled, with its text alternative beside it.
    const roc = page.getByTestId('backtest-roc');
    const reliability = page.getByTestId('backtest-reliability');
    await expect.poll(() => roc.locator('canvas').count()).toBeGreaterThan(0);
    await expect.poll(() => reliability.locator('canvas').count()).toBeGreaterThan(0);
    // ECharts' ARIA description of the data replaces the container's label on canvas: it names both series.
    expect(await roc.getAttribute('aria-label')).toMatch(/Health score.*A coin/);
    expect(await reliability.getAttribute('aria-label')).toMatch(/Observed.*Perfect calibration/);
    expect(await page.getByTestId('backtest-roc-caption').innerText()).toMatch(/^Each point is a cut-off score: .* 60 days before the renewal\./);
    expect(await page.getByTestId('backtest-roc-caption').innerText()).toMatch(/The score's curve has an area \(AUC\) of (0\.\d\d|1\.00)\./);
    expect(await page.getByTestId('backtest-reliability-table').locator('tbody tr').count()).toBe(5);

    // The churns, each linked to its client by name.
    const churnRows = page.getByTestId('backtest-churns').locator('tbody tr');
    expect(await churnRows.count()).toBe(6);
    const names = await page.getByTestId('backtest-churns').locator('tbody tr td:first-child').allInnerTexts();
    expect(names.sort()).toEqual(churned.map((c) => c.name).sort());

    await page.getByRole('button', { name: '90 days before' }).click();
    await expect.poll(() => summary.innerText()).toMatch(/90 days before a renewal|had no score 90 days before/);
    expect(await page.getByRole('button', { name: '90 days before' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('backtest-roc-caption').innerText()).toContain('90 days before the renewal.');

    const first = churnRows.first().getByRole('link');
    const name = await first.innerText();
    await first.click();
    await page.waitForURL(/\/clients\/[^/]+$/);
    await expect.poll(() => page.locator('h1').innerText()).toContain(name);
    expect(problems).toEqual([]);
  });
});
