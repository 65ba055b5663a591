/**
 * The webhook burst task (scenario `webhooks`, run in a fresh child process): a runner's process
 * — one store, a WebhookDispatcher started as the runner starts it, foreground work beside it —
 * gets 1,000 events recorded at once for an endpoint at a local receiver (another process). It
 * measures how long the dispatcher takes to deliver them all and what the burst does meanwhile to
 * the foreground: a trivial indexed read in a loop (what an API request costs at least) and the
 * ingest of fixtures/mailboxes/small.mbox (34 messages) into a fresh workspace, each compared with
 * the same work without a burst, before and after (their mean is the baseline). The delivery
 * itself is compared with the same 1,000 signed POSTs sent straight from this process, with no
 * queue. Every figure the scenario reports is a ratio of two measurements taken in this process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  createEndpoint,
  createEngine,
  createWorkspace,
  EVENT_TYPES,
  getEndpoint,
  mboxSource,
  recordEvent,
  signatureHeaders,
  WebhookDispatcher,
  type AnyEngineEvent,
  type Db,
  type EventData,
} from '@chs/core';
import { percentile } from './measure.js';

export interface WebhookBurstArgs {
  /** A SQLite file path or a postgres:// URL of a fresh database. */
  db: string;
  /** fixtures/mailboxes/small.mbox (its workspace is ourco.com). */
  mbox: string;
  /** Events recorded at once, per burst. Default 1,000. */
  events?: number;
  /** Length of each read-loop baseline (ms). Default 2,000. */
  readMs?: number;
  /** Ingests per baseline. Default 8. */
  ingests?: number;
  /** Dispatcher concurrency (the runner's default: 8). */
  concurrency?: number;
}

export interface LoopStats {
  /** Reads (or ingests) completed. */
  n: number;
  wallMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  /** Event-loop delay over the phase (monitorEventLoopDelay, 10 ms resolution). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

interface BurstStats {
  events: number;
  /** Recording them: one transaction, the outbox's fan-out included. */
  recordMs: number;
  /** From the commit to the last delivery recorded as succeeded. */
  deliverMs: number;
  attempts: number;
  failedAttempts: number;
}

export interface WebhookBurstResult {
  read: { before: LoopStats; during: LoopStats; after: LoopStats };
  ingest: { before: LoopStats; during: LoopStats; after: LoopStats };
  /** The burst the read loop ran beside, and the one the ingests ran beside. */
  bursts: { read: BurstStats; ingest: BurstStats };
  /** The same number of signed POSTs to the receiver, straight from this process at the same concurrency. */
  barePostMs: number;
  /** What the receiver got: requests and distinct webhook-ids over both bursts. */
  received: { requests: number; distinctIds: number };
  messagesPerIngest: number;
}

const WS = 'bench-webhooks.test';

/** The receiver: another process, so its work is not charged to the measured one. Answers 200 at once. */
const RECEIVER = `
const http = require('node:http');
const ids = new Set(); let requests = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET') { res.end(JSON.stringify({ requests, distinctIds: ids.size })); return; }
  req.resume();
  req.on('end', () => { requests += 1; ids.add(req.headers['webhook-id']); res.end('ok'); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
`;

function startReceiver(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      const m = /port (\d+)/.exec(d);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.on('exit', (code) => reject(new Error(`the receiver exited (${code})`)));
  });
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  return (await res.json()) as T;
}

function stats(samples: number[], wallMs: number, loop: ReturnType<typeof monitorEventLoopDelay>): LoopStats {
  const sum = samples.reduce((a, b) => a + b, 0);
  return {
    n: samples.length,
    wallMs,
    p50Ms: percentile(samples, 50),
    p95Ms: percentile(samples, 95),
    p99Ms: percentile(samples, 99),
    maxMs: samples.length ? Math.max(...samples) : 0,
    meanMs: samples.length ? sum / samples.length : 0,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    loopDelayMaxMs: loop.max / 1e6,
  };
}

/** Lets timers and I/O run, as between two requests that arrive from outside. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs `step` until `done()` (checked between steps) and at least `min` times; the latency of
 * each, counted from a turn of the event loop before it: a step is a request arriving from
 * outside, which waits for whatever the process is doing before it is served. (A loop of SQLite
 * reads without turns would also starve every timer and socket of the process: they resolve
 * without one.)
 */
async function loop(step: () => Promise<unknown>, done: () => boolean, min = 1): Promise<LoopStats> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < min || !done()) {
    const t = performance.now();
    await turn();
    await step();
    samples.push(performance.now() - t);
  }
  delay.disable();
  return stats(samples, performance.now() - started, delay);
}

const DATA: EventData<'client.score_changed'> = {
  client: { id: 'cl_bench', name: 'Globex', domain: 'globex.test', mrr: 1200, renewalDate: '2026-03-01', csmOwner: null },
  score: 49,
  previousScore: 61,
  threshold: 50,
  reason: 'slower_replies',
  reasonText: 'Replies take three times as long.',
  delta: -12,
  minDelta: 10,
};

