import { Command, CommanderError } from 'commander';
import { isChsError } from '@chs/core';
import { commands } from './commands/index.js';
import { defaultContext, type CliContext } from './context.js';
import { RUNNER_VERSION } from '../version.js';

export function buildProgram(ctx: CliContext): Command {
  const program = new Command();
  program
    .name('chs')
    .description('Customer Health Service: ingest mail, score client health, serve the API.')
    .version(RUNNER_VERSION, '-V, --version', 'print the version')
    .option('--db <path-or-url>', 'SQLite file or postgres:// URL (env CHS_DATABASE_URL; default ./data/chs.db)')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    });
  for (const register of commands) register(program, ctx);
  return program;
}

/** Runs the CLI; resolves to the exit code. Errors become one line on stderr. */
export async function main(argv: string[], ctx: CliContext = defaultContext()): Promise<number> {
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    ctx.stderr.write(`chs: ${message}${isChsError(err) ? ` [${err.code}]` : ''}\n`);
    return 1;
  }
}
