/** Test support for in-process CLI tests: a context whose stdout and stderr are captured. */
import { Writable } from 'node:stream';
import { createEngine, fixedClock } from '@chs/core';
import { loadConfig } from '../config.js';
import type { CliContext } from './context.js';

export class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

/** A CLI context over `env` (no process environment read), the engine on the data clock CHS_NOW. */
export function captureContext(env: NodeJS.ProcessEnv): { ctx: CliContext; stdout: Capture; stderr: Capture } {
  const stdout = new Capture();
  const stderr = new Capture();
  const ctx: CliContext = {
    env,
    stdout,
    stderr,
    stdin: process.stdin,
    config: (flags) => loadConfig(env, flags),
    openEngine: (config) => createEngine({ database: config.databaseUrl, ...(config.now ? { clock: fixedClock(config.now) } : {}) }),
  };
  return { ctx, stdout, stderr };
}
