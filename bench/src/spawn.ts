/** Runs one task in a fresh Node process and returns its result. */
import { spawn, type ChildProcess } from 'node:child_process';
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

/** A server process started by the bench: `chs serve`, the bare route. */
export interface ServerProcess {
  child: ChildProcess;
  /** `http://host:port`, read from the process's ready line. */
  base: string;
}

/**
 * Starts `node <args>` and waits (60 s at most) for the line `ready` matches, on stdout or stderr
 * (`chs serve` prints it on stderr, its stdout being the JSON logs); its first group is the
 * server's base URL. stdout keeps being drained and stderr passed through afterwards.
 */
export function startServer(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`server did not start: ${args.join(' ')}\n${seen}`));
    }, 60_000);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.pipe(process.stderr);
    const onData = (chunk: string): void => {
      seen += chunk;
      const m = ready.exec(seen);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.stdout.resume();
        resolve({ child, base: m[1]! });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${args.join(' ')}\n${seen}`));
    });
  });
}

/** SIGTERM, then SIGKILL after 15 s; resolves when the process is gone. */
export async function stopServer(s: ServerProcess): Promise<void> {
  if (s.child.exitCode !== null) return;
  s.child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    s.child.once('exit', () => resolve());
    s.child.kill('SIGTERM');
    setTimeout(() => s.child.kill('SIGKILL'), 15_000).unref();
  });
}

/** `chs serve` prints this on stderr once it listens; the group is its base URL. */
export const CHS_SERVING = /serving (http:\/\/[^\s/]+)\/api/;
