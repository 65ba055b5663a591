import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { Engine, KeyUsageTracker } from '@chs/core';
import type { RunnerConfig } from '../config.js';
import type { Mailer } from '../notify/mailer.js';
import type { AppMetrics } from './metrics.js';
import type { RateLimitStore } from './rate-limit.js';

/** Everything the HTTP app needs, injected by whoever builds it (serve command, tests). */
export interface AppDeps {
  engine: Engine;
  config: RunnerConfig;
  /** Logger (redaction is the caller's job then). Default: pino at `config.logLevel`, keys and tokens redacted. */
  logger?: FastifyBaseLogger;
  /** Mail transport. Default: SMTP when `config.smtpUrl` is set, else `.eml` files in `<dataDir>/outbox`. */
  mailer?: Mailer;
  /** Rate-limit counters. Default: in memory (one process; pass a shared store for several runners). */
  rateLimitStore?: RateLimitStore;
  /** Records keys' `lastUsedAt`. Default: a tracker on the engine's store, flushed every 30 s and on close. */
  keyUsage?: KeyUsageTracker;
  /** The in-process job worker, woken right after a route queues a job. Default none: queued jobs wait for the next poll of whichever runner works the queue. */
  jobs?: { nudge(): void };
  /** The in-process webhook dispatcher, woken right after a route queues a delivery (a test event, a redelivery). Default none: it waits for the next poll of whichever runner delivers. */
  webhooks?: { nudge(): void };
  /** Prometheus registry and recorders. Default: a new one (`chs serve` passes its own to serve CHS_METRICS_PORT). */
  metrics?: AppMetrics;
  /** A built dashboard (dashboard/dist) to serve at `/` (dashboard.ts). Default none: the API only. */
  dashboardDir?: string;
  /** More route modules, registered under `/api` after the standard ones (tests, extensions). Default none. */
  extraRoutes?: RouteModule[];
}

/** Who is calling: set by the auth hook on every /api request that passed it. */
export interface AuthContext {
  /** The key's workspace (canonical, lower-cased); equal to the request's `workspaceId`. */
  workspaceId: string;
  keyId: string;
  /** The user whose permissions the key carries. */
  userId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
    /**
     * The store's data version read once as the request arrived (`Store.dataVersion()`; undefined
     * on PostgreSQL): what the key check and kept answers are matched against for this request.
     */
    dataVersion: string | undefined;
  }
  interface FastifyContextConfig {
    /** A route that needs no API key and no workspaceId (`/api/openapi.json`, the probes). Default false. */
    public?: boolean;
    /** A probe (`/api/health`, `/api/ready`, `/metrics`): no key, not rate-limited, no headers. Default false. */
    probe?: boolean;
  }
}

/**
 * A route module: a Fastify plugin built from the app's dependencies, registered under `/api`.
 * Routes are thin: schema (TypeBox), call the engine, shape the response. Auth (API key and the
 * `workspaceId` check) has already run: read `request.auth.workspaceId`.
 */
export type RouteModule = (deps: AppDeps) => FastifyPluginAsync;
