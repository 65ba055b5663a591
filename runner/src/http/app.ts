/**
 * The HTTP app: Fastify under `/api`, TypeBox schemas for validation and for the OpenAPI 3.1
 * document, API-key auth, rate limits and one error body. Built from injected dependencies;
 * listening is the caller's business (`chs serve`, tests).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import swagger from '@fastify/swagger';
import { ApiKeyVerifier, KeyUsageTracker } from '@chs/core';
import { DEFAULT_HTTP_TIMEOUTS } from '../config.js';
import { createMailer } from '../notify/mailer.js';
import { registerAuth, type RequestMeter } from './auth.js';
import { BODY_LIMIT, registerJsonBody } from './body.js';
import { clientErrorHandler } from './client-errors.js';
import { registerDashboard } from './dashboard.js';
import { errorHandler, HttpError, notFoundHandler } from './errors.js';
import { createLogger } from './logging.js';
import { createMetrics, metricsRoute, recordMetrics } from './metrics.js';
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit.js';
import { routeModules } from './routes/index.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { notificationRoutes } from './routes/notifications.js';
import { probeRoutes } from './routes/probes.js';
import { settingsRoutes } from './routes/settings.js';
import { OAUTH_CALLBACK_PATHS } from './routes/integrations-connect.js';
import { ErrorBodySchema } from './schemas.js';
import type { AppDeps, RouteModule } from './types.js';
import { formatValidationErrors, validatorCompiler } from './validation.js';

export const API_PREFIX = '/api';
/**
 * Longest path segment the router takes as a parameter; longer is 414 URI_TOO_LONG. Above every
 * parameter schema's maxLength (200), so a parameter over its documented length is a 400.
 */
export const MAX_PARAM_LENGTH = 1000;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The routes this module owns (settings, keys, notifications), before the shared `routeModules`. */
const foundationRoutes: RouteModule[] = [settingsRoutes, apiKeyRoutes];

/** Trust the nearest `n` proxies (a hop count for CHS_TRUST_PROXY). */
const hopsTrusted =
  (n: number) =>
  (_address: string, hop: number): boolean =>
    hop < n;

