/**
 * `chs sentiment [--json]`: scores one text per stdin line and prints one `{"label","score"}`
 * JSON object per line, in order (README, Command line; docs/sentiment.md).
 *
 * Output is the same with and without `--json`: stdout only ever carries the JSON lines. The flag
 * only silences the one-line hint written to stderr when stdin is a terminal (a person typing).
 * Blank lines print `{"label":"neutral","score":0}` so output line N always answers input line N.
 * Input is streamed (never read whole); a last line without a newline is scored; CRLF is fine.
 * The command needs no database.
 */
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { createSentimentScorer } from '@chs/core';
import type { CliContext } from '../context.js';
import type { RegisterCommand } from './index.js';

interface SentimentFlags {
  json?: boolean;
}

function isBrokenPipe(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'EPIPE';
}

async function run(ctx: CliContext, flags: SentimentFlags): Promise<void> {
  const scorer = createSentimentScorer();
  if (!flags.json && (ctx.stdin as { isTTY?: boolean }).isTTY) {
    ctx.stderr.write('chs sentiment: one text per line; Ctrl-D to finish.\n');
  }
  const lines = createInterface({ input: ctx.stdin, crlfDelay: Infinity, terminal: false });
  // A reader that went away (`chs sentiment < big.txt | head`) is not an error: stop reading.
  let failure: Error | undefined;
  const onError = (err: Error): void => {
    failure ??= err;
    lines.close();
  };
  ctx.stdout.on('error', onError);
  try {
    for await (const line of lines) {
      if (failure !== undefined) break;
      const { label, score } = scorer.score(line);
      if (!ctx.stdout.write(`${JSON.stringify({ label, score })}\n`)) {
        // Backpressure: wait for the reader so memory stays flat on a large input. An error
        // rejects this wait; onError has recorded it.
        await once(ctx.stdout, 'drain').catch(() => undefined);
      }
    }
  } finally {
    ctx.stdout.off('error', onError);
    lines.close();
  }
  if (failure !== undefined && !isBrokenPipe(failure)) throw failure;
}

export const register: RegisterCommand = (program, ctx) => {
  program
    .command('sentiment')
    .description('score the sentiment of one text per stdin line; prints one {"label","score"} JSON object per line')
    .option('--json', 'print nothing but the JSON lines (the output is JSON either way)')
    .action(async (flags: SentimentFlags, _cmd: Command) => run(ctx, flags));
};
