/**
 * Test support for job tests: a mailbox of simple Gmail messages with known truth (each message
 * from one client's contact to the workspace, so it is exactly one interaction), and a delaying
 * proxy in front of the fake Gmail server so a job is still mid-way when a test acts on it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createTcpServer, Socket, type AddressInfo, type Server as TcpServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type ProgressSample } from '@chs/core/testing';

/** The built `chs` binary the process tests spawn (run `npx tsc -b` first). */
export const CHS_BIN = fileURLToPath(new URL('../../bin/chs.js', import.meta.url));

export interface Env {
  [k: string]: string;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `fn` until it gives a value, or throws after `timeoutMs`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 40_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Runs `chs` without blocking this process's event loop (fake servers live here). */
export function chs(env: Env, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CHS_BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The browser by default: opens the consent URL and follows the provider's redirect back to the loopback listener. */
const followConsent = (url: string) => void fetch(url, { redirect: 'follow' }).catch(() => undefined);

/**
 * Runs a `chs connect` that prints a consent URL on a line of its own (`--no-browser`) and hands
 * the URL to `browser` (with the process, to interrupt it).
 */
export function chsConsent(
  env: Env,
  args: string[],
  browser: (url: string, child: ChildProcess) => void = followConsent,
): Promise<{ code: number; stdout: string; stderr: string; consentUrl: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CHS_BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    let consentUrl = '';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('http'));
      if (line && !consentUrl) {
        consentUrl = line.trim();
        browser(consentUrl, p);
      }
    });
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    p.on('error', reject);
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, consentUrl });
    });
  });
}

/**
 * The setting of a `chs connect` test: a fresh database and data folder with the workspace
 * acme.com (`chs init`), and the OAuth client's secret in a 0600 file. `extra` points the
 * providers at their fakes. What it opens is pushed onto `cleanup`.
 */
export async function connectSetting(cleanup: Array<() => unknown>, secret: string, extra: Env): Promise<{ env: Env; secretFile: string }> {
  const db = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'chs-connect-'));
  cleanup.push(
    () => db.drop(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  const secretFile = join(dir, 'client-secret.txt');
  writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
  const env: Env = { ...(process.env as Env), CHS_DATABASE_URL: db.url, CHS_DATA_DIR: dir, CHS_LOG_LEVEL: 'warn', CHS_NOW: '', CHS_SCHEDULER: 'off', ...extra };
  const init = await chs(env, 'init', '--workspace', 'acme.com', '--name', 'Acme', '--owner-email', 'ana@acme.com', '--json');
  if (init.code !== 0) throw new Error(`chs init failed: ${init.stderr}`);
  return { env, secretFile };
}

/**
 * The environment of a `chs` process in these tests: its database and data folder, Google at a
 * local fake (`api`, `token`), no scheduler, fast polling, rate limits out of the way (tests
 * poll status often on a loaded machine).
 */
export function chsEnv(database: string, dir: string, api: string, token: string, extra: Env = {}): Env {
  return {
    ...(process.env as Env),
    CHS_DATABASE_URL: database,
    CHS_DATA_DIR: dir,
    CHS_LOG_LEVEL: 'warn',
    CHS_SMTP_URL: '',
    CHS_NOW: '',
    CHS_GOOGLE_API_URL: api,
    CHS_GOOGLE_TOKEN_URL: token,
    CHS_SCHEDULER: 'off',
    CHS_JOB_POLL_MS: '200',
    // Status is polled every 50 ms; on a loaded machine the default limits would answer 429 first.
    CHS_RATE_LIMIT_PER_MINUTE: '100000',
    CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000',
    CHS_RATE_LIMIT_PER_HOUR: '1000000',
    ...extra,
  };
}

/**
 * `chs connect google` for the mailbox rep@<ws> with an expired access token (so each run begins
 * with a refresh at the fake).
 */
export async function connectStaleGoogle(env: Env, ws: string): Promise<void> {
  const c = await chs(
    env,
    'connect',
    'google',
    '--workspace',
    ws,
    '--email',
    `rep@${ws}`,
    '--access-token',
    'stale-token',
    '--refresh-token',
    'fake-refresh-token',
    '--client-id',
    'cid',
    '--client-secret',
    'csecret',
    '--expires-at',
    '2020-01-01T00:00:00Z',
  );
  if (c.code !== 0) throw new Error(`chs connect google failed: ${c.stderr}`);
}

/** `chs init` a workspace and connect its stale Google mailbox (connectStaleGoogle); resolves to the workspace's API key. */
export async function initAndConnect(env: Env, ws = 'acme.com'): Promise<string> {
  const init = await chs(env, 'init', '--workspace', ws, '--name', 'Acme', '--owner-email', `ana@${ws}`, '--json');
  if (init.code !== 0) throw new Error(`chs init failed: ${init.stderr}`);
  const { apiKey } = JSON.parse(init.stdout) as { apiKey: string };
  await connectStaleGoogle(env, ws);
  return apiKey;
}

export interface Serve {
  name: string;
  proc: ChildProcess;
  base: string;
  /** stderr apart from the address and dashboard lines. */ stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * `chs serve --port 0` in a child process, resolved once it prints its address. Every one
 * started is listed in `started` (also when it fails to start) for {@link killServes}.
 */
export function serve(started: Serve[], env: Env, name = 'runner', startTimeoutMs = 30_000): Promise<Serve> {
  const proc = spawn(process.execPath, [CHS_BIN, 'serve', '--port', '0'], { env });
  let err = '';
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const entry: Serve = { name, proc, base: '', stderr: () => err.replace(/^chs: serving .*\n/m, '').replace(/^Dashboard: http:\/\/\S+\n/m, ''), exited };
  started.push(entry);
  // stdout carries the JSON logs (drained); the address line comes on stderr.
  proc.stdout.resume();
  return new Promise<Serve>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`chs serve ${name} did not start: ${err}`)), startTimeoutMs);
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving (http:\/\/[^\s/]+)\/api/.exec(err);
      if (m && !entry.base) {
        clearTimeout(timer);
        entry.base = m[1]!;
        resolve(entry);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`chs serve ${name} exited ${code}: ${err}`));
    });
  });
}

