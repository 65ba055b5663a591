/**
 * `chs demo` (the README's `npm run demo`): builds the demo mailbox if absent, creates the demo
 * workspace and a key if absent, ingests the mailbox (idempotent: a second run adds nothing),
 * prints curl commands, then serves the API and the dashboard like `chs serve`, with a ready
 * dashboard link that signs in from its URL fragment (the one line that shows the key).
 *
 * The demo mailbox covers the year before DEMO_END_DATE, so the data's "now" is that date
 * unless CHS_NOW says otherwise: windows, trends and renewals then look as they would on it.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { createHash } from 'node:crypto';
import {
  DAY_MS,
  createApiKey,
  createWorkspace,
  getWorkspace,
  importClientsCsv,
  listClients,
  mboxSource,
  updateClientAttributes,
  verifyApiKey,
  type Engine,
} from '@chs/core';
import { DEMO_ACCOUNTS_CSV, DEMO_END_DATE, DEMO_WORKSPACE, DEMO_WORKSPACE_NAME, ensureDemoMailbox } from '@chs/fixtures';
import type { CliContext } from '../context.js';
import { createProgressView } from '../progress.js';
import type { RegisterCommand } from './index.js';
import { serve } from './serve.js';

interface DemoFlags {
  port: string;
  host: string;
  serve: boolean;
}

async function run(ctx: CliContext, cmd: Command, flags: DemoFlags): Promise<void> {
  // When it goes on to serve, stdout is the JSON log stream: the demo's own lines go to stderr.
  const say = (text: string): boolean => (flags.serve ? ctx.stderr : ctx.stdout).write(text);
  const global = cmd.optsWithGlobals<{ db?: string }>();
  ctx.env.CHS_NOW ??= DEMO_END_DATE;
  const config = ctx.config(global);
  const mailbox = join(config.dataDir, 'demo.mbox');
  const keyFile = join(config.dataDir, 'demo-key.txt');

  if (await ensureDemoMailbox(mailbox)) ctx.stderr.write(`chs demo: generated the demo mailbox at ${mailbox}\n`);
  const engine = await ctx.openEngine(config);
  let key: string | undefined;
  try {
    const db = engine.store.db;
    if (!(await getWorkspace(db, DEMO_WORKSPACE))) {
      const created = await createWorkspace(db, {
        domain: DEMO_WORKSPACE,
        name: DEMO_WORKSPACE_NAME,
        ownerEmail: `lead@${DEMO_WORKSPACE}`,
        ownerName: 'Demo Lead',
      });
      key = created.apiKey.key;
    } else if (existsSync(keyFile)) {
      const saved = readFileSync(keyFile, 'utf8').trim();
      if (await verifyApiKey(db, saved)) key = saved;
    }
    key ??= (await createApiKey(db, { workspaceId: DEMO_WORKSPACE, name: 'demo' })).key;
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
    chmodSync(keyFile, 0o600);

    const view = createProgressView(ctx.stderr, true, 'demo ingest');
    const s = await engine.ingest({ workspaceId: DEMO_WORKSPACE, source: mboxSource(mailbox), onProgress: (p) => view.update(p) });
    view.stop();
    // The team's account list for its story clients, as `chs clients import` would bring it.
    await importClientsCsv(engine.store.db, DEMO_WORKSPACE, DEMO_ACCOUNTS_CSV);
    await giveDemoClientsRevenue(engine, DEMO_END_DATE);
    say(
      `Ingested ${s.itemsProcessed} messages in ${(s.durationMs / 1000).toFixed(1)} s: ${s.itemsAdded} added, ${s.itemsSkipped} skipped, ` +
        `${s.itemsFiltered} filtered, ${s.errorsCount} errors; ${s.clientsCreated} new clients.\n`,
    );
  } finally {
    await engine.close();
  }

  const base = `http://${flags.host.includes(':') ? `[${flags.host}]` : flags.host}:${flags.port}/api`;
  const q = `workspaceId=${DEMO_WORKSPACE}`;
  // The key is printed once: in the dashboard link (when serving) or on its own line; the curl
  // lines read it from its file.
  const fragment = `#workspace=${encodeURIComponent(DEMO_WORKSPACE)}&key=${encodeURIComponent(key)}`;
  say(
    [
      '',
      `Workspace: ${DEMO_WORKSPACE}   data "now": ${config.now}   database: ${config.databaseUrl}`,
      ...(flags.serve ? [`API key: in ${keyFile} (and in the dashboard link below)`] : [`API key (also in ${keyFile}):`, `  ${key}`]),
      '',
      'Try:',
      `  KEY=$(cat ${keyFile})`,
      `  curl -H "Authorization: Bearer $KEY" "${base}/metrics/summary?${q}"`,
      `  curl -H "Authorization: Bearer $KEY" "${base}/clients?${q}"`,
      `  curl -H "Authorization: Bearer $KEY" "${base}/metrics/trends/health?${q}&windowDays=365&interval=monthly"`,
      `  curl -H "Authorization: Bearer $KEY" "${base}/metrics/deltas?${q}&windowDays=30"`,
      `  curl -H "Authorization: Bearer $KEY" "${base}/ingest/email-stats?${q}"`,
      '',
    ].join('\n'),
  );
  // The ready link (the sign-in fragment, DESIGN.md) is printed once the server listens.
  if (flags.serve) await serve(ctx, config, flags, fragment);
}

/**
 * Mail cannot tell revenue or renewal dates (a CRM or `chs clients import` does): the demo gives
 * each client without them a deterministic MRR (500–10,250) and a renewal date within 180 days
 * of the demo's end, derived from its domain, so the revenue metrics have something to show.
 */
async function giveDemoClientsRevenue(engine: Engine, endDate: string): Promise<void> {
  const db = engine.store.db;
  for (const c of await listClients(db, DEMO_WORKSPACE)) {
    if (c.mrr !== null) continue;
    const h = createHash('sha256').update(c.domain).digest();
    const mrr = 500 + (h.readUInt16BE(0) % 40) * 250;
    const renewal = new Date(Date.parse(endDate) + ((h.readUInt16BE(2) % 180) + 1) * DAY_MS).toISOString().slice(0, 10);
    await updateClientAttributes(db, DEMO_WORKSPACE, c.id, { mrr, renewalDate: renewal, csmOwner: `csm${(h[4]! % 3) + 1}@${DEMO_WORKSPACE}` });
  }
}

export const register: RegisterCommand = (program, ctx) => {
  program
    .command('demo')
    .description('build and ingest the demo mailbox, then serve the API and the dashboard (npm run demo)')
    .option('--port <port>', 'port to listen on', '8080')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--no-serve', 'ingest and print the key, but do not start the server')
    .action(async (flags: DemoFlags, cmd: Command) => run(ctx, cmd, flags));
};
