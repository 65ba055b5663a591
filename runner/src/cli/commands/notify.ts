/** `chs notify`: the alerts and digests due now for a workspace; previews them with --dry-run, else sends them. */
import type { Command } from 'commander';
import { ChsError, DIGEST_KINDS, requireWorkspace, type DigestKind } from '@chs/core';
import type { NotifyResult } from '../../notify/notifier.js';
import { printJson, type CliContext } from '../context.js';
import type { RegisterCommand } from './index.js';

interface NotifyFlags {
  workspace: string;
  dryRun?: boolean;
  json?: boolean;
  digest?: string[];
}

function parseDigests(values: string[] | undefined): DigestKind[] {
  return (values ?? []).map((v) => {
    if (!(DIGEST_KINDS as readonly string[]).includes(v)) throw new ChsError('INVALID_INPUT', `--digest must be daily or weekly, got "${v}"`);
    return v as DigestKind;
  });
}

function printHuman(ctx: CliContext, r: NotifyResult, transport: string): void {
  const out = (s: string) => ctx.stdout.write(s);
  const n = r.planned.length;
  out(
    r.dryRun
      ? `Dry run for ${r.workspaceId}: ${n} message${n === 1 ? '' : 's'} would be sent now (transport: ${transport}).\n`
      : `${r.workspaceId}: ${r.sent.length} sent, ${r.failed.length} failed, ${r.claimedElsewhere.length} already claimed (transport: ${transport}).\n`,
  );
  for (const note of r.notes) out(`note: ${note}\n`);
  for (const q of r.quiet) out(`quiet: ${q.dedupeKey} (${q.reason}), ${r.dryRun ? 'would be' : 'was'} recorded as skipped\n`);
  if (r.dryRun) {
    for (const m of r.planned) {
      out(`\n=== ${m.kind} · ${m.dedupeKey}\nFrom: ${m.from}\nTo: ${m.to.join(', ')}\nSubject: ${m.subject}\n\n${m.text}`);
    }
    return;
  }
  for (const s of r.sent) out(`sent: ${s.dedupeKey} to ${s.to.join(', ')}: ${s.subject}\n`);
  for (const f of r.failed) out(`failed: ${f.dedupeKey} (attempt ${f.attempt}${f.willRetry ? ', will retry' : ', given up'}): ${f.error}\n`);
}

async function run(ctx: CliContext, cmd: Command, flags: NotifyFlags): Promise<void> {
  const forceDigests = parseDigests(flags.digest);
  const config = ctx.config(cmd.optsWithGlobals());
  const engine = await ctx.openEngine(config);
  try {
    const workspaceId = (await requireWorkspace(engine.store.db, flags.workspace.toLowerCase())).id;
    const { createNotifier } = await import('../../notify/notifier.js'); // nodemailer: loaded when mail is sent
    const notifier = createNotifier(engine, config, engine.logger);
    // The wall clock decides which digests are due; CHS_NOW (the engine clock) only moves the data.
    const result = await notifier.run(workspaceId, new Date(), { dryRun: flags.dryRun ?? false, forceDigests });
    if (flags.json) {
      printJson(ctx, {
        workspaceId,
        dryRun: result.dryRun,
        transport: notifier.transport,
        messages: result.planned.map((m) => ({
          kind: m.kind,
          dedupeKey: m.dedupeKey,
          from: m.from,
          to: m.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
          content: m.content,
        })),
        sent: result.sent,
        failed: result.failed,
        claimedElsewhere: result.claimedElsewhere,
        quiet: result.quiet,
        notes: result.notes,
      });
    } else printHuman(ctx, result, notifier.transport === 'smtp' ? 'SMTP (CHS_SMTP_URL)' : `outbox folder ${config.dataDir}/outbox`);
    if (result.failed.length > 0) process.exitCode = 2;
  } finally {
    await engine.close();
  }
}

export const register: RegisterCommand = (program, ctx) => {
  program
    .command('notify')
    .description('alerts (score drops, renewals) and digests due now for a workspace: preview with --dry-run, else send them (each at most once)')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--dry-run', 'print what would be sent now; send and record nothing')
    .option('--digest <kind...>', 'include the daily and/or weekly digest even outside its hour (08:00 local; weekly on Monday)')
    .option('--json', 'print {workspaceId, dryRun, transport, messages[], sent[], failed[], claimedElsewhere[], quiet[], notes[]} as JSON')
    .action(async (flags: NotifyFlags, cmd: Command) => run(ctx, cmd, flags));
};