/**
 * After a process test: SIGKILLs its runners, then closes (or drops, for a test database) what
 * it opened, in order; absent ones are passed over.
 */
export async function tearDown(started: Serve[], ...opened: Array<{ close(): Promise<void> } | { drop(): Promise<void> } | undefined>): Promise<void> {
  await killServes(started);
  for (const o of opened) {
    if (o && 'drop' in o) await o.drop();
    else if (o) await o.close();
  }
}

/** SIGKILLs every runner in `started` still alive and empties the list. */
export async function killServes(started: Serve[]): Promise<void> {
  for (const s of started.splice(0)) {
    if (s.proc.exitCode === null && s.proc.signalCode === null) {
      s.proc.kill('SIGKILL');
      await s.exited;
    }
  }
}

export interface TestGmailMessage {
  id: string;
  threadId?: string;
  raw: string;
  internalDate: number;
}

const CLIENT_DOMAINS = ['globex.com', 'initech.com', 'umbrella.com', 'hooli.com', 'stark.com'] as const;

/**
 * `n` messages, newest first from `newest` back, one every `spacingMs`; message i comes from
 * `contact{i%7}@<CLIENT_DOMAINS[i%5]>` to `rep@<workspace>`, with Message-ID `<m{i}@<domain>>`.
 */
export function makeMailbox(
  n: number,
  opts: { workspace?: string; newest?: number; spacingMs?: number } = {},
): { messages: TestGmailMessage[]; messageIds: Set<string>; perDomain: Map<string, number> } {
  const ws = opts.workspace ?? 'acme.com';
  const newest = opts.newest ?? Date.now() - 60_000;
  const spacing = opts.spacingMs ?? 60_000;
  const messages: TestGmailMessage[] = [];
  const messageIds = new Set<string>();
  const perDomain = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const domain = CLIENT_DOMAINS[i % CLIENT_DOMAINS.length]!;
    const date = new Date(newest - i * spacing);
    const mid = `m${i}@${domain}`;
    messages.push({
      id: `g${String(i).padStart(6, '0')}`,
      internalDate: date.getTime(),
      raw: [
        `From: Contact ${i % 7} <contact${i % 7}@${domain}>`,
        `To: Rep <rep@${ws}>`,
        `Subject: Renewal question ${i}`,
        `Date: ${date.toUTCString()}`,
        `Message-ID: <${mid}>`,
        'Content-Type: text/plain; charset=utf-8',
        '',
        `Hello, thanks for the update on item ${i}. The rollout went well and the team is happy.`,
        '',
      ].join('\r\n'),
    });
    messageIds.add(mid);
    perDomain.set(domain, (perDomain.get(domain) ?? 0) + 1);
  }
  return { messages, messageIds, perDomain };
}

