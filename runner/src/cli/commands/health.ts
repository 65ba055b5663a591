/**
 * `chs health backtest --workspace <domain> [--days 60] [--json]` (issue 27, DESIGN.md's CLI): how
 * well the stored score history foresaw the renewal outcomes recorded (`chs outcomes import`):
 * the figures `GET /metrics/backtest` returns, the summary in words and a line per horizon.
 *
 * `chs health learn` fits weights on those outcomes and offers them when they beat the hand-written
 * ones on the later renewals; `chs health model list|apply|revert` shows them, applies one (the
 * scores from today are rebuilt with it) and goes back one step.
 */
import type { Command } from 'commander';
import {
  ChsError,
  DEFAULT_BACKTEST_DAYS,
  HEALTH_COMPONENTS,
  applyHealthModel,
  learnHealthModel,
  listHealthModels,
  requireWorkspace,
  revertHealthModel,
  runBacktest,
  type Engine,
  type HealthModelView,
} from '@chs/core';
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
  const days = parseDays(flags.days);
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

interface WorkspaceFlags {
  workspace: string;
  json?: boolean;
}

const parseDays = (days: string | undefined): number => {
  const n = days === undefined ? DEFAULT_BACKTEST_DAYS : Number(days);
  if (!Number.isInteger(n) || n < 1 || n > 365) throw new ChsError('INVALID_INPUT', '--days must be an integer from 1 to 365');
  return n;
};

const weightsText = (m: HealthModelView): string => HEALTH_COMPONENTS.map((c) => `${c} ${Math.round(m.weights[c] * 100)} %`).join(', ');

async function runLearnCommand(ctx: CliContext, cmd: Command, flags: BacktestFlags): Promise<void> {
  const days = parseDays(flags.days);
  await withEngine(ctx, cmd, async (engine) => {
    const ws = await requireWorkspace(engine.store.db, flags.workspace.toLowerCase());
    const r = await learnHealthModel(engine.store.db, ws.id, { days, now: engine.clock() });
    if (flags.json) printJson(ctx, r);
    else ctx.stdout.write(`${r.summary}\n`);
  });
}

async function runModelListCommand(ctx: CliContext, cmd: Command, flags: WorkspaceFlags): Promise<void> {
  await withEngine(ctx, cmd, async (engine) => {
    const ws = await requireWorkspace(engine.store.db, flags.workspace.toLowerCase());
    const models = await listHealthModels(engine.store.db, ws.id);
    if (flags.json) {
      printJson(ctx, { active: models.find((m) => m.status === 'active')?.version ?? null, models });
      return;
    }
    const active = models.find((m) => m.status === 'active');
    ctx.stdout.write(active ? `In use: learned model ${active.version} (${weightsText(active)}).\n` : 'In use: the hand-written weights.\n');
    if (models.length === 0) {
      ctx.stdout.write('No model learned yet: chs health learn fits one on the renewal outcomes recorded.\n');
      return;
    }
    ctx.stdout.write('\n');
    writeTable(ctx, [
      ['VERSION', 'STATUS', 'LEARNED', 'RENEWALS', 'CHURNED', 'AUC LEARNED', 'AUC HAND-WRITTEN', 'WEIGHTS'],
      ...models.map((m) => [
        String(m.version),
        m.status,
        m.createdAt.slice(0, 10),
        String(m.outcomes),
        String(m.churned),
        figure(m.heldOut.aucLearned, 3),
        figure(m.heldOut.aucDefault, 3),
        weightsText(m),
      ]),
    ]);
  });
}

/** The scores from today, rebuilt with the model now in use (apply and revert mark them due). */
async function rescore(engine: Engine, workspaceId: string): Promise<number> {
  const r = await engine.rebuildHealth(workspaceId, new Map());
  return r.clientsScored;
}

async function runModelApplyCommand(ctx: CliContext, cmd: Command, flags: WorkspaceFlags & { model: string }): Promise<void> {
  const version = Number(flags.model);
  if (!Number.isInteger(version) || version < 1) throw new ChsError('INVALID_INPUT', '--model must be a model number (chs health model list)');
  await withEngine(ctx, cmd, async (engine) => {
    const ws = await requireWorkspace(engine.store.db, flags.workspace.toLowerCase());
    const model = await applyHealthModel(engine.store.db, ws.id, version, engine.clock());
    const clientsRescored = await rescore(engine, ws.id);
    if (flags.json) printJson(ctx, { model, clientsRescored });
    else
      ctx.stdout.write(
        `Model ${model.version} is in use (${weightsText(model)}): ${clientsRescored} client(s) rescored from today; earlier days keep the model that scored them. chs health model revert goes back.\n`,
      );
  });
}

async function runModelRevertCommand(ctx: CliContext, cmd: Command, flags: WorkspaceFlags): Promise<void> {
  await withEngine(ctx, cmd, async (engine) => {
    const ws = await requireWorkspace(engine.store.db, flags.workspace.toLowerCase());
    const model = await revertHealthModel(engine.store.db, ws.id, engine.clock());
    const clientsRescored = await rescore(engine, ws.id);
    if (flags.json) printJson(ctx, { model, clientsRescored });
    else
      ctx.stdout.write(
        `${model ? `Model ${model.version} is in use again (${weightsText(model)})` : 'The hand-written weights are in use again'}: ${clientsRescored} client(s) rescored from today.\n`,
      );
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
  health
    .command('learn')
    .description(
      'fit component weights on the renewal outcomes recorded (a ridge logistic regression on what the score knew --days before each, tested on later renewals than it learned from); offered only when it beats the hand-written weights there, never applied by itself',
    )
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--days <n>', `days before each outcome the score is read, 1-365 (default ${DEFAULT_BACKTEST_DAYS})`)
    .option('--json', 'print {model: {version, status, weights, coefficients, heldOut, calibration, …}, summary} as JSON')
    .action(async (flags: BacktestFlags, cmd: Command) => runLearnCommand(ctx, cmd, flags));
  const model = health.command('model').description('the learned health models: list, apply one, revert');
  model
    .command('list')
    .description('the models learned, newest first, with their figures, and the one in use')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {active, models[]} as JSON')
    .action(async (flags: WorkspaceFlags, cmd: Command) => runModelListCommand(ctx, cmd, flags));
  model
    .command('apply')
    .description('score with an offered model from today (the scores from today are rebuilt; earlier days keep the model that scored them)')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .requiredOption('--model <n>', 'the model number (chs health model list)')
    .option('--json', 'print {model, clientsRescored} as JSON')
    .action(async (flags: WorkspaceFlags & { model: string }, cmd: Command) => runModelApplyCommand(ctx, cmd, flags));
  model
    .command('revert')
    .description('go back one step: the model in use before the last apply (or the hand-written weights) scores again from today')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {model, clientsRescored} as JSON (model null: the hand-written weights)')
    .action(async (flags: WorkspaceFlags, cmd: Command) => runModelRevertCommand(ctx, cmd, flags));
};
