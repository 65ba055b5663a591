/**
 * `chs health backtest --workspace <domain> [--days 60] [--json]` (issue 27, DESIGN.md's CLI): how
 * well the stored score history foresaw the renewal outcomes recorded (`chs outcomes import`):
 * the figures `GET /metrics/backtest` returns, the summary in words and a line per horizon.
 */
import type { Command } from 'commander';
import { ChsError, DEFAULT_BACKTEST_DAYS, requireWorkspace, runBacktest } from '@chs/core';
import { printJson, withEngine, type CliContext } from '../context.js';
import { writeTable } from '../table.js';
import type { RegisterCommand } from './index.js';

interface BacktestFlags {
  workspace: string;
  days?: string;
  json?: boolean;
}

const figure = (x: number | null, digits = 2): string => (x === null ? '-' : x.toFixed(digits));
const percent = (x: number | null): string => (x === null ? '-' : `${Math.round(x * 100)} %`);

async function runBacktestCommand(ctx: CliContext, cmd: Command, flags: BacktestFlags): Promise<void> {
  const days = flags.days === undefined ? DEFAULT_BACKTEST_DAYS : Number(flags.days);
  if (!Number.isInteger(days) || days < 1 || days > 365) throw new ChsError('INVALID_INPUT', '--days must be an integer from 1 to 365');
  await withEngine(ctx, cmd, async (engine) => {
    const ws = await requireWorkspace(engine.store.db, flags.workspace.toLowerCase());
    const r = await runBacktest(engine.store.db, ws.id, { days });
    if (flags.json) {
      printJson(ctx, r);
      return;
    }
    ctx.stdout.write(`${r.summary}\n`);
    if (r.outcomes + r.withoutHistory === 0) return;
    ctx.stdout.write(`\nAt risk: a score under ${r.threshold}. Median warning before a churn: ${r.leadTimeDaysMedian ?? '-'} days.\n\n`);
    writeTable(ctx, [
      ['DAYS BEFORE', 'OUTCOMES', 'CHURNED', 'AUC', 'PRECISION', 'RECALL', 'TOP-10% LIFT', 'BRIER', 'NO SCORE THEN'],
      ...r.horizons.map((h) => [
        String(h.days),
        String(h.outcomes),
        String(h.churned),
        figure(h.auc),
        percent(h.precision),
        percent(h.recall),
        h.liftTopDecile === null ? '-' : `${h.liftTopDecile.toFixed(1)}×`,
        figure(h.brier, 3),
        String(h.withoutHistory),
      ]),
    ]);
  });
}

export const register: RegisterCommand = (program, ctx) => {
  const health = program.command('health').description('the health score’s own record');
  health
    .command('backtest')
    .description(
      'how well the score foresaw the renewal outcomes recorded (chs outcomes import): for each, the score the client had --days before it, from the stored history only; AUC, precision and recall at the risk threshold, lift of the riskiest tenth, calibration, and how long churned clients had been red',
    )
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--days <n>', `days before each outcome its score is read, 1-365 (default ${DEFAULT_BACKTEST_DAYS}); 30, 60 and 90 are always shown too`)
    .option('--json', 'print {days, outcomes, churned, auc, precision, recall, leadTimeDaysMedian, …, horizons[]} as JSON')
    .action(async (flags: BacktestFlags, cmd: Command) => runBacktestCommand(ctx, cmd, flags));
};