/** An HTTP proxy that waits `delayMs` before forwarding each request whose path matches `slow`. */
export async function startDelayProxy(target: string, delayMs: number, slow: RegExp = /\/messages\/[^/]+$/): Promise<{ url: string; close(): Promise<void> }> {
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      req.pipe(up);
    };
    if (slow.test((req.url ?? '').split('?')[0] ?? '')) setTimeout(forward, delayMs);
    else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A TCP proxy to `targetPort` that a test can cut, as a server going away looks to its clients;
 * started again on the same `listenPort`, the server is back where the clients expect it.
 */
export async function startTcpProxy(targetPort: number, listenPort = 0): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((client) => {
    const upstream = new Socket();
    upstream.connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(listenPort, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Which status a watcher reads: `/ingest/status`'s current run, or `/ingest/v2/status`'s session. */
export type StatusKind = 'run' | 'v2';

interface RunStatus {
  currentJob: {
    status: string;
    progress: number;
    estimatedCompletion: string | null;
    totalItems?: number;
    itemsRead?: number;
    itemsProcessed?: number;
    waiting?: unknown;
  } | null;
}
interface V2Status {
  status: string;
  progress: { percentComplete: number; totalEmails: number | null; emailsRead?: number; emailsProcessed: number };
  timing: { estimatedCompletionAt: string | null };
  waiting?: unknown;
}

/** One status reading as a ProgressSample, `start` being the epoch ms the job was started at. */
function toSample(kind: StatusKind, body: unknown, start: number, now: number): ProgressSample | undefined {
  const rel = (iso: string | null | undefined) => (iso ? Date.parse(iso) - start : null);
  if (kind === 'run') {
    const c = (body as RunStatus).currentJob;
    if (!c) return undefined;
    return {
      at: now - start,
      status: c.status,
      progress: c.progress,
      total: c.totalItems ?? null,
      read: c.itemsRead ?? 0,
      stored: c.itemsProcessed ?? 0,
      eta: rel(c.estimatedCompletion),
      waiting: c.waiting !== undefined,
    };
  }
  const v = body as V2Status;
  return {
    at: now - start,
    status: v.status,
    progress: v.progress.percentComplete,
    total: v.progress.totalEmails,
    read: v.progress.emailsRead ?? 0,
    stored: v.progress.emailsProcessed,
    eta: rel(v.timing.estimatedCompletionAt),
    waiting: v.waiting !== undefined,
  };
}

/**
 * Reads a status endpoint every `everyMs` until the run ends (completed, failed, cancelled), as
 * a user watching it would; resolves to every sample and when the end was first seen (ms after
 * `start`). `base()` is read at each look, so a test may restart the server under it.
 */
export async function watchStatus(
  kind: StatusKind,
  base: () => string,
  key: string,
  start: number,
  o: { everyMs?: number; timeoutMs?: number; onSample?: (s: ProgressSample) => void } = {},
): Promise<{ samples: ProgressSample[]; endAt: number; last: ProgressSample }> {
  const samples: ProgressSample[] = [];
  const path = kind === 'run' ? '/api/ingest/status?workspaceId=acme.com' : '/api/ingest/v2/status?workspaceId=acme.com';
  const deadline = Date.now() + (o.timeoutMs ?? 180_000);
  for (;;) {
    if (Date.now() > deadline) throw new Error(`the run did not end in time; last: ${JSON.stringify(samples.at(-1))}`);
    const res = await fetch(`${base()}${path}`, { headers: { authorization: `Bearer ${key}` } }).catch(() => undefined);
    const now = Date.now();
    if (res?.ok) {
      const s = toSample(kind, await res.json(), start, now);
      if (s) {
        samples.push(s);
        o.onSample?.(s);
        if (s.status === 'completed' || s.status === 'failed' || s.status === 'cancelled') return { samples, endAt: s.at, last: s };
      }
    }
    await sleep(o.everyMs ?? 250);
  }
}
