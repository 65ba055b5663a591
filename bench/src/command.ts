/**
 * The whole `chs` command as a user runs it: a child process from spawn to exit (Node start-up,
 * module loading, the work, the health rebuild, closing), with its peak RSS and CPU time.
 *
 * Peak RSS and CPU come from `/usr/bin/time` (GNU time: the kernel's `ru_maxrss` of the child,
 * its user + system time) when it is installed; otherwise from `/proc/<pid>/status` `VmHWM` and
 * `/proc/<pid>/stat` polled every 25 ms until the process exits (a peak in the last 25 ms may be
 * missed; CPU time then misses the last poll interval).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CHS_BIN } from './paths.js';

interface CommandRun {
  /** Spawn to exit, ms. */
  wallMs: number;
  /** Peak resident set of the process (all its threads), bytes. */
  peakRssBytes: number;
  /** User + system CPU of the process, ms. */
  cpuMs: number;
  /** How peak RSS and CPU were read. */
  method: 'gnu-time' | 'proc-poll';
  stdout: string;
  stderr: string;
}

const GNU_TIME = '/usr/bin/time';
const CLOCK_TICKS_PER_SEC = 100;

/** Runs `node <args>` with `env`; rejects when it exits non-zero. */
export async function runCommand(args: string[], env: NodeJS.ProcessEnv): Promise<CommandRun> {
  const gnu = existsSync(GNU_TIME);
  const dir = mkdtempSync(join(tmpdir(), 'chs-bench-cmd-'));
  const timeFile = join(dir, 'time.txt');
  const argv = gnu ? [GNU_TIME, '-o', timeFile, '-f', '%M %U %S', process.execPath, ...args] : [process.execPath, ...args];
  const started = performance.now();
  let peakKb = 0;
  let cpuTicks = 0;
  try {
    const { stdout, stderr, wallMs } = await new Promise<{ stdout: string; stderr: string; wallMs: number }>((resolve, reject) => {
      const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
      const poll = gnu
        ? undefined
        : setInterval(() => {
            try {
              const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
              if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
              const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
              const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
              cpuTicks = Number(fields[11]) + Number(fields[12]);
            } catch {
              // gone between two polls
            }
          }, 25);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        const wall = performance.now() - started;
        if (poll) clearInterval(poll);
        if (code === 0) resolve({ stdout: out, stderr: err, wallMs: wall });
        else reject(new Error(`${args.join(' ')} exited with ${signal ?? code}\n${err.slice(-2000)}`));
      });
    });
    if (gnu) {
      const [kb, user, sys] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
      return { wallMs, peakRssBytes: (kb ?? 0) * 1024, cpuMs: ((user ?? 0) + (sys ?? 0)) * 1000, method: 'gnu-time', stdout, stderr };
    }
    return { wallMs, peakRssBytes: peakKb * 1024, cpuMs: (cpuTicks / CLOCK_TICKS_PER_SEC) * 1000, method: 'proc-poll', stdout, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const DEFAULT_BENCH_PG_URL = process.env.CHS_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** What the `--json` summary of `chs ingest` holds that the bench reads. */
interface CommandSummary {
  itemsProcessed: number;
  itemsAdded: number;
  itemsUpdated: number;
  itemsFiltered: number;
  errorsCount: number;
  skipped: Record<string, number>;
  durationMs: number;
  stages: { readMs: number; waitMs: number; writeMs: number };
  health?: { clientsScored: number; snapshotsWritten: number; durationMs?: number };
  /** Process start to the first message asked for (the command's own measure). */
  startupMs?: number;
}

function isCommandSummary(v: unknown): v is CommandSummary {
  const o = v as Partial<CommandSummary> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.itemsProcessed === 'number' &&
    typeof o.durationMs === 'number' &&
    typeof o.stages === 'object' &&
    typeof o.skipped === 'object'
  );
}

/**
 * A fresh database for one run: a SQLite file in its own folder, or a new PostgreSQL database.
 * `from`: start as a copy of this SQLite file, or of this PostgreSQL database (its template).
 */
export async function freshDatabase(
  dialect: 'sqlite' | 'postgres',
  dir: string,
  pgUrl: string,
  from?: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const folder = mkdtempSync(join(dir, 'cmd-'));
    const url = join(folder, 'chs.db');
    if (from !== undefined) copyFileSync(from, url);
    return { url, drop: async () => rmSync(folder, { recursive: true, force: true }) };
  }
  const name = `chs_bench_${randomBytes(5).toString('hex')}`;
  const admin = (q: string): Promise<void> => pgAdmin(pgUrl, q);
  await admin(`create database ${name}${from === undefined ? '' : ` template ${from}`}`);
  const u = new URL(pgUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** One statement on the server's admin database (`pgUrl`), on a connection of its own. */
export async function pgAdmin(pgUrl: string, q: string): Promise<void> {
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  try {
    await c.query(q);
  } finally {
    await c.end();
  }
}

/**
 * The dialects a scenario runs on: SQLite, and PostgreSQL at `pgUrl` unless it is `none` or does
 * not answer (then `details.postgresSkipped` says so).
 */
export async function benchDialects(pgUrl: string, details: Record<string, unknown>): Promise<Array<'sqlite' | 'postgres'>> {
  const dialects: Array<'sqlite' | 'postgres'> = ['sqlite'];
  if (pgUrl !== 'none') {
    if (await pgAnswers(pgUrl)) dialects.push('postgres');
    else details.postgresSkipped = `PostgreSQL at ${new URL(pgUrl).host} did not answer`;
  }
  return dialects;
}

async function pgAnswers(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

export interface WholeCommandResult extends CommandRun {
  dialect: 'sqlite' | 'postgres';
  summary: CommandSummary;
}

export interface WholeCommandOptions {
  /** More environment for both commands (e.g. CHS_NOW). */
  env?: Record<string, string>;
  /** Called with the database (file or URL) after the ingest, before it is dropped. */
  inspect?: (databaseUrl: string) => Promise<void>;
}

/** `chs init` (not timed), then `chs ingest --mbox … --json` timed as a whole. */
export async function wholeCommand(
  dialect: 'sqlite' | 'postgres',
  path: string,
  workspace: string,
  dir: string,
  pgUrl: string,
  options: WholeCommandOptions = {},
): Promise<WholeCommandResult> {
  const db = await freshDatabase(dialect, dir, pgUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'chs-bench-data-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, CHS_DATABASE_URL: db.url, CHS_DATA_DIR: dataDir, CHS_LOG_LEVEL: 'warn', ...options.env };
    await runCommand([CHS_BIN, 'init', '--workspace', workspace, '--name', 'Bench', '--owner-email', `bench@${workspace}`, '--json'], env);
    const run = await runCommand([CHS_BIN, 'ingest', '--mbox', path, '--workspace', workspace, '--json'], env);
    const summary: unknown = JSON.parse(run.stdout);
    if (!isCommandSummary(summary)) throw new Error(`chs ingest --json printed an unexpected summary: ${run.stdout.slice(0, 300)}`);
    await options.inspect?.(db.url);
    return { ...run, dialect, summary };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await db.drop();
  }
}
