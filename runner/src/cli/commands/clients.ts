import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ChsError, importClientsCsv } from '@chs/core';
import { printJson, type CliContext } from '../context.js';
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

export const register: RegisterCommand = (program, ctx) => {
  const clients = program.command('clients').description('client attributes mail cannot give (mrr, renewal date, CSM owner, exclusion)');
  clients
    .command('import')
    .description(
      'import client attributes from a CSV with a header row: domain,name,mrr,renewalDate,csmOwner,isExcluded (empty cells leave a value unchanged; unknown domains create clients)',
    )
    .requiredOption('--workspace <domain>', 'workspace domain')
    .requiredOption('--csv <file>', 'the CSV file')
    .option('--json', 'print {rows, created, updated, errors[{line, message}]} as JSON')
    .action(async (flags: ImportFlags, cmd: Command) => runImport(ctx, cmd, flags));
};
