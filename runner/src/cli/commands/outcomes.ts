/**
 * `chs outcomes import --workspace <domain> --file <csv> [--json]`: how clients' renewals ended
 * (renewed, churned, downgraded), for the backtest to compare the score's history with (issue 27,
 * DESIGN.md's CLI). All or nothing: with a bad row, every bad row is reported by line and nothing
 * is imported.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ChsError, importOutcomesCsv, OUTCOME_CSV_COLUMNS, requireWorkspace } from '@chs/core';
import { printJson, withEngine, type CliContext } from '../context.js';
import type { RegisterCommand } from './index.js';

interface ImportFlags {
  workspace: string;
  file: string;
  json?: boolean;
}

async function runImport(ctx: CliContext, cmd: Command, flags: ImportFlags): Promise<void> {
  let text: string;
  try {
    text = await readFile(flags.file, 'utf8');
  } catch (err) {
    throw new ChsError('SOURCE_UNREADABLE', `cannot read ${flags.file}: ${(err as Error).message}`, { cause: err });
  }
  await withEngine(ctx, cmd, async (engine) => {
    const ws = await requireWorkspace(engine.store.db, flags.workspace.toLowerCase());
    const r = await importOutcomesCsv(engine.store.db, ws.id, text, engine.clock());
    if (flags.json) printJson(ctx, r);
    else if (r.errors.length === 0) ctx.stdout.write(`${r.rows} rows: ${r.created} outcomes recorded, ${r.updated} replaced.\n`);
    else {
      ctx.stdout.write(`${r.rows} rows: ${r.errors.length} rejected, so nothing was imported. Fix them and run it again.\n`);
      for (const e of r.errors) ctx.stderr.write(`${flags.file}:${e.line}: ${e.message}\n`);
    }
    if (r.errors.length > 0) process.exitCode = 2;
  });
}

export const register: RegisterCommand = (program, ctx) => {
  const outcomes = program
    .command('outcomes')
    .description('how clients’ renewals ended (renewed, churned, downgraded): what the backtest checks the score against');
  outcomes
    .command('import')
    .description(
      `import outcomes from a CSV with a header row: ${OUTCOME_CSV_COLUMNS.join(',')} (domain or clientId; outcome renewed, churned or downgraded; a downgrade gives mrrBefore and mrrAfter). A client's outcome of the same day is replaced. With a bad row nothing is imported.`,
    )
    .requiredOption('--workspace <domain>', 'workspace domain')
    .requiredOption('--file <csv>', 'the CSV file')
    .option('--json', 'print {rows, created, updated, errors[{line, message}]} as JSON')
    .action(async (flags: ImportFlags, cmd: Command) => runImport(ctx, cmd, flags));
};
