import { statSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { ChsError, emlDirSource, limitHeapGrowth, maildirSource, mboxSource, type IngestProgress, type RawMessage, type Source } from '@chs/core';
import { printJson, type CliContext } from '../context.js';
import { createProgressView } from '../progress.js';
import type { RegisterCommand } from './index.js';

interface IngestFlags {
  workspace: string;
  mbox?: string;
  emlDir?: string;
  maildir?: string;
  json?: boolean;
  workers?: string;
}

function pickSource(flags: IngestFlags, maxMessageBytes: number | undefined): Source<RawMessage> {
  const given = [flags.mbox, flags.emlDir, flags.maildir].filter((x) => x !== undefined);
  if (given.length !== 1) throw new ChsError('INVALID_INPUT', 'give exactly one of --mbox <file>, --eml-dir <dir>, --maildir <dir>');
  const path = given[0]!;
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ChsError('SOURCE_UNREADABLE', `no such file or folder: ${path}`);
  }
  if (flags.mbox !== undefined) {
    if (!st.isFile()) throw new ChsError('SOURCE_UNREADABLE', `--mbox needs a file: ${path}`);
    return mboxSource(path, maxMessageBytes !== undefined ? { maxMessageBytes } : {});
  }
  if (!st.isDirectory()) throw new ChsError('SOURCE_UNREADABLE', `${flags.emlDir !== undefined ? '--eml-dir' : '--maildir'} needs a folder: ${path}`);
  const options = maxMessageBytes !== undefined ? { maxMessageBytes } : {};
  return flags.emlDir !== undefined ? emlDirSource(path, options) : maildirSource(path, options);
}

async function run(ctx: CliContext, cmd: Command, flags: IngestFlags): Promise<void> {
  const workers = flags.workers === undefined ? 2 : Number(flags.workers);
  if (!Number.isInteger(workers) || workers < 0 || workers > 16) throw new ChsError('INVALID_INPUT', '--workers must be an integer from 0 to 16');
  // While the workers parse, this process's threads keep their heaps close to what they hold
  // (heap-growth.ts): the whole 50,000-message command peaked at 243-245 MB instead of 326-353,
  // in the same time. In-process parsing (`--workers 0`) was not measured with it.
  if (workers > 0) limitHeapGrowth();
  const config = ctx.config(cmd.optsWithGlobals());
  const source = pickSource(flags, config.mailLimits?.maxMessageBytes);
  const engine = await ctx.openEngine(config);
  const view = createProgressView(ctx.stderr, !flags.json, 'ingest');
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // Process start (Node boot, module loading, config, the database opened and migrated) to the
    // first message asked for: how long `chs ingest` takes to start, as its user feels it.
    const startupMs = Math.round(performance.now());
    const summary = await engine.ingest({
      workspaceId: flags.workspace.toLowerCase(),
      source,
      workers,
      signal: controller.signal,
      // Only a drawn bar follows the progress: without one the mailbox is not counted (ingest.ts).
      ...(view.shown ? { onProgress: (p: IngestProgress) => view.update(p) } : {}),
    });
    view.stop();
    if (flags.json) {
      printJson(ctx, { ...summary, startupMs });
    } else {
      const secs = summary.durationMs / 1000;
      ctx.stdout.write(
        `${summary.status === 'completed' ? 'Ingested' : 'Stopped after'} ${summary.itemsProcessed} messages in ${secs.toFixed(1)} s ` +
          `(${Math.round(summary.itemsProcessed / Math.max(secs, 0.001))} msg/s): ${summary.itemsAdded} added, ${summary.itemsUpdated} updated, ` +
          `${summary.itemsSkipped} skipped (${summary.skipped.suggested} of them kept for suggested clients), ${summary.itemsFiltered} filtered, ${summary.errorsCount} errors; ` +
          `${summary.clientsCreated} new clients, ${summary.clientsSuggested} new suggested clients, ${summary.contactsCreated} new contacts.\n`,
      );
    }
  } finally {
    view.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await engine.close();
  }
}

export const register: RegisterCommand = (program, ctx) => {
  program
    .command('ingest')
    .description('ingest a local mailbox (mbox file, folder of .eml files, or Maildir) into a workspace')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--mbox <file>', 'an mbox file (Google Takeout, Thunderbird, mboxrd/mboxo)')
    .option('--eml-dir <dir>', 'a folder of .eml files (searched recursively)')
    .option('--maildir <dir>', 'a Maildir (cur/ and new/)')
    .option('--json', 'print a JSON summary instead of text and a progress bar')
    .addOption(new Option('--workers <n>', 'parser threads (0 = in-process)').default(undefined).hideHelp())
    .action(async (flags: IngestFlags, cmd: Command) => run(ctx, cmd, flags));
};
