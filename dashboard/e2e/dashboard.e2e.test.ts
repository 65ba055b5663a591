/**
 * End to end: `chs demo` (the demo data, served with the built dashboard, printing its ready
 * link) in a child process, and Debian's Chromium (/usr/bin/chromium, headless) driven by
 * playwright-core. One server, one browser; the tests run in order on one page, as a CS lead
 * would: sign in through the fragment, see who is at risk and why, open a client, change its
 * MRR, reach a score move's reason with the keyboard alone, manage keys, add a webhook endpoint
 * (a local receiver on 127.0.0.1, so the demo runs with CHS_WEBHOOKS_ALLOW_PRIVATE=1) and follow its
 * deliveries, start a backfill of Gmail (a local fake Gmail behind a slow proxy, connected with
 * `chs connect google`) and follow then cancel its job, fall back to sign-in on a 401.
 *
 * Needs the dashboard built (`npm ci` does it; `npm run build -w dashboard`) and Chromium
 * (`apt-get install chromium`; CHS_CHROMIUM names another binary). CHS_SCREENSHOTS_DIR=docs/dashboard
 * writes the README's screenshots; otherwise they go to a temporary folder.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnDemo } from './demo.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Webhook as SignatureCheck } from 'standardwebhooks';
import { createTestDatabase, startFakeGmailServer, type FakeGmailServer, type TestDatabase } from '@chs/core/testing';
import { connectStaleGoogle, makeMailbox, startDelayProxy, type Env } from '../../runner/src/jobs/testing.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../runner/src/http/webhook-testing.js';

const CHROMIUM = process.env.CHS_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = process.env.CHS_SCREENSHOTS_DIR ? resolve(ROOT, process.env.CHS_SCREENSHOTS_DIR) : mkdtempSync(join(tmpdir(), 'chs-shots-'));

let db: TestDatabase;
let dir: string;
let server: ChildProcess;
let link: string;
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let gmail: FakeGmailServer;
let slowGmail: { url: string; close(): Promise<void> };
/** Where the webhook endpoint added from the settings delivers. */
let receiver: WebhookReceiver;
/** The demo's environment (its database, folder and Gmail at the fake), for `chs connect` too. */
let demoEnv: Env;
/** Console errors and page errors, per test (reset by each). */
let problems: string[] = [];

function startDemo(): Promise<string> {
  const env = {
    ...process.env,
    CHS_DATABASE_URL: db.url,
    CHS_DATA_DIR: dir,
    CHS_LOG_LEVEL: 'warn',
    CHS_SCHEDULER: 'off',
    CHS_SMTP_URL: '',
    // The browser loads several reads per screen, faster than a person clicks.
    CHS_RATE_LIMIT_PER_MINUTE: '100000',
    CHS_RATE_LIMIT_PER_HOUR: '1000000',
    CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000',
    // Gmail is a local fake, each message read slowed down so a backfill runs long enough to watch.
    CHS_GOOGLE_API_URL: slowGmail.url,
    CHS_GOOGLE_TOKEN_URL: gmail.tokenUrl,
    CHS_JOB_POLL_MS: '200',
    // The webhook receiver is on 127.0.0.1, over http; a delivery it refuses is retried once, a second
    // later, then given up: the settings show it failed within seconds.
    CHS_WEBHOOKS_ALLOW_PRIVATE: '1',
    CHS_WEBHOOK_RETRY_SCHEDULE_MS: '1000',
    CHS_WEBHOOK_POLL_MS: '200',
  };
  delete (env as Record<string, string | undefined>).CHS_NOW;
  demoEnv = env;
  const demo = spawnDemo(env, dir);
  server = demo.server;
  return demo.link;
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** A GET on the API with a key, from the test (not the page). */
async function apiStatus(path: string, key: string): Promise<number> {
  const res = await fetch(`${origin}/api${path}`, { headers: { authorization: `Bearer ${key}` } });
  return res.status;
}

/** The JSON of a GET on the API with the page's key, from the test. */
async function apiJson(path: string): Promise<unknown> {
  const { key } = JSON.parse((await page.evaluate(() => sessionStorage.getItem('chs.session')))!) as { key: string };
  const res = await fetch(`${origin}/api${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return res.json();
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dashboard/dist/index.html'))) throw new Error('dashboard/dist is not built: run `npm run build -w dashboard` (npm ci does it)');
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHS_CHROMIUM)`);
  mkdirSync(SHOTS, { recursive: true });
  db = await createTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'chs-e2e-'));
  // 300 messages of the last 30 days, each read 150 ms late (5 at a time): a backfill runs for 9 s or more.
  gmail = await startFakeGmailServer({
    messages: makeMailbox(300, { workspace: 'ourco.com', spacingMs: 2 * 3_600_000 }).messages,
    accessTokens: [],
    emailAddress: 'rep@ourco.com',
  });
  slowGmail = await startDelayProxy(gmail.apiUrl, 150);
  receiver = await startWebhookReceiver();
  link = await startDemo();
  origin = new URL(link).origin;
  // A CSM's mailbox connected to the demo workspace (an expired token: the first read refreshes it).
  await connectStaleGoogle(demoEnv, 'ourco.com');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  context = await browser.newContext({ viewport: { width: 1366, height: 900 }, timezoneId: 'UTC', locale: 'en-US' });
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
  await slowGmail?.close();
  await receiver?.close();
  await gmail?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (!process.env.CHS_SCREENSHOTS_DIR) rmSync(SHOTS, { recursive: true, force: true });
});

