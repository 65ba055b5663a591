/**
 * Test support for the events tests: a webhook receiver as a receiving service would run one (a
 * node:http server on 127.0.0.1 that verifies every delivery with the `standardwebhooks` package,
 * never our signing code), a fake Slack incoming webhook, and a workspace with a store and key.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import type { Db } from '../store/database.js';
import type { TestDialect } from '../store/testing.js';
import { until } from '../test-support/until.js';
import type { Logger } from '../util/logger.js';
import { SecretKey } from '../integrations/secrets.js';
import { EVENT_TYPES, eventSchema, isEventType, type AnyEngineEvent, type EventData, type EventType, type SubscribableEventType } from './catalogue.js';
import { recordEvent } from './outbox.js';
import { listDeliveries, type Delivery } from './deliveries.js';
import { createEndpoint, type WebhookEndpoint } from './endpoints.js';
import { WebhookDispatcher, type DispatcherOptions } from './dispatcher.js';

/** One request the server got. */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Date.now() when the whole body was in. */
  at: number;
  /** Date.now() when the answer was written (a delayed answer's timer can fire a millisecond before its delay, as Date.now() counts). */
  answeredAt?: number;
}

/** How to answer: a status (with headers, a body, a delay), or `hang` (never answer). */
type Reply = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

export interface TestServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  readonly requests: Received[];
  /** What to answer the nth request (0-based, counted over the server's life). Default 200 `ok`. */
  reply: (r: Received, n: number) => Reply;
  /** Stops listening (the port is closed: connections are refused) and ends open connections. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A local HTTP server that records every request and answers as `reply` says. */
export async function startServer(reply: TestServer['reply'] = () => ({ status: 200, body: 'ok' })): Promise<TestServer> {
  const requests: Received[] = [];
  const sockets = new Set<Socket>();
  let port = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const n = requests.length;
      requests.push(r);
      const answer = self.reply(r, n);
      if (answer === 'hang') return;
      const send = () => {
        r.answeredAt = Date.now();
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  await listen();
  const self: TestServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    reply,
    down,
    up: listen,
    close: async () => {
      if (server.listening) await down();
    },
  };
  return self;
}

/** Verifies a received delivery as a receiver does (`standardwebhooks`); returns the parsed payload or throws. */
function verified(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, r.headers);
}

/** True when `secret` verifies `r`. */
export function verifies(secret: string, r: Received): boolean {
  try {
    verified(secret, r);
    return true;
  } catch {
    return false;
  }
}

/** How many times each `webhook-id` arrived. */
export function countById(requests: readonly Received[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of requests) {
    const id = r.headers['webhook-id'] ?? '';
    m.set(id, (m.get(id) ?? 0) + 1);
  }
  return m;
}

/** A fresh key that seals endpoint secrets (as the store's secret.key would). */
export function testSecretKey(): SecretKey {
  return SecretKey.fromBytes(randomBytes(32));
}

/** Adds a workspace row. */
export async function addWorkspace(db: Db, id: string, name = id): Promise<void> {
  const at = new Date().toISOString();
  await db.insertInto('workspaces').values({ id, name, plan: 'free', billing_status: 'active', created_at: at, updated_at: at }).execute();
}

/** A client as the events name it. */
export const CLIENT = { id: 'cl_globex', name: 'Globex', domain: 'globex.test', mrr: 1200, renewalDate: '2026-03-01', csmOwner: 'dana@acme.test' };

const JOB = {
  id: 'job_1',
  kind: 'sync',
  source: 'google',
  itemsProcessed: 120,
  itemsAdded: 100,
  itemsUpdated: 15,
  itemsSkipped: 5,
  errorsCount: 0,
  startedAt: '2026-11-20T09:00:00.000Z',
  completedAt: '2026-11-20T09:02:00.000Z',
};

/** A valid `data` of every type an endpoint can choose. */
export const SAMPLES: { [T in SubscribableEventType]: EventData<T> } = {
  'client.risk_entered': {
    client: CLIENT,
    score: 38,
    previousScore: 61,
    threshold: 50,
    reason: 'sentiment_drop',
    reasonText: 'Sentiment in their mail fell sharply over the last 30 days.',
  },
  'client.risk_cleared': {
    client: CLIENT,
    score: 64,
    previousScore: 38,
    threshold: 50,
    reason: 'recovered',
    reasonText: 'They answer again and sound content.',
  },
  'client.score_changed': {
    client: CLIENT,
    score: 49,
    previousScore: 61,
    threshold: 50,
    reason: 'slower_replies',
    reasonText: 'Replies take three times as long.',
    delta: -12,
    minDelta: 10,
  },
  'client.churn_intent': {
    client: CLIENT,
    score: 38,
    text: 'We are evaluating other vendors and may not renew in March.',
    interactionIds: ['int_1', 'int_2'],
    lastMessageAt: '2026-11-20T09:30:00.000Z',
  },
  'client.escalation': {
    client: CLIENT,
    score: 41,
    text: 'Third chaser in a week, now with their VP in copy.',
    interactionIds: ['int_3'],
    lastMessageAt: '2026-11-21T10:00:00.000Z',
  },
  'client.suggested': { client: { id: 'cl_initech', name: 'Initech', domain: 'initech.test' }, discovery: 'cc_only' },
  'job.completed': { job: JOB },
  'job.failed': { job: { ...JOB, completedAt: null }, error: 'the provider refused the token' },
  'integration.needs_reauth': { provider: 'google', account: 'rep@acme.test', reason: 'invalid_grant' },
};

