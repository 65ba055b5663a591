/**
 * The health history's storage per client-day (issue 30), on the demo and on the bench's 20,000-
 * message client mailbox, each put into a fresh SQLite file and a fresh PostgreSQL database by
 * the product's own commands: `chs demo --no-serve` (the demo mailbox, its account list, the
 * data's clock at the demo's last day) and `chs init` + `chs ingest --mbox` with `CHS_NOW` at the
 * mailbox's last day. Sizes by the database's own accounting (storage.ts).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDemoMailbox } from '@chs/fixtures';
import { DEFAULT_BENCH_PG_URL, freshDatabase, benchDialects, runCommand, wholeCommand } from '../command.js';
import { ensureMailbox, MAILBOX_END_DATE } from '../mailbox.js';
import { round } from '../measure.js';
import { CHS_BIN, TMP_DIR } from '../paths.js';
import { metric, target, type BenchResult } from '../results.js';
import { CLIENT_DAY_TABLE, HISTORY_TABLES, measureStorage, storageMetrics, type StorageReport } from '../storage.js';
import { startResult, type Log } from './common.js';

export interface StorageScenarioOptions {
  /** Messages of the client mailbox (today's shape). Default 20,000. */
  messages?: number;
  /** PostgreSQL admin URL, or `none`. Default CHS_TEST_PG_URL or loopback. */
  pgUrl?: string;
  dir?: string;
  log?: Log;
}

/** Issue 30: history tables and indexes together. */
const BYTES_PER_CLIENT_DAY_TARGET = 250;

export async function storageScenario(o: StorageScenarioOptions = {}): Promise<BenchResult> {
  const log = o.log ?? (() => undefined);
  const dir = o.dir ?? TMP_DIR;
  const pgUrl = o.pgUrl ?? DEFAULT_BENCH_PG_URL;
  mkdirSync(dir, { recursive: true });
  const box = await ensureMailbox(o.messages ?? 20_000, dir, log, 'client');
  const demoMbox = join(dir, 'demo.mbox');
  if (await ensureDemoMailbox(demoMbox)) log(`generated the demo mailbox at ${demoMbox}`);
  const mailboxKey = `mbox${box.messages >= 1000 && box.messages % 1000 === 0 ? `${box.messages / 1000}k` : box.messages}`;
  const r = startResult('storage', {
    historyTables: HISTORY_TABLES,
    clientDayTable: CLIENT_DAY_TABLE,
    mailbox: box.path,
    messages: box.messages,
    now: MAILBOX_END_DATE,
  });
  const { metrics: m, details } = r;

  const dialects = await benchDialects(pgUrl, details);
  for (const dialect of dialects) {
    log(`[${dialect}] chs demo --no-serve …`);
    const demo = await demoDatabase(dialect, dir, pgUrl, demoMbox);
    storageMetrics(m, `storage.demo.${dialect}`, demo.size);
    m[`storage.demo.${dialect}.commandSec`] = metric(round(demo.wallMs / 1000, 1), 's', 'time', 'chs demo --no-serve, spawn to exit');
    details[`demo.${dialect}`] = demo.size;

    log(`[${dialect}] chs ingest of ${box.messages.toLocaleString('en-US')} messages (${box.path}) …`);
    let size: StorageReport | undefined;
    const run = await wholeCommand(dialect, box.path, box.workspace, dir, pgUrl, {
      env: { CHS_NOW: MAILBOX_END_DATE },
      inspect: async (url) => {
        size = await measureStorage(url);
      },
    });
    storageMetrics(m, `storage.${mailboxKey}.${dialect}`, size!);
    m[`storage.${mailboxKey}.${dialect}.commandSec`] = metric(round(run.wallMs / 1000, 1), 's', 'time', 'chs ingest --mbox, spawn to exit');
    if (run.summary.health)
      m[`storage.${mailboxKey}.${dialect}.snapshotsWritten`] = metric(run.summary.health.snapshotsWritten, 'rows', 'count', 'as the --json summary reports');
    details[`${mailboxKey}.${dialect}`] = size;

    for (const dataset of ['demo', mailboxKey])
      r.targets.push(
        target(
          `${dialect}: history ≤ ${BYTES_PER_CLIENT_DAY_TARGET} B per client-day (tables and indexes), ${dataset}`,
          m,
          `storage.${dataset}.${dialect}.history.bytesPerClientDay`,
          '<=',
          BYTES_PER_CLIENT_DAY_TARGET,
        ),
      );
  }
  return r.finish();
}

/** `chs demo --no-serve` into a fresh database (the demo mailbox copied into its data folder); its sizes. */
async function demoDatabase(dialect: 'sqlite' | 'postgres', dir: string, pgUrl: string, mbox: string): Promise<{ wallMs: number; size: StorageReport }> {
  const db = await freshDatabase(dialect, dir, pgUrl);
  const dataDir = mkdtempSync(join(dir, 'demo-data-'));
  try {
    copyFileSync(mbox, join(dataDir, 'demo.mbox'));
    // stdout carries the demo's API key: it is read by nobody and never written down.
    const run = await runCommand([CHS_BIN, 'demo', '--no-serve'], { ...process.env, CHS_DATABASE_URL: db.url, CHS_DATA_DIR: dataDir, CHS_LOG_LEVEL: 'warn' });
    return { wallMs: run.wallMs, size: await measureStorage(db.url) };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await db.drop();
  }
}