export async function webhookBurstTask(a: WebhookBurstArgs): Promise<WebhookBurstResult> {
  const events = a.events ?? 1000;
  const readMs = a.readMs ?? 2000;
  const ingests = a.ingests ?? 8;
  const key = randomBytes(32);
  const receiver = await startReceiver();
  const engine = await createEngine({ database: a.db });
  const db: Db = engine.store.db;
  const boxes = mkdtempSync(join(tmpdir(), 'chs-bench-webhooks-'));
  const mbox = readFileSync(a.mbox, 'utf8');
  let attempts = 0;
  let failedAttempts = 0;
  let delivered = 0;
  const dispatcher = new WebhookDispatcher({
    db,
    secretKey: key,
    allowPrivate: true,
    ...(a.concurrency ? { concurrency: a.concurrency } : {}),
    onAttempt: (r) => {
      attempts += 1;
      if (r.outcome === 'delivered') delivered += 1;
      else failedAttempts += 1;
    },
  });
  try {
    await createWorkspace(db, { domain: WS, name: 'Bench webhooks', ownerEmail: `bench@${WS}` });
    const { endpoint } = await createEndpoint(db, key, { workspaceId: WS, url: `${receiver.url}/hooks`, events: EVENT_TYPES }, { allowPrivate: true });
    // As a runner: started once, idle until something is due.
    dispatcher.start();

    const read = () => getEndpoint(db, WS, endpoint.id);
    let ingestNo = 0;
    let messagesPerIngest = 0;
    // small.mbox into a workspace of its own each time (its domain renamed), so every ingest does the same work.
    const ingest = async () => {
      ingestNo += 1;
      const domain = `ourco${ingestNo}.com`;
      const file = join(boxes, `${ingestNo}.mbox`);
      writeFileSync(file, mbox.replaceAll('ourco.com', domain));
      await createWorkspace(db, { domain, name: `Ourco ${ingestNo}`, ownerEmail: `cs@${domain}` });
      const s = await engine.ingest({ workspaceId: domain, source: mboxSource(file), workers: 0 });
      messagesPerIngest = s.itemsProcessed;
    };
    const timeUp = (ms: number) => {
      const end = performance.now() + ms;
      return () => performance.now() >= end;
    };

    /** Records `events` at once and resolves with the burst's figures once every one is delivered. */
    const burst = async (): Promise<{ done: () => boolean; finished: Promise<BurstStats> }> => {
      const target = delivered + events;
      const attempts0 = attempts;
      const failed0 = failedAttempts;
      const t = performance.now();
      await db.transaction().execute(async (trx) => {
        const at = new Date();
        for (let i = 0; i < events; i++) await recordEvent(trx, { workspaceId: WS, type: 'client.score_changed', data: DATA, occurredAt: at });
      });
      const committed = performance.now();
      dispatcher.nudge();
      const finished = (async () => {
        while (delivered < target) await new Promise((r) => setTimeout(r, 5));
        return {
          events,
          recordMs: committed - t,
          deliverMs: performance.now() - committed,
          attempts: attempts - attempts0,
          failedAttempts: failedAttempts - failed0,
        };
      })();
      return { done: () => delivered >= target, finished };
    };

    // Warm-up (JIT, statement caches, the agent's connections).
    await loop(read, timeUp(300));
    await loop(ingest, () => true, 2);
    const warm = await burst();
    await warm.finished;

    const readBefore = await loop(read, timeUp(readMs));
    const ingestBefore = await loop(ingest, () => true, ingests);

    const b1 = await burst();
    const readDuring = await loop(read, b1.done);
    const readBurst = await b1.finished;

    const b2 = await burst();
    const ingestDuring = await loop(ingest, b2.done);
    const ingestBurst = await b2.finished;

    const readAfter = await loop(read, timeUp(readMs));
    const ingestAfter = await loop(ingest, () => true, ingests);

    // The same POSTs, signed the same way, without the queue: the floor of what delivery can cost here.
    const agent = new http.Agent({ keepAlive: true, maxSockets: a.concurrency ?? 8 });
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const sample = {
      id: 'evt_bare',
      type: 'client.score_changed',
      version: 1,
      occurredAt: new Date().toISOString(),
      workspaceId: WS,
      data: DATA,
    } as AnyEngineEvent;
    const post = (i: number) =>
      new Promise<void>((resolve, reject) => {
        const event = { ...sample, id: `evt_bare${i}` };
        const body = JSON.stringify(event);
        const req = http.request(`${receiver.url}/hooks`, {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...signatureHeaders(event, body, [secret], new Date()) },
        });
        req.on('error', reject);
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        req.end(body);
      });
    const bareStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: a.concurrency ?? 8 }, async () => {
        while (next < events) await post(next++);
      }),
    );
    const barePostMs = performance.now() - bareStart;
    agent.destroy();

    const got = await getJson<{ requests: number; distinctIds: number }>(`${receiver.url}/stats`);
    // The warm-up burst and the two measured ones, then the bare POSTs (all distinct ids).
    return {
      read: { before: readBefore, during: readDuring, after: readAfter },
      ingest: { before: ingestBefore, during: ingestDuring, after: ingestAfter },
      bursts: { read: readBurst, ingest: ingestBurst },
      barePostMs,
      received: { requests: got.requests - events, distinctIds: got.distinctIds - events },
      messagesPerIngest,
    };
  } finally {
    await dispatcher.stop(1000);
    await engine.close();
    receiver.child.kill();
    rmSync(boxes, { recursive: true, force: true });
  }
}