// ── what a receiver checks ─────────────────────────────────────────────────────────────────────
// No format plugin: the published schemas are meant to be read by any validator as they are.
const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<EventType, ValidateFunction>();

/**
 * What a receiving service does with a request: verifies it with `secret` (standardwebhooks),
 * validates the payload against its type's published JSON Schema (ajv), checks `webhook-id` is the
 * payload's id, and returns the payload.
 */
export function accept(secret: string, r: Received): AnyEngineEvent {
  const payload = verified(secret, r) as { id?: unknown; type?: unknown };
  const type = payload.type;
  if (!isEventType(type)) throw new Error(`unknown event type ${String(type)}`);
  let validate = validators.get(type);
  if (!validate) {
    // The schema as docs/events.md publishes it: plain JSON.
    validate = ajv.compile(JSON.parse(JSON.stringify(eventSchema(type))) as object);
    validators.set(type, validate);
  }
  expect(validate(payload), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
  expect(r.headers['webhook-id']).toBe(payload.id);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  return payload as AnyEngineEvent;
}

// ── a workspace with its store, servers and dispatchers ───────────────────────────────────────
/** The workspace of the delivery tests. */
export const WS = 'acme.test';
/** Receivers listen on 127.0.0.1: their endpoints are made as an operator allowing private targets would. */
export const LOCAL = { allowPrivate: true } as const;

/** Every line logged, as JSON (to check that no secret is ever in one). */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (obj: object, msg?: string) => void lines.push(JSON.stringify({ level, msg, ...obj }));
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export interface Ctx {
  db: Db;
  key: SecretKey;
  logger: ReturnType<typeof recordingLogger>;
  /** A receiver on 127.0.0.1, closed with the context. */
  server(reply?: TestServer['reply']): Promise<TestServer>;
  /** A dispatcher allowed to reach 127.0.0.1, with a short poll and a tiny retry schedule; stopped with the context. */
  dispatcher(o?: Partial<DispatcherOptions>): WebhookDispatcher;
  /** An endpoint of the workspace (standard, every event type unless told). */
  endpoint(url: string, events?: readonly string[]): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  /** An event of `type` with its sample data, recorded in a transaction of its own. */
  record(type: SubscribableEventType): Promise<AnyEngineEvent>;
  deliveries(endpointId: string): Promise<Delivery[]>;
  /** The endpoint's one delivery. */
  only(endpointId: string): Promise<Delivery>;
  close(): Promise<void>;
}

/** A fresh store of `dialect` with the workspace. */
export async function setUp(dialect: TestDialect): Promise<Ctx> {
  const store = await dialect.open();
  const db = store.db;
  await addWorkspace(db, WS);
  const servers: TestServer[] = [];
  const dispatchers: WebhookDispatcher[] = [];
  const key = testSecretKey();
  const logger = recordingLogger();
  const deliveries = async (endpointId: string) => (await listDeliveries(db, { workspaceId: WS, endpointId, limit: 1000 })).deliveries;
  return {
    db,
    key,
    logger,
    async server(reply) {
      const s = await startServer(reply);
      servers.push(s);
      return s;
    },
    dispatcher(o = {}) {
      const d = new WebhookDispatcher({ db, secretKey: key, logger, allowPrivate: true, pollMs: 20, timeoutMs: 5000, retryScheduleMs: [50, 50, 50], ...o });
      dispatchers.push(d);
      return d;
    },
    endpoint: (url, events = EVENT_TYPES) => createEndpoint(db, key, { workspaceId: WS, url, events }, LOCAL),
    async record(type) {
      const e = await db.transaction().execute((trx) => recordEvent(trx, { workspaceId: WS, type, data: SAMPLES[type], occurredAt: new Date() }));
      if (!e) throw new Error('not recorded');
      return e;
    },
    deliveries,
    async only(endpointId) {
      const all = await deliveries(endpointId);
      expect(all).toHaveLength(1);
      return all[0]!;
    },
    async close() {
      await Promise.all(dispatchers.map((d) => d.stop(0)));
      await Promise.all(servers.map((s) => s.close()));
      await store.close();
    },
  };
}

/** Drains until `pred` holds (each pass sends what is due now), for at most `ms`. */
export async function drainUntil(d: WebhookDispatcher, pred: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  await until(async () => {
    await d.drain();
    return pred();
  }, ms);
}