/** The given parts of a route schema with the members that have a default dropped from `required`. */
function optionalDefaults(schema: Record<string, unknown>, parts: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    const p = schema[part] as { required?: string[]; properties?: Record<string, { default?: unknown }> } | undefined;
    if (!p?.required || !p.properties) continue;
    const props = p.properties;
    out[part] = { ...p, required: p.required.filter((k) => props[k]?.default === undefined) };
  }
  return out;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { engine, config } = deps;
  const ownsUsage = deps.keyUsage === undefined;
  const keyUsage = deps.keyUsage ?? new KeyUsageTracker(engine.store.db, { logger: engine.logger });
  const ownsMailer = deps.mailer === undefined;
  const mailer = deps.mailer ?? createMailer({ ...(config.smtpUrl ? { smtpUrl: config.smtpUrl } : {}), outboxDir: join(config.dataDir, 'outbox') });
  const rateLimitStore: RateLimitStore = deps.rateLimitStore ?? new MemoryRateLimitStore();
  const metrics = deps.metrics ?? createMetrics(engine);
  const full = { ...deps, keyUsage, mailer, rateLimitStore, metrics };
  const timeouts = config.http ?? DEFAULT_HTTP_TIMEOUTS;
  // Set once the auth hooks are registered; router errors (below) are counted with it.
  // eslint-disable-next-line prefer-const -- set once below, after the router's error handler (which reads it) is created
  let meter: RequestMeter | undefined;
  const logger = deps.logger ?? createLogger({ level: config.logLevel });

  const app = Fastify({
    loggerInstance: logger,
    // A caller's X-Request-Id is kept (tracing across services) when it is sane; otherwise a UUID.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: BODY_LIMIT,
    // An OAuth callback's URL carries an authorization code: its request lines are not logged
    // (the route logs its outcome without it).
    logController: new LogController({
      disableRequestLogging: (req) => {
        const url = (req as { url?: string }).url ?? '';
        return OAUTH_CALLBACK_PATHS.some((path) => url.startsWith(path));
      },
    }),
    // Behind a balancer, the client address (per-IP limits, logs) comes from X-Forwarded-For.
    ...(config.trustProxy === undefined ? {} : { trustProxy: typeof config.trustProxy === 'number' ? hopsTrusted(config.trustProxy) : config.trustProxy }),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    requestTimeout: timeouts.requestTimeoutMs,
    connectionTimeout: timeouts.connectionTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // Node checks the request and headers timeouts on this tick (default 30 s, too coarse for them).
    http: {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
    },
    // Fastify's own 503-while-closing answers a body of another shape; ours (below) keeps the contract.
    return503OnClosing: false,
    schemaErrorFormatter: formatValidationErrors,
    // Malformed URLs (`/api/%zz`) and over-long parameters are refused by the router before any
    // hook: the same error body, request id and counted rate-limit headers as everything else.
    frameworkErrors: (err, request, reply) => {
      void reply.header('x-request-id', request.id);
      (meter ? meter(request, reply) : Promise.resolve(null)).then(
        () => errorHandler(err, request, reply),
        (refused: unknown) => errorHandler(refused, request, reply),
      );
    },
    // Requests Node's parser refuses (headers over 16 KiB, timeouts, not HTTP): the same answer.
    clientErrorHandler: clientErrorHandler({ store: rateLimitStore, limits: config.rateLimits, log: logger }),
  });
  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the answer (and tests check it against them); they never reshape it.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler(errorHandler);

  // JSON only, depth-checked before parsing; an empty body with a JSON content type is no body.
  registerJsonBody(app);

  // Hooks with no asynchronous work take Fastify's callback form: no promise per request.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  recordMetrics(app, metrics);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Customer Health Service API',
        version: '0.1.0',
        description: 'Every path is under /api. Every error body is {error, code, status}; the codes are listed in docs/errors.md.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Paths carry the /api prefix; `/` is the host that served this document.
      servers: [
        { url: '/', description: 'The server this document came from' },
        { url: 'http://127.0.0.1:8080', description: '`chs serve` with its defaults' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer sk-…' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    },
    // Every route documents the shared error body, without each route repeating it; a member with
    // a default is optional to the caller, whatever its TypeBox declaration says.
    transform: ({ schema, url }) => {
      const s = (schema ?? {}) as Record<string, unknown>;
      const response = { ...((s.response as Record<string, unknown> | undefined) ?? {}) };
      response['4xx'] ??= { ...ErrorBodySchema, description: 'Error (see docs/errors.md)' };
      response['5xx'] ??= { ...ErrorBodySchema, description: 'Server error' };
      // A member with a default may be left out (validation fills it in): not required in the document.
      const documented = { ...s, response, ...optionalDefaults(s, ['querystring', 'body']) };
      return { schema: documented, url };
    },
  });

  meter = registerAuth(app, {
    keys: new ApiKeyVerifier(engine.store),
    dataVersion: () => engine.store.dataVersion('turn'),
    usage: keyUsage,
    limits: config.rateLimits,
    store: rateLimitStore,
  });

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // After auth and rate limiting, so the 503 carries the X-RateLimit-* headers like every response.
  app.addHook('onRequest', (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (!closing) return done();
    // Requests still arriving on kept-alive connections while draining: send the client elsewhere.
    void reply.header('connection', 'close');
    done(new HttpError('SERVICE_UNAVAILABLE'));
  });

  app.get(`${API_PREFIX}/openapi.json`, { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  await app.register(probeRoutes(full, rateLimitStore.ping ? () => rateLimitStore.ping!() : undefined), { prefix: API_PREFIX });
  // Outside /api, as Prometheus expects; on a port of its own when CHS_METRICS_PORT is set (`chs serve`).
  if (config.metricsPort === undefined) metricsRoute(app, metrics, config.metricsToken);

  for (const mod of foundationRoutes) await app.register(mod(full), { prefix: API_PREFIX });
  await app.register(notificationRoutes(full), { prefix: API_PREFIX });
  for (const mod of routeModules) await app.register(mod(full), { prefix: API_PREFIX });
  for (const mod of deps.extraRoutes ?? []) await app.register(mod(full), { prefix: API_PREFIX });
  // Unknown paths: the JSON 404. With the dashboard, its files at `/` (after the hooks, so they
  // are counted and carry the headers), and a browser's GET of a client route gets its page.
  app.setNotFoundHandler(deps.dashboardDir ? await registerDashboard(app, deps.dashboardDir, notFoundHandler) : notFoundHandler);

  if (ownsUsage) keyUsage.start();
  app.addHook('onClose', async () => {
    // Last uses still in memory are written before the database goes away.
    if (ownsUsage) await keyUsage.stop();
    if (ownsMailer) mailer.close();
    await rateLimitStore.close?.();
  });
  return app;
}
