import type { Command } from 'commander';
import { createEngine, fixedClock, loadOrCreateSecretKey, systemClock, type Engine, type FaultHook } from '@chs/core';
import { loadConfig, type RunnerConfig, type TestFault } from '../config.js';
import { looseSecretFiles } from './file-modes.js';

/** What every command gets: how to read the config and open the engine, and where to write. */
export interface CliContext {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  /** Config from the environment and the global `--db` flag. */
  config(flags: { db?: string }): RunnerConfig;
  /** Opens (and migrates) the store named by the config. The caller closes it. */
  openEngine(config: RunnerConfig): Promise<Engine>;
}

export function defaultContext(): CliContext {
  return {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    config: (flags) => loadConfig(process.env, flags),
    openEngine: (config) => {
      for (const warning of looseSecretFiles(config)) process.stderr.write(`chs: warning: ${warning}\n`);
      return createEngine({
        database: config.databaseUrl,
        ...(config.pgPoolSize ? { poolSize: config.pgPoolSize } : {}),
        clock: config.now ? fixedClock(config.now) : systemClock,
        // Lazy: only a provider sync needs the key, and reading it may create the key file.
        secretKey: () => loadOrCreateSecretKey(config.dataDir, config.secretKey),
        providerUrls: config.providers,
        ...(config.sqliteBusyTimeoutMs !== undefined ? { busyTimeoutMs: config.sqliteBusyTimeoutMs } : {}),
        ...(config.mailLimits ? { mailLimits: config.mailLimits } : {}),
        ...(config.testFault ? { faults: killAt(config.testFault) } : {}),
      });
    },
  };
}

/** CHS_TEST_FAULT: says where it struck on stderr (tests assert it), then dies as a crash would. */
function killAt(fault: TestFault): FaultHook {
  return (point, n) => {
    if (point !== fault.point || n !== fault.n) return;
    process.stderr.write(`chs: test fault at ${point} #${n}: SIGKILL\n`);
    process.kill(process.pid, 'SIGKILL');
  };
}

/** Writes one line of JSON. */
export function printJson(ctx: CliContext, value: unknown): void {
  ctx.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Opens the engine a command's flags name, runs `fn` with it and its config, and closes it whatever happens. */
export async function withEngine<T>(ctx: CliContext, cmd: Command, fn: (engine: Engine, config: RunnerConfig) => Promise<T>): Promise<T> {
  const config = ctx.config(cmd.optsWithGlobals());
  const engine = await ctx.openEngine(config);
  try {
    return await fn(engine, config);
  } finally {
    await engine.close();
  }
}
