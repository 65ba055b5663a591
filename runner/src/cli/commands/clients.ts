import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import {
  acceptAndScoreSuggestion,
  ChsError,
  ignoreSuggestedClient,
  importClientsCsv,
  listSuggestedClients,
  readClientDetails,
  requireWorkspace,
  SUGGESTION_STATUSES,
  type SuggestionStatus,
} from '@chs/core';
import { printJson, withEngine, type CliContext } from '../context.js';
import { writeTable } from '../table.js';
import type { RegisterCommand } from './index.js';

interface ImportFlags {
  workspace: string;
  csv: string;
  json?: boolean;
}

async function runImport(ctx: CliContext, cmd: Command, flags: ImportFlags): Promise<void> {
  let text: string;
  try {
    text = await readFile(flags.csv, 'utf8');
  } catch (err) {
    throw new ChsError('SOURCE_UNREADABLE', `cannot read ${flags.csv}: ${(err as Error).message}`, { cause: err });
  }
  const engine = await ctx.openEngine(ctx.config(cmd.optsWithGlobals()));
  try {
    const r = await importClientsCsv(engine.store.db, flags.workspace.toLowerCase(), text);
    if (flags.json) printJson(ctx, r);
    else {
      ctx.stdout.write(`${r.rows} rows: ${r.created} clients created, ${r.updated} updated, ${r.errors.length} rejected.\n`);
      for (const e of r.errors) ctx.stderr.write(`${flags.csv}:${e.line}: ${e.message}\n`);
    }
    // Bad rows do not stop the good ones, but the run must not look clean to a script.
    if (r.errors.length > 0) process.exitCode = 2;
  } finally {
    await engine.close();
  }
}

interface SuggestedFlags {
  workspace: string;
  status?: string;
  limit?: string;
  json?: boolean;
}

async function runSuggested(ctx: CliContext, cmd: Command, flags: SuggestedFlags): Promise<void> {
  const status = (flags.status ?? 'suggested') as SuggestionStatus;
  if (!SUGGESTION_STATUSES.includes(status)) throw new ChsError('INVALID_INPUT', '--status must be suggested or ignored');
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new ChsError('INVALID_INPUT', '--limit must be an integer from 1 to 200');
  await withEngine(ctx, cmd, async (engine) => {
    const ws = await requireWorkspace(engine.store.db, flags.workspace.toLowerCase());
    const r = await listSuggestedClients(engine.store.db, ws.id, { status, limit });
    if (flags.json) {
      printJson(ctx, r);
      return;
    }
    if (r.total === 0) {
      ctx.stdout.write(status === 'ignored' ? `No ignored clients in ${ws.id}.\n` : `No suggested clients in ${ws.id}.\n`);
      return;
    }
    const day = (at: string | null): string => (at === null ? '-' : at.slice(0, 10));
    writeTable(ctx, [
      ['DOMAIN', 'MESSAGES', 'PEOPLE', 'FIRST', 'LAST', 'WHY'],
      ...r.suggestions.map((s) => [s.domain, String(s.messages), String(s.people), day(s.firstAt), day(s.lastAt), s.reasonText]),
    ]);
    if (r.total > r.suggestions.length) ctx.stdout.write(`(${r.suggestions.length} of ${r.total}; raise --limit to see more)\n`);
  });
}

async function runDecision(
  ctx: CliContext,
  cmd: Command,
  decision: 'accept' | 'ignore',
  domain: string,
  flags: { workspace: string; json?: boolean },
): Promise<void> {
  await withEngine(ctx, cmd, async (engine) => {
    const db = engine.store.db;
    const ws = await requireWorkspace(db, flags.workspace.toLowerCase());
    const now = engine.clock();
    if (decision === 'ignore') {
      const ignored = await ignoreSuggestedClient(db, ws.id, domain, now);
      if (flags.json) printJson(ctx, { suggestion: { ...ignored, status: 'ignored' } });
      else ctx.stdout.write(`Ignored ${ignored.domain}: it stays out of the clients and their metrics (chs clients accept ${ignored.domain} undoes it).\n`);
      return;
    }
    // A new client, scored over its whole stored history.
    const clientId = await acceptAndScoreSuggestion(db, ws.id, domain, now);
    const { client } = (await readClientDetails(db, ws.id, clientId, now)).details;
    if (flags.json) printJson(ctx, { client });
    else ctx.stdout.write(`Accepted ${client.domain}: client ${client.name} (${client.id}), health score ${client.sentimentScore}.\n`);
  });
}

export const register: RegisterCommand = (program, ctx) => {
  const clients = program.command('clients').description('client attributes mail cannot give (mrr, renewal date, CSM owner, exclusion), and suggested clients');
  clients
    .command('import')
    .description(
      'import client attributes from a CSV with a header row: domain,name,mrr,renewalDate,csmOwner,isExcluded (empty cells leave a value unchanged; unknown domains create clients)',
    )
    .requiredOption('--workspace <domain>', 'workspace domain')
    .requiredOption('--csv <file>', 'the CSV file')
    .option('--json', 'print {rows, created, updated, errors[{line, message}]} as JSON')
    .action(async (flags: ImportFlags, cmd: Command) => runImport(ctx, cmd, flags));

  clients
    .command('suggested')
    .description('domains our mail names that are not scored clients (co-recipients, copies only, role or mass senders, or the CRM-only policy), with why')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--status <status>', 'suggested (default) or ignored')
    .option('--limit <n>', 'at most this many, 1-200 (default 50), those whose people wrote the most first')
    .option('--json', 'print {suggestions[], total} as JSON')
    .action(async (flags: SuggestedFlags, cmd: Command) => runSuggested(ctx, cmd, flags));

  clients
    .command('accept <domain>')
    .description('make a suggested (or ignored) domain a client: it is scored over its whole stored mail at once')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {client} as JSON')
    .action(async (domain: string, flags: { workspace: string; json?: boolean }, cmd: Command) => runDecision(ctx, cmd, 'accept', domain, flags));

  clients
    .command('ignore <domain>')
    .description('set a suggested domain aside: its mail stays stored, later mail never makes it a client')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {suggestion: {clientId, domain, status}} as JSON')
    .action(async (domain: string, flags: { workspace: string; json?: boolean }, cmd: Command) => runDecision(ctx, cmd, 'ignore', domain, flags));
};
