/** Runs one task in a fresh Node process and returns its result. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHILD_FILE } from './paths.js';
import type { TaskName, TASKS } from './tasks.js';

type ArgsOf<T extends TaskName> = Parameters<(typeof TASKS)[T]>[0];
type ResultOf<T extends TaskName> = Awaited<ReturnType<(typeof TASKS)[T]>>;

export interface ChildOptions {
  /** Write V8 CPU profiles of the main thread and every worker thread here (`--cpu-prof`). */
  cpuProfileDir?: string;
}

export async function runChild<T extends TaskName>(task: T, args: ArgsOf<T>, options: ChildOptions = {}): Promise<ResultOf<T>> {
  const dir = mkdtempSync(join(tmpdir(), 'chs-bench-'));
  const out = join(dir, 'result.json');
  const execArgs = options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : [];
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [...execArgs, CHILD_FILE, task, JSON.stringify(args), out], { stdio: ['ignore', 'inherit', 'inherit'] });
      child.on('error', reject);
      child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`bench task ${task} exited with ${signal ?? code}`))));
    });
    return JSON.parse(readFileSync(out, 'utf8')) as ResultOf<T>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
