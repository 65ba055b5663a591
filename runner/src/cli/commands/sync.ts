/**
 * `chs sync --workspace D [--provider P] [--full] [--json]`: a provider sync in the foreground,
 * for cron users and debugging. It goes through the jobs table (queued, claimed by this process,
 * run here), so it never runs beside another active job of the same source: that is refused with
 * JOB_CONFLICT naming the job. Providers default to every connected one, one after the other.
 */
import type { Command } from 'commander';
import { ChsError, PROVIDERS, enqueueRun, isProvider, requireWorkspace, transitionJob, type Job, type Provider } from '@chs/core';
import { DEFAULT_JOBS_CONFIG } from '../../config.js';
import { runJobInForeground } from '../../jobs/foreground.js';
import { connectedProviders, requireConnected } from '../../jobs/start.js';
import { printJson, type CliContext } from '../context.js';
import { createProgressView } from '../progress.js';
import type { RegisterCommand } from './index.js';

interface SyncFlags {
  workspace: string;
  provider?: string;
  full?: boolean;
  json?: boolean;
}

interface ProviderSyncResult {
  jobId: string;
  status: Job['state'];
  itemsProcessed: number;
  itemsAdded: number;
  itemsUpdated: number;
  itemsSkipped: number;
  itemsFiltered: number;
  errorsCount: number;
  errors: Array<{ message: string; count: number; severity: string }>;
  durationMs: number;
  parkedUntil?: string;
}

function resultOf(j: Job): ProviderSyncResult {
  const ms = j.startedAt && j.completedAt ? Date.parse(j.completedAt) - Date.parse(j.startedAt) : 0;
  return {
    jobId: j.id,
    status: j.state,
    itemsProcessed: j.itemsProcessed,
    itemsAdded: j.itemsAdded,
    itemsUpdated: j.itemsUpdated,
    itemsSkipped: j.itemsSkipped,
    itemsFiltered: j.itemsFiltered,
    errorsCount: j.errorsCount,
    errors: j.errors.map((e) => ({ message: e.message, count: e.count, severity: e.severity })),
    durationMs: ms,
    ...(j.parkedUntil ? { parkedUntil: j.parkedUntil } : {}),
  };
}

async function run(ctx: CliContext, cmd: Command, flags: SyncFlags): Promise<void> {
  if (flags.provider !== undefined && !isProvider(flags.provider))
    throw new ChsError('INVALID_INPUT', `unknown provider "${flags.provider}"; one of ${PROVIDERS.join(', ')}`);
  const config = ctx.config(cmd.optsWithGlobals());
  const engine = await ctx.openEngine(config);
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const db = engine.store.db;
    const ws = (await requireWorkspace(db, flags.workspace)).id;
    let providers: Provider[];
    if (flags.provider !== undefined) {
      await requireConnected(db, ws, flags.provider);
      providers = [flags.provider];
    } else {
      providers = await connectedProviders(db, ws);
      if (!providers.length)
        throw new ChsError('INTEGRATION_NOT_CONNECTED', `no integration is connected for ${ws}; connect one first (chs connect google|hubspot|intercom)`);
    }
    const mode = flags.full ? 'full' : 'quick';
    // All sources are queued (one group) before any runs, so a conflict on one refuses the whole run.
    const { runId, jobs } = await enqueueRun(
      db,
      ws,
      providers.map((source) => ({ kind: 'sync' as const, source, params: { mode, foreground: true } })),
    );
    const results: Record<string, ProviderSyncResult> = {};
    for (const queued of jobs) {
      if (controller.signal.aborted) {
        // Interrupted before this source started: give its slot back.
        await transitionJob(db, queued.id, 'queued', 'cancelled', { event: { reason: 'interrupted (foreground)' } }).catch(() => null);
        continue;
      }
      const view = createProgressView(ctx.stderr, !flags.json, `sync ${queued.source}`);
      const t0 = Date.now();
      const done = await runJobInForeground(engine, queued, {
        leaseMs: config.jobs?.leaseMs ?? DEFAULT_JOBS_CONFIG.leaseMs,
        signal: controller.signal,
        onProgress: (j) => {
          const secs = Math.max((Date.now() - t0) / 1000, 0.001);
          const read = Math.max(j.itemsRead, j.itemsProcessed);
          const rate = read / secs;
          const total = j.totalItems ?? undefined;
          view.update({
            processed: j.itemsProcessed,
            read,
            total,
            rate,
            etaSeconds: total !== undefined && rate > 0 ? Math.max(0, total - read) / rate : undefined,
            added: j.itemsAdded,
            errors: j.errorsCount,
          });
        },
      });
      view.stop();
      results[queued.source] = resultOf(done);
    }
    const all = Object.values(results);
    const sum = (k: 'itemsProcessed' | 'itemsAdded' | 'itemsUpdated' | 'itemsSkipped' | 'itemsFiltered' | 'errorsCount') => all.reduce((a, r) => a + r[k], 0);
    const failed = all.filter((r) => r.status !== 'completed');
    if (failed.length) process.exitCode = 1;
    const summary = {
      workspaceId: ws,
      jobId: runId,
      mode,
      status: failed.length === 0 ? 'completed' : all.some((r) => r.status === 'failed') ? 'failed' : failed[0]!.status,
      itemsProcessed: sum('itemsProcessed'),
      itemsAdded: sum('itemsAdded'),
      itemsUpdated: sum('itemsUpdated'),
      itemsSkipped: sum('itemsSkipped'),
      itemsFiltered: sum('itemsFiltered'),
      errorsCount: sum('errorsCount'),
      providers: results,
    };
    if (flags.json) {
      printJson(ctx, summary);
    } else {
      for (const [p, r] of Object.entries(results)) {
        ctx.stdout.write(
          `${p}: ${r.status}${r.parkedUntil ? ` (resumes at ${r.parkedUntil})` : ''} in ${(r.durationMs / 1000).toFixed(1)} s — ${r.itemsProcessed} processed, ${r.itemsAdded} added, ` +
            `${r.itemsUpdated} updated, ${r.itemsSkipped} skipped, ${r.itemsFiltered} filtered, ${r.errorsCount} errors\n`,
        );
        for (const e of r.errors) ctx.stdout.write(`  ${e.severity}: ${e.message}\n`);
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await engine.close();
  }
}

export const register: RegisterCommand = (program, ctx) => {
  program
    .command('sync')
    .description('sync connected providers into a workspace in the foreground (progress bar on a terminal)')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--provider <provider>', `one of ${PROVIDERS.join(', ')} (default: every connected one)`)
    .option('--full', 'a windowed full resync instead of the incremental (quick) sync')
    .option('--json', 'print a JSON summary instead of text and a progress bar')
    .action(async (flags: SyncFlags, cmd: Command) => run(ctx, cmd, flags));
};
