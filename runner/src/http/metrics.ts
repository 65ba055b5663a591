/**
 * Prometheus metrics (prom-client): `GET /metrics`, outside `/api`, on the API's port or on
 * `CHS_METRICS_PORT`; with `CHS_METRICS_TOKEN` set it needs `Authorization: Bearer <token>`.
 * A registry per app (several apps in one process, as tests make, do not collide).
 *
 * - `http_request_duration_seconds{method,route,status_code}`: every answer, by route pattern
 *   (`/api/clients/:clientId`, never the raw URL: bounded cardinality); unknown paths are `unmatched`.
 * - `chs_rate_limited_total`: requests refused with 429.
 * - `chs_jobs{kind,state}` and `chs_job_queue_depth`: read from the store at each scrape.
 * - `chs_webhook_deliveries_total{kind,outcome}`, `chs_webhook_delivery_duration_seconds{kind}`
 *   and `chs_webhook_delivery_lag_seconds{kind}` (the event's recording → its delivery): this
 *   runner's delivery attempts (`webhookAttempt`, the dispatcher's onAttempt);
 *   `chs_webhook_backlog{state}` and `chs_webhook_oldest_due_seconds`: the store's queue, read at each scrape.
 * - the process and Node.js defaults (CPU, memory, event-loop lag, GC).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { countJobsByState, deliveryBacklog, type AttemptReport, type Engine } from '@chs/core';
import { mappingOf } from './errors.js';
import { RUNNER_VERSION } from '../version.js';

export const METRICS_PATH = '/metrics';

export interface AppMetrics {
  readonly registry: Registry;
  /** Records one answer (the app's onResponse hook). */
  observe(request: FastifyRequest, reply: FastifyReply): void;
  /** Records one webhook delivery attempt (the dispatcher's `onAttempt`). */
  webhookAttempt(report: AttemptReport): void;
}

export function createMetrics(engine: Engine): AppMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // A few Node.js defaults are gauges named `…_total`, which Prometheus' own lint (`promtool check
  // metrics`) refuses: a `_total` suffix promises a counter. Their `_total`-less twins stay.
  for (const m of registry.getMetricsAsArray()) {
    if (m.name.endsWith('_total') && !(m instanceof Counter)) registry.removeSingleMetric(m.name);
  }
  new Gauge({ name: 'chs_info', help: 'The runner version and database dialect', labelNames: ['version', 'dialect'], registers: [registry] }).set(
    { version: RUNNER_VERSION, dialect: engine.store.dialect },
    1,
  );
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const rateLimited = new Counter({ name: 'chs_rate_limited_total', help: 'Requests refused with 429 by the rate limits', registers: [registry] });
  // Both job gauges are read at each scrape from one grouped query, shared by their collectors
  // (prom-client asks every metric at once).
  let scrape: Promise<void> | undefined;
  const refresh = (): Promise<void> =>
    (scrape ??= countJobsByState(engine.store.db)
      .then((counts) => {
        jobs.reset();
        let waiting = 0;
        for (const c of counts) {
          jobs.set({ kind: c.kind, state: c.state }, c.count);
          if (c.state === 'queued' || c.state === 'parked') waiting += c.count;
        }
        queue.set(waiting);
      })
      .finally(() => {
        scrape = undefined;
      }));
  const jobs = new Gauge({
    name: 'chs_jobs',
    help: 'Jobs in the store by kind and state',
    labelNames: ['kind', 'state'],
    registers: [registry],
    collect: refresh,
  });
  const queue = new Gauge({
    name: 'chs_job_queue_depth',
    help: 'Jobs waiting to run (queued, or parked until a rate limit resets)',
    registers: [registry],
    collect: refresh,
  });
  const deliveries = new Counter({
    name: 'chs_webhook_deliveries_total',
    help: 'Webhook delivery attempts by this runner, by endpoint kind and outcome (delivered; retry: failed, will be tried again; failed: given up)',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });
  const attemptDuration = new Histogram({
    name: 'chs_webhook_delivery_duration_seconds',
    help: 'Duration of one webhook delivery attempt in seconds (connection to answer), by endpoint kind',
    labelNames: ['kind'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    registers: [registry],
  });
  const lag = new Histogram({
    name: 'chs_webhook_delivery_lag_seconds',
    help: 'From an event being recorded to its successful delivery, in seconds (retries included), by endpoint kind',
    labelNames: ['kind'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21_600, 86_400, 259_200],
    registers: [registry],
  });
  let backlogScrape: Promise<void> | undefined;
  const refreshBacklog = (): Promise<void> =>
    (backlogScrape ??= deliveryBacklog(engine.store.db)
      .then((b) => {
        backlog.set({ state: 'pending' }, b.pending);
        backlog.set({ state: 'due' }, b.due);
        // The earliest pending delivery's time: in the past, it is how long the oldest due one has waited.
        oldestDue.set(b.oldestDueAt ? Math.max(0, (Date.now() - Date.parse(b.oldestDueAt)) / 1000) : 0);
      })
      .finally(() => {
        backlogScrape = undefined;
      }));
  const backlog = new Gauge({
    name: 'chs_webhook_backlog',
    help: 'Webhook deliveries waiting in the store: pending (due now or retrying later) and due (their time has come)',
    labelNames: ['state'],
    registers: [registry],
    collect: refreshBacklog,
  });
  const oldestDue = new Gauge({
    name: 'chs_webhook_oldest_due_seconds',
    help: 'How long the oldest due webhook delivery has waited, in seconds (0 when none is due)',
    registers: [registry],
    collect: refreshBacklog,
  });
  return {
    registry,
    webhookAttempt(report) {
      deliveries.inc({ kind: report.kind, outcome: report.outcome });
      attemptDuration.observe({ kind: report.kind }, report.durationMs / 1000);
      if (report.outcome === 'delivered') lag.observe({ kind: report.kind }, Math.max(0, report.lagMs) / 1000);
    },
    observe(request, reply) {
      const route = request.routeOptions.url ?? 'unmatched';
      duration.observe({ method: request.method, route: request.is404 ? 'unmatched' : route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
      if (reply.statusCode === 429) rateLimited.inc();
    },
  };
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Adds the recording hook to the API app. */
export function recordMetrics(app: FastifyInstance, metrics: AppMetrics): void {
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    metrics.observe(request, reply);
    done();
  });
}

/** Registers `GET /metrics` on `app` (the API's, or a server of its own on CHS_METRICS_PORT). */
export function metricsRoute(app: FastifyInstance, metrics: AppMetrics, token: string | undefined): void {
  const expected = token === undefined ? undefined : digest(token);
  app.get(METRICS_PATH, { config: { public: true, probe: true }, schema: { hide: true } }, async (request, reply) => {
    if (expected) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (!m?.[1] || !timingSafeEqual(digest(m[1]), expected)) {
        const { status } = mappingOf('AUTH_INVALID_KEY');
        return reply
          .code(status)
          .header('www-authenticate', 'Bearer')
          .send({ error: 'Missing or invalid metrics token: send "Authorization: Bearer <CHS_METRICS_TOKEN>"', code: 'AUTH_INVALID_KEY', status });
      }
    }
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}

/** A server that answers only `GET /metrics` (CHS_METRICS_PORT). */
export async function buildMetricsServer(metrics: AppMetrics, token: string | undefined): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  metricsRoute(app, metrics, token);
  app.setNotFoundHandler((_request, reply) => {
    const { status } = mappingOf('NOT_FOUND');
    void reply.code(status).send({ error: `Only GET ${METRICS_PATH} is served on this port`, code: 'NOT_FOUND', status });
  });
  return app;
}
