import { Command, CommanderError } from 'commander';
import { isChsError } from '@chs/core';
import { loadCommands } from './commands/index.js';
import { defaultContext, type CliContext } from './context.js';
import { RUNNER_VERSION } from '../version.js';

/** Global options that take a value: the word after them is not the command's name. */
const GLOBAL_OPTIONS_WITH_VALUE = new Set(['--db']);

/** The command named in `argv` (node, script, then the arguments), if any: the first word that is not a global option or its value. */
function commandName(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (GLOBAL_OPTIONS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * The `chs` program. With `argv`, only the command it names is loaded (every command for help,
 * `--version` and unknown names), so a command starts without loading the others.
 */
export async function buildProgram(ctx: CliContext, argv?: readonly string[]): Promise<Command> {
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
  const name = argv ? commandName(argv) : undefined;
  const versionOnly = name === undefined && argv !== undefined && argv.slice(2).some((a) => a === '-V' || a === '--version');
  if (!versionOnly) for (const register of await loadCommands(name)) register(program, ctx);
  return program;
}

/** Runs the CLI; resolves to the exit code. Errors become one line on stderr. */
export async function main(argv: string[], ctx: CliContext = defaultContext()): Promise<number> {
  try {
    const program = await buildProgram(ctx, argv);
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