describe('the dashboard on the demo data', () => {
  it('signs in from the link: the fragment leaves the address bar, the portfolio names the clients at risk with their reasons', async () => {
    problems = [];
    expect(link).toMatch(/\/#workspace=ourco\.com&key=sk-/);
    await page.goto(link);
    const firstRow = page.locator('[data-testid="at-risk"] tbody tr').first();
    await firstRow.waitFor({ timeout: 30_000 });
    // Time to first render: from navigation start to the at-risk list on screen, in the browser.
    const ms = await page.evaluate(() => performance.now());
    console.info(`dashboard e2e: portfolio at-risk list visible ${ms.toFixed(0)} ms after navigation start`);

    expect(page.url()).toBe(`${origin}/`);
    const stored = await page.evaluate(() => sessionStorage.getItem('chs.session'));
    expect(JSON.parse(stored!)).toEqual({ workspace: 'ourco.com', key: new URL(link).hash.split('key=')[1] });

    const rows = await page.locator('[data-testid="at-risk"] tbody tr').allInnerTexts();
    const calderon = rows.find((r) => r.includes('Calderon Freight'));
    const brightwater = rows.find((r) => r.includes('Brightwater Analytics'));
    expect(calderon, rows.join('\n')).toMatch(/Score \d+(\.\d)?: .*leave/i);
    expect(brightwater, rows.join('\n')).toBeDefined();
    // Score, MRR in the workspace's currency, the renewal date, the reason.
    expect(calderon).toMatch(/\$[\d,]+/);
    await expect.poll(() => page.locator('[data-testid="health-trend"] canvas').count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator('[data-testid="distribution"] canvas').count()).toBeGreaterThan(0);
    await shot('portfolio');
    expect(problems).toEqual([]);
  });

  it('opens a client from the risk list: its score chart says why on hover, with the evidence', async () => {
    problems = [];
    await page.locator('[data-testid="at-risk"]').getByRole('link', { name: 'Brightwater Analytics' }).click();
    await page.waitForURL(/\/clients\/[^/]+$/);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Brightwater Analytics');
    const chart = page.locator('[data-testid="score-history"]');
    await chart.locator('canvas').first().waitFor();
    const evidence = page.locator('[data-testid="evidence"] li');
    await evidence.first().waitFor();
    expect(await evidence.count()).toBeGreaterThan(0);
    expect(await evidence.first().innerText()).toMatch(/positive|neutral|negative/);
    expect(await page.getByTestId('client-reason').innerText()).toMatch(/^Score \d+(\.\d)?: \w+/);
    // Hovering the last day of the chart shows its tooltip with the score and the reason.
    const box = (await chart.boundingBox())!;
    await page.mouse.move(box.x + box.width - 60, box.y + box.height / 2);
    await page.mouse.move(box.x + box.width - 45, box.y + box.height / 2);
    await expect.poll(() => chart.innerText(), { timeout: 10_000 }).toMatch(/Score \d+(\.\d)? \(/);
    await page.locator('[data-testid="timeline"] tbody tr').first().waitFor();
    await shot('client');
    expect(problems).toEqual([]);
  });

  it("reaches a score move's reason with the keyboard alone, and the chart shows that day", async () => {
    problems = [];
    // The page afresh, then Tab only, from the top: the skip link, the nav, the range buttons, the moves.
    await page.reload();
    await page.locator('[data-testid="score-moves"] tbody tr').first().waitFor();
    let focused = '';
    for (let i = 0; i < 40 && !focused; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => (document.activeElement?.closest('[data-testid="score-moves"] tbody tr') as HTMLElement | null)?.innerText ?? '');
    }
    // The newest move: its date, score, change and reason, as the chart's tooltip says them.
    const cells = /^(\w{3} \d{1,2}, \d{4})\s+(\d+\.\d)\s+([+−]\d+\.\d)\s+(Score .+)$/.exec(focused);
    expect(cells, focused).not.toBeNull();
    const [, day, score, change, reason] = cells!;
    // The chart shows the same day's tooltip: the score, its change, the reason.
    const chart = page.locator('[data-testid="score-history"]');
    await expect.poll(() => chart.innerText(), { timeout: 10_000 }).toContain(day!);
    expect(await chart.innerText()).toContain(`Score ${score} (${change})`);
    expect((await chart.innerText()).replace(/\s+/g, ' ')).toContain(reason!.slice(0, 40));
    // The focus is visible: the row has an outline.
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe('solid');
    await shot('client-moves');
    expect(problems).toEqual([]);
  });

  it("changes the client's MRR and sees it in the clients table", async () => {
    problems = [];
    await page.locator('input[name="mrr"]').fill('12345');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.waitForURL(`${origin}/clients`);
    await page.getByLabel('Search').fill('Brightwater');
    const row = page.locator('[data-testid="clients-table"] tbody tr', { hasText: 'Brightwater Analytics' });
    await expect.poll(() => row.locator('[data-col="mrr"]').innerText()).toBe('$12,345');
    await page.getByLabel('Search').fill('');
    // Sorting by MRR, descending: the biggest account first.
    await page.getByRole('button', { name: 'MRR' }).click();
    await page.getByRole('button', { name: 'MRR' }).click();
    expect(await page.locator('[data-testid="clients-table"] th[aria-sort="descending"]').innerText()).toContain('MRR');
    await shot('clients');
    expect(problems).toEqual([]);
  });

  it('creates an API key shown once, then revokes it', async () => {
    problems = [];
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.locator('input[name="keyName"]').fill('e2e key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const full = await page.getByTestId('new-key-value').innerText();
    expect(full).toMatch(/^sk-[A-Za-z0-9_-]{40,}$/);
    expect(await apiStatus('/settings/user?workspaceId=ourco.com', full)).toBe(200);
    const row = page.locator('[data-testid="api-keys"] tr[data-key-name="e2e key"]');
    await row.waitFor();
    const masked = await row.locator('code').innerText();
    expect(masked).not.toBe(full);
    expect(masked).toContain('…');
    // Shown once: gone after "Done", and not on the page after a reload.
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(full);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(full);
    await shot('settings');

    await page.getByRole('button', { name: 'Revoke e2e key' }).click();
    await page.getByRole('button', { name: 'Revoke e2e key for good' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect(await apiStatus('/settings/user?workspaceId=ourco.com', full)).toBe(401);
    expect(problems).toEqual([]);
  });

  it('adds a webhook endpoint, its secret shown once; a test event arrives signed with it; a failed delivery is redelivered; disabled, deleted', async () => {
    problems = [];
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Add a webhook endpoint' });
    await form.getByLabel(/client\.risk_entered/).check();
    await form.getByLabel(/job\.failed/).check();
    await form.getByLabel('Description (optional)').fill('e2e receiver');
    // An address the server refuses: its words under the form, nothing added.
    await form.getByLabel('Endpoint URL').fill('ftp://127.0.0.1/hooks');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await form.getByRole('alert').innerText()).toMatch(/must be https/);
    expect(await page.getByRole('article').count()).toBe(0);

    const url = `${receiver.url}/hooks/chs`;
    await form.getByLabel('Endpoint URL').fill(url);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const notice = page.getByTestId('webhook-secret');
    expect(await notice.innerText()).toContain('You will not see it again.');
    const secret = await notice.getByTestId('webhook-secret-value').innerText();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const item = page.getByRole('article', { name: url });
    await item.waitFor();
    expect(await item.innerText()).toMatch(/Kind\s+Standard/);
    expect(await item.getByRole('list', { name: 'Events sent' }).innerText()).toMatch(/^client\.risk_entered\s+job\.failed$/);
    expect(await item.getByTestId('webhook-state').innerText()).toBe('Enabled');
    // Shown once: gone after Done, in no listing, not on the page after a reload.
    await notice.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    const listed = (await apiJson('/settings/webhooks?workspaceId=ourco.com')) as { webhooks: Record<string, unknown>[] };
    expect(listed.webhooks.map((w) => [w.url, w.description, w.enabled])).toEqual([[url, 'e2e receiver', true]]);
    expect(JSON.stringify(listed)).not.toContain(secret);
    await page.reload();
    await item.waitFor();
    expect(await page.content()).not.toContain(secret);

    // A test event: the receiver gets it, signed with that secret (checked by the standardwebhooks package).
    await item.getByRole('button', { name: 'Send test event' }).click();
    const [test] = await receiver.waitFor(1, 15_000);
    expect(new SignatureCheck(secret).verify(test!.body, test!.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
    const deliveries = item.getByTestId('webhook-deliveries');
    const rows = deliveries.locator('tbody tr');
    await expect.poll(() => rows.first().getAttribute('data-state'), { timeout: 15_000 }).toBe('succeeded');
    expect(await rows.first().innerText()).toMatch(/webhook\.test\s+delivered\s+1\s+HTTP 200/);

    // The receiver fails: tried again, then given up, with its answer; sent again once it is back, with the same webhook-id.
    receiver.answer = () => ({ status: 500 });
    await item.getByRole('button', { name: 'Send test event' }).click();
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    const failed = deliveries.locator(`tr[data-delivery-id="${await rows.first().getAttribute('data-delivery-id')}"]`);
    await expect.poll(() => failed.getAttribute('data-state'), { timeout: 30_000 }).toBe('failed');
    expect(await failed.locator('[data-col="last"]').innerText()).toBe('HTTP 500');
    expect(await failed.innerText()).toMatch(/webhook\.test\s+failed\s+2\s+HTTP 500/);
    await shot('settings-webhooks');
    receiver.answer = () => ({ status: 200 });
    await failed.getByRole('button', { name: 'Redeliver' }).click();
    await item.getByRole('status').filter({ hasText: 'goes out again within seconds, with the same webhook-id' }).waitFor();
    await expect.poll(() => failed.getAttribute('data-state'), { timeout: 15_000 }).toBe('succeeded');
    const again = receiver.received.slice(1).map((d) => d.id);
    expect(again).toHaveLength(3);
    expect(new Set(again).size).toBe(1);
    expect(again[0]).not.toBe(test!.id);

    await item.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => item.getByTestId('webhook-state').innerText()).toBe('Disabled: disabled by you');
    await item.getByRole('button', { name: 'Delete', exact: true }).click();
    await item.getByRole('button', { name: 'Delete for good' }).click();
    await expect.poll(() => item.count()).toBe(0);
    expect(await apiJson('/settings/webhooks?workspaceId=ourco.com')).toEqual({ webhooks: [] });
    // The only errors: the browser's own line for the refused address.
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
  }, 90_000);

  it('shows sources and jobs: the connected mailbox, a bad backfill range refused, a backfill followed to its end, another cancelled', async () => {
    problems = [];
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sources and jobs' }).click();
    await page.getByRole('heading', { name: 'Gmail' }).waitFor();
    await expect.poll(() => page.locator('.integration .badge').count()).toBeGreaterThanOrEqual(3);
    await page.locator('.stat-label', { hasText: 'E-mails' }).waitFor();
    const mailbox = page.getByRole('list', { name: 'Connected mailboxes' }).getByRole('listitem');
    await expect.poll(() => mailbox.first().innerText()).toMatch(/rep@ourco\.com\s+connected/);

    const form = page.getByRole('form', { name: 'Start a backfill' });
    const day = (daysBack: number) => new Date(Date.now() - daysBack * 86_400_000).toISOString().slice(0, 10);
    // A range longer than a backfill reads: refused in words, nothing started.
    await form.getByLabel('First day').fill(day(400));
    await form.getByRole('button', { name: 'Start backfill' }).click();
    expect(await form.getByRole('alert').innerText()).toMatch(/A backfill reads at most 365 days; this range is 40\d days/);
    // The last 30 days of Gmail.
    await form.getByLabel('First day').fill(day(30));
    await form.getByRole('button', { name: 'Start backfill' }).click();
    expect(await form.getByRole('status').innerText()).toMatch(/^Backfill of Gmail queued: /);
    expect(await form.getByRole('alert').count()).toBe(0);

    // Its job appears and its bar moves as the messages are read, between the stored batches: within 5 s of the
    // start, at least three times before the end, never back; the line under it says read, stored, of how many.
    const job = page.getByTestId('current-job');
    const status = () => job.getByTestId('job-status').innerText();
    const progress = async () => Number(await job.getByLabel('Job progress').getAttribute('value'));
    await expect.poll(status, { timeout: 30_000 }).toMatch(/^(queued|running)$/);
    const started = Date.now();
    const moves: Array<{ at: number; value: number; text: string }> = [];
    for (let s = await status(); s !== 'completed'; s = await status()) {
      expect(Date.now() - started, `the backfill still ${s} after a minute`).toBeLessThan(60_000);
      const value = await job.getByLabel('Job progress').getAttribute('value');
      if (value !== null && Number(value) > 0 && Number(value) < 100 && Number(value) !== moves.at(-1)?.value) {
        moves.push({ at: Date.now() - started, value: Number(value), text: await job.innerText() });
        if (moves.length === 2) await shot('sources');
      }
      await page.waitForTimeout(150);
    }
    console.info(
      `[dashboard] the bar moved ${moves.length} times: ${JSON.stringify(moves.map((m) => [m.at, m.value]))}; last line: ${moves.at(-1)?.text.split('\n')[2] ?? ''}`,
    );
    expect(moves.length).toBeGreaterThanOrEqual(3);
    expect(moves[0]!.at).toBeLessThanOrEqual(5000);
    expect(moves.map((m) => m.value)).toEqual(moves.map((m) => m.value).sort((a, b) => a - b));
    expect(
      moves.some((m) => /\d+ read · \d+ stored · of about 300 · [\d.]+ per (second|minute)/.test(m.text)),
      moves.at(-1)?.text,
    ).toBe(true);
    expect(await progress()).toBe(100);
    expect(await job.innerText()).toContain('google: completed, 300 of 300 items');
    await expect.poll(() => page.getByTestId('history').innerText(), { timeout: 15_000 }).toMatch(/google\s+completed\s+\S+\s+300\s+300/);

    // Another backfill, cancelled while it runs, after a confirmation.
    await form.getByLabel('First day').fill(day(60));
    await form.getByRole('button', { name: 'Start backfill' }).click();
    await expect.poll(status, { timeout: 30_000 }).toMatch(/^(queued|running)$/);
    await job.getByRole('button', { name: 'Cancel job' }).click();
    await job.getByRole('button', { name: 'Yes, cancel the job' }).click();
    await expect.poll(status, { timeout: 15_000 }).toBe('cancelled');
    expect(await job.getByRole('status').innerText()).toMatch(/^Job \S+ cancelled\.$/);
    expect(await job.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
    await expect.poll(() => page.getByTestId('history').innerText(), { timeout: 15_000 }).toContain('cancelled');
    expect(problems).toEqual([]);
  }, 120_000);

  it('sends a 401 back to sign-in with a clear message, and signs in through the form', async () => {
    problems = [];
    const good = JSON.parse((await page.evaluate(() => sessionStorage.getItem('chs.session')))!) as { workspace: string; key: string };
    await page.evaluate(() => sessionStorage.setItem('chs.session', JSON.stringify({ workspace: 'ourco.com', key: 'sk-revoked-or-wrong' })));
    await page.goto(`${origin}/clients`);
    await page.getByRole('heading', { name: 'Customer Health' }).waitFor();
    expect(await page.getByRole('alert').first().innerText()).toMatch(/Signed out: Invalid API key.*Sign in again/);
    expect(await page.evaluate(() => sessionStorage.getItem('chs.session'))).toBeNull();
    await shot('sign-in');
    // The only errors: the browser's own line for the refused request.
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);

    problems = [];
    await page.getByLabel('Workspace domain').fill(good.workspace);
    await page.getByLabel('API key').fill(good.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('[data-testid="clients-table"]').waitFor();
    expect(problems).toEqual([]);
  });

  it('is readable on a phone', async () => {
    problems = [];
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${origin}/`);
    await page.locator('[data-testid="at-risk"] tbody tr').first().waitFor();
    // Nothing wider than the screen but the tables' own scrolling regions.
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await shot('portfolio-phone');
    // The other screens too: a client (its chart and moves), the sources with their backfill form.
    await page.locator('[data-testid="at-risk"] tbody tr a').first().click();
    await page.locator('[data-testid="score-moves"] tbody tr').first().waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sources and jobs' }).click();
    await page.getByRole('form', { name: 'Start a backfill' }).waitFor();
    await page.getByTestId('current-job').waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
  });
});
