/**
 * Prometheus metrics (prom-client): `GET /metrics`, outside `/api`, on the API's port or on
 * `CHS_METRICS_PORT`; with `CHS_METRICS_TOKEN` set it needs `Authorization: Bearer <token>`.
 * A registry per app (several apps in one process, as tests make, do not collide).
 *
 * - `http_request_duration_seconds{method,route,status_code}`: every answer, by route pattern
 *   (`/api/clients/:clientId`, never the raw URL: bounded cardinality); unknown paths are `unmatched`.
 * - `chs_rate_limited_total`: requests refused with 429.
 * - `chs_jobs{kind,state}` and `chs_job_queue_depth`: read from the store at each scrape.
 * - the process and Node.js defaults (CPU, memory, event-loop lag, GC).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { countJobsByState, type Engine } from '@chs/core';
import { mappingOf } from './errors.js';
import { RUNNER_VERSION } from '../version.js';

export const METRICS_PATH = '/metrics';

export interface AppMetrics {
  readonly registry: Registry;
  /** Records one answer (the app's onResponse hook). */
  observe(request: FastifyRequest, reply: FastifyReply): void;
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
  return {
    registry,
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
