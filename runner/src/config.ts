/**
 * The runner's one typed configuration, parsed once from the environment (and CLI flags) at
 * start-up. The core reads no environment: everything it needs is passed from here.
 */
import { dirname, resolve } from 'node:path';
import {
  DEFAULT_MAX_ACTIVE_KEYS,
  DEFAULT_PARSE_BUDGET_MS,
  DEFAULT_RETRY_SCHEDULE_MS,
  isPostgresUrl,
  isValidEmail,
  MAX_MESSAGE_BYTES,
  type FaultPoint,
  type MailLimits,
} from '@chs/core';

export interface RateLimitConfig {
  /** Per key, per minute. Default 100. */
  perKeyMinute: number;
  /** Per key, per hour. Default 1000. */
  perKeyHour: number;
  /**
   * Per workspace (all its keys together), per minute, so minting more keys does not multiply the
   * budget. Default 300.
   */
  perWorkspaceMinute: number;
  /** Per workspace, per day. Default 10000. */
  perWorkspaceDay: number;
}

export interface ProviderUrls {
  googleApi?: string;
  googleToken?: string;
  /** Google's consent endpoint (CHS_GOOGLE_AUTH_URL) for `chs connect google` sign-in. */
  googleAuth?: string;
  /** Google's revoke endpoint (CHS_GOOGLE_REVOKE_URL), called by `chs disconnect google` and DELETE /integrations/google. */
  googleRevoke?: string;
  hubspotApi?: string;
  /** HubSpot's install screen (CHS_HUBSPOT_AUTH_URL) for a public app's install. Default `https://app.hubspot.com/oauth/authorize`. */
  hubspotAuth?: string;
  intercomApi?: string;
  /** Gmail's per-user quota spent by the client-side limiter (CHS_GOOGLE_QUOTA_UNITS_PER_MINUTE; 0 = off). Default 15,000. */
  googleQuotaPerMinute?: number;
}

/** The job runner inside `chs serve` (CHS_JOB_* / CHS_SCHEDULER_*). */
export interface JobsConfig {
  /** Jobs run at once by one runner (CHS_JOB_CONCURRENCY). Default 2. */
  concurrency: number;
  /** Lease of a claimed job; heartbeats every third of it (CHS_JOB_LEASE_MS). Default 30000. */
  leaseMs: number;
  /** Idle poll for queued work (CHS_JOB_POLL_MS). Default 1000. */
  pollMs: number;
  /** Sweep of expired leases (CHS_JOB_SWEEP_MS). Default: the lease length, at most 10000. */
  sweepMs: number;
  /** How long SIGTERM waits for running jobs to checkpoint and release (CHS_JOB_SHUTDOWN_MS). Default 10000. */
  shutdownMs: number;
  /** Scheduler tick (CHS_SCHEDULER_TICK_MS). Default 60000. */
  schedulerTickMs: number;
  /** CHS_SCHEDULER=off turns the scheduler off (tests, a runner that only works the queue). Default on. */
  schedulerEnabled: boolean;
}

export const DEFAULT_JOBS_CONFIG: JobsConfig = Object.freeze({
  concurrency: 2,
  leaseMs: 30_000,
  pollMs: 1000,
  sweepMs: 10_000,
  shutdownMs: 10_000,
  schedulerTickMs: 60_000,
  schedulerEnabled: true,
});

/** Webhook delivery inside `chs serve` and the targets endpoints may have (CHS_WEBHOOK_*, CHS_WEBHOOKS_ALLOW_*; docs/events.md). */
export interface WebhooksConfig {
  /**
   * Endpoints may point at loopback, private, link-local and other non-public addresses
   * (CHS_WEBHOOKS_ALLOW_PRIVATE=1: intranets, tests); implies `allowHttp`. Default false.
   */
  allowPrivate: boolean;
  /** Endpoints may use `http:` (CHS_WEBHOOKS_ALLOW_HTTP=1). Default false (true with allowPrivate). */
  allowHttp: boolean;
  /** Time budget of one delivery attempt (CHS_WEBHOOK_TIMEOUT_MS). Default 15000. */
  timeoutMs: number;
  /** Attempts one runner makes at once (CHS_WEBHOOK_CONCURRENCY). Default 8. */
  concurrency: number;
  /** Idle poll for due deliveries (CHS_WEBHOOK_POLL_MS). Default 1000. */
  pollMs: number;
  /** Delay before each retry, comma-separated (CHS_WEBHOOK_RETRY_SCHEDULE_MS). Default the core's: 5 s … 24 h, about three days. */
  retryScheduleMs: readonly number[];
  /** An endpoint failing this long without a success is disabled and its admins e-mailed (CHS_WEBHOOK_DISABLE_AFTER_MS). Default 5 days. */
  disableAfterMs: number;
}

export const DEFAULT_WEBHOOKS_CONFIG: WebhooksConfig = Object.freeze({
  allowPrivate: false,
  allowHttp: false,
  timeoutMs: 15_000,
  concurrency: 8,
  pollMs: 1000,
  retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
  disableAfterMs: 5 * 86_400_000,
});

/** Timeouts of the HTTP server (CHS_HTTP_*_MS); see docs/api.md#timeouts. */
export interface HttpTimeouts {
  /** The whole request, headers and body, must arrive within this (CHS_HTTP_REQUEST_TIMEOUT_MS); else 408. Default 30000. */
  requestTimeoutMs: number;
  /** The request headers must arrive within this, at most the request timeout (CHS_HTTP_HEADERS_TIMEOUT_MS); else 408. Default 10000. */
  headersTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed (CHS_HTTP_CONNECTION_TIMEOUT_MS). Default 120000. */
  connectionTimeoutMs: number;
  /** An idle kept-alive connection is closed after this (CHS_HTTP_KEEP_ALIVE_TIMEOUT_MS). Default 72000, above common load balancers' 60 s. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = Object.freeze({
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  connectionTimeoutMs: 120_000,
  keepAliveTimeoutMs: 72_000,
});

export interface RunnerConfig {
  /** SQLite path or postgres:// URL. Default `./data/chs.db`. */
  databaseUrl: string;
  /** Folder for the outbox, the generated secret key, etc. Default: the SQLite file's folder, else `./data`. */
  dataDir: string;
  /** "Now" for the data (CHS_NOW), or undefined for the wall clock. */
  now: string | undefined;
  secretKey: string | undefined;
  smtpUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: string;
  rateLimits: RateLimitConfig;
  /** Active API keys a workspace may hold (CHS_MAX_API_KEYS). Default 20 (DEFAULT_MAX_ACTIVE_KEYS). */
  maxApiKeys?: number;
  /**
   * Senders allowed beyond each workspace's own domains (CHS_EMAIL_FROM_ALLOWLIST): lower-cased
   * domains (subdomains included) or whole addresses. Default none.
   */
  emailFromAllowList?: readonly string[];
  providers: ProviderUrls;
  /**
   * Where people reach this service from a browser (CHS_PUBLIC_URL), e.g. `https://health.example.com`,
   * no trailing slash: Google (HubSpot) sends the browser back to `<publicUrl>/api/integrations/google/callback`
   * (`…/hubspot/callback`), and the callback then sends it on to `<publicUrl>/`. Default none: the
   * HTTP sign-ins are off.
   */
  publicUrl?: string | undefined;
  /**
   * The OAuth client ("Web application" in Google's console) of the HTTP sign-in
   * (CHS_GOOGLE_CLIENT_ID, CHS_GOOGLE_CLIENT_SECRET). Default none: the HTTP sign-in is off.
   */
  googleOAuth?: { clientId: string; clientSecret: string } | undefined;
  /**
   * The HubSpot public app of the HTTP install (CHS_HUBSPOT_CLIENT_ID, CHS_HUBSPOT_CLIENT_SECRET: its
   * Auth settings). Default none: the HTTP install is off.
   */
  hubspotOAuth?: { clientId: string; clientSecret: string } | undefined;
  /** Job runner settings. Default DEFAULT_JOBS_CONFIG. */
  jobs?: JobsConfig;
  /** Webhook delivery and the targets endpoints may have. Default DEFAULT_WEBHOOKS_CONFIG. */
  webhooks?: WebhooksConfig;
  /**
   * PostgreSQL connections this runner may hold (CHS_PG_POOL_SIZE), shared by HTTP requests, job
   * workers and the scheduler; requests beyond it wait for a free connection. Default 10. See
   * docs/scale-out.md for sizing N runners against the server's max_connections.
   */
  pgPoolSize?: number;
  /** Bearer token `GET /metrics` requires (CHS_METRICS_TOKEN). Default none: open, like /api/health. */
  metricsToken?: string | undefined;
  /** Serve `GET /metrics` on this port instead of the API's (CHS_METRICS_PORT). Default: the API's port. */
  metricsPort?: number | undefined;
  /**
   * Which proxies' `X-Forwarded-For` to believe for the client address (CHS_TRUST_PROXY): `true`
   * (any), a hop count, or addresses/CIDRs. Default false: the socket's peer is the client.
   */
  trustProxy?: boolean | number | string[] | undefined;
  /**
   * How long a SQLite statement waits for a lock held by another process before failing with
   * DATABASE_BUSY (CHS_SQLITE_BUSY_TIMEOUT_MS). Default 5000.
   */
  sqliteBusyTimeoutMs?: number;
  /** HTTP server timeouts. Default DEFAULT_HTTP_TIMEOUTS. */
  http?: HttpTimeouts;
  /** Bounds on one message (CHS_PARSE_BUDGET_MS, CHS_MAX_MESSAGE_BYTES); default: the core's. */
  mailLimits?: MailLimits;
  /**
   * Tests only (CHS_TEST_FAULT=<point>:<n>, point fetch, batch or rebuild): the runner kills
   * itself with SIGKILL at the n-th such point of a job (EngineOptions.faults). Default none.
   */
  testFault?: TestFault;
}

/** CHS_SQLITE_BUSY_TIMEOUT_MS when unset. */
const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Environment variables that give a command a secret instead of argv (kept out of RunnerConfig,
 * which is handed to many places, so a secret cannot ride along into a log line).
 */
export const SECRET_INPUT_ENV = Object.freeze({
  accessToken: 'CHS_CONNECT_ACCESS_TOKEN',
  refreshToken: 'CHS_CONNECT_REFRESH_TOKEN',
  clientSecret: 'CHS_CONNECT_CLIENT_SECRET',
  newSecretKey: 'CHS_NEW_SECRET_KEY',
});
export type SecretInputs = { [K in keyof typeof SECRET_INPUT_ENV]: string | undefined };

/** The secrets `chs connect` and `chs secrets rotate` may take from the environment. */
export function loadSecretInputs(env: NodeJS.ProcessEnv = process.env): SecretInputs {
  return {
    accessToken: optional(env, SECRET_INPUT_ENV.accessToken),
    refreshToken: optional(env, SECRET_INPUT_ENV.refreshToken),
    clientSecret: optional(env, SECRET_INPUT_ENV.clientSecret),
    newSecretKey: optional(env, SECRET_INPUT_ENV.newSecretKey),
  };
}

export interface TestFault {
  point: FaultPoint;
  n: number;
}

const FAULT_POINTS: readonly FaultPoint[] = ['fetch', 'batch', 'rebuild'];

function testFault(env: NodeJS.ProcessEnv): TestFault | undefined {
  const v = optional(env, 'CHS_TEST_FAULT');
  if (v === undefined) return undefined;
  const m = /^(\w+):(\d+)$/.exec(v);
  const point = FAULT_POINTS.find((p) => p === m?.[1]);
  if (!m || !point || Number(m[2]) < 1) throw new Error(`CHS_TEST_FAULT must be <fetch|batch|rebuild>:<n ≥ 1>, got "${v}"`);
  return Object.freeze({ point, n: Number(m[2]) });
}

const DEFAULT_DATABASE = './data/chs.db';
/** CHS_PG_POOL_SIZE when unset. */
const DEFAULT_PG_POOL_SIZE = 10;

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${v}"`);
  return n;
}

function wholeEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (!/^\d+$/.test(v)) throw new Error(`${name} must be a whole number of milliseconds (0 = do not wait), got "${v}"`);
  return Number(v);
}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: { db?: string } = {}): RunnerConfig {
  const databaseUrl = flags.db ?? optional(env, 'CHS_DATABASE_URL') ?? DEFAULT_DATABASE;
  const now = optional(env, 'CHS_NOW');
  if (now !== undefined && Number.isNaN(Date.parse(now))) throw new Error(`CHS_NOW must be an ISO 8601 timestamp, got "${now}"`);
  const dataDir = optional(env, 'CHS_DATA_DIR') ?? (isPostgresUrl(databaseUrl) || databaseUrl === ':memory:' ? resolve('data') : dirname(resolve(databaseUrl)));
  const providers: ProviderUrls = {};
  const g = optional(env, 'CHS_GOOGLE_API_URL');
  if (g) providers.googleApi = g;
  const gt = optional(env, 'CHS_GOOGLE_TOKEN_URL');
  if (gt) providers.googleToken = gt;
  const ga = optional(env, 'CHS_GOOGLE_AUTH_URL');
  if (ga) providers.googleAuth = ga;
  const gr = optional(env, 'CHS_GOOGLE_REVOKE_URL');
  if (gr) providers.googleRevoke = gr;
  const h = optional(env, 'CHS_HUBSPOT_API_URL');
  if (h) providers.hubspotApi = h;
  const ha = optional(env, 'CHS_HUBSPOT_AUTH_URL');
  if (ha) providers.hubspotAuth = ha;
  const i = optional(env, 'CHS_INTERCOM_API_URL');
  if (i) providers.intercomApi = i;
  const gq = optional(env, 'CHS_GOOGLE_QUOTA_UNITS_PER_MINUTE');
  if (gq !== undefined) {
    if (!/^\d+$/.test(gq)) throw new Error(`CHS_GOOGLE_QUOTA_UNITS_PER_MINUTE must be a whole number of units (0 = no client-side limit), got "${gq}"`);
    providers.googleQuotaPerMinute = Number(gq);
  }
  const jobs = loadJobsConfig(env);
  const fault = testFault(env);
  const pgPoolSize = intEnv(env, 'CHS_PG_POOL_SIZE', DEFAULT_PG_POOL_SIZE);
  // Each running job may hold a connection for a whole batch; HTTP needs at least one left.
  if (isPostgresUrl(databaseUrl) && pgPoolSize <= jobs.concurrency) {
    throw new Error(
      `CHS_PG_POOL_SIZE (${pgPoolSize}) must be greater than CHS_JOB_CONCURRENCY (${jobs.concurrency}), so HTTP requests are not starved by jobs`,
    );
  }
  return Object.freeze({
    databaseUrl,
    dataDir,
    now,
    secretKey: optional(env, 'CHS_SECRET_KEY'),
    smtpUrl: optional(env, 'CHS_SMTP_URL'),
    redisUrl: optional(env, 'CHS_REDIS_URL'),
    logLevel: optional(env, 'CHS_LOG_LEVEL') ?? 'info',
    rateLimits: Object.freeze({
      perKeyMinute: intEnv(env, 'CHS_RATE_LIMIT_PER_MINUTE', 100),
      perKeyHour: intEnv(env, 'CHS_RATE_LIMIT_PER_HOUR', 1000),
      perWorkspaceMinute: intEnv(env, 'CHS_RATE_LIMIT_WORKSPACE_PER_MINUTE', 300),
      perWorkspaceDay: intEnv(env, 'CHS_RATE_LIMIT_PER_DAY', 10000),
    }),
    maxApiKeys: intEnv(env, 'CHS_MAX_API_KEYS', DEFAULT_MAX_ACTIVE_KEYS),
    emailFromAllowList: Object.freeze(parseSenderAllowList(optional(env, 'CHS_EMAIL_FROM_ALLOWLIST'))),
    providers: Object.freeze(providers),
    publicUrl: publicUrlEnv(optional(env, 'CHS_PUBLIC_URL')),
    googleOAuth: oauthClientEnv(env, 'CHS_GOOGLE', 'the OAuth client of the HTTP Google sign-in'),
    hubspotOAuth: oauthClientEnv(env, 'CHS_HUBSPOT', 'the public app of the HTTP HubSpot install'),
    jobs,
    webhooks: loadWebhooksConfig(env),
    pgPoolSize,
    metricsToken: optional(env, 'CHS_METRICS_TOKEN'),
    trustProxy: trustProxyEnv(optional(env, 'CHS_TRUST_PROXY')),
    metricsPort: env.CHS_METRICS_PORT === undefined || env.CHS_METRICS_PORT === '' ? undefined : portEnv(env, 'CHS_METRICS_PORT'),
    sqliteBusyTimeoutMs: wholeEnv(env, 'CHS_SQLITE_BUSY_TIMEOUT_MS', DEFAULT_SQLITE_BUSY_TIMEOUT_MS),
    http: loadHttpTimeouts(env),
    mailLimits: Object.freeze({
      parseBudgetMs: intEnv(env, 'CHS_PARSE_BUDGET_MS', DEFAULT_PARSE_BUDGET_MS),
      maxMessageBytes: intEnv(env, 'CHS_MAX_MESSAGE_BYTES', MAX_MESSAGE_BYTES),
    }),
    ...(fault ? { testFault: fault } : {}),
  });
}

function publicUrlEnv(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new Error(`CHS_PUBLIC_URL must be an absolute http(s) URL such as https://health.example.com, got "${v}"`);
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.search || u.hash || u.username || u.password) {
    throw new Error(`CHS_PUBLIC_URL must be an http(s) URL without query, fragment or credentials, got "${v}"`);
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** `<prefix>_CLIENT_ID` and `<prefix>_CLIENT_SECRET`: both or neither. The secret is never in a message. */
function oauthClientEnv(env: NodeJS.ProcessEnv, prefix: string, what: string): { clientId: string; clientSecret: string } | undefined {
  const clientId = optional(env, `${prefix}_CLIENT_ID`);
  const clientSecret = optional(env, `${prefix}_CLIENT_SECRET`);
  if (clientId === undefined && clientSecret === undefined) return undefined;
  if (clientId === undefined || clientSecret === undefined) throw new Error(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET go together (${what})`);
  return Object.freeze({ clientId, clientSecret });
}

function loadHttpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  const d = DEFAULT_HTTP_TIMEOUTS;
  const requestTimeoutMs = intEnv(env, 'CHS_HTTP_REQUEST_TIMEOUT_MS', d.requestTimeoutMs);
  const headersTimeoutMs = intEnv(env, 'CHS_HTTP_HEADERS_TIMEOUT_MS', Math.min(d.headersTimeoutMs, requestTimeoutMs));
  if (headersTimeoutMs > requestTimeoutMs)
    throw new Error(`CHS_HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed CHS_HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  return Object.freeze({
    requestTimeoutMs,
    headersTimeoutMs,
    connectionTimeoutMs: intEnv(env, 'CHS_HTTP_CONNECTION_TIMEOUT_MS', d.connectionTimeoutMs),
    keepAliveTimeoutMs: intEnv(env, 'CHS_HTTP_KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs),
  });
}

/** CHS_TRUST_PROXY: `true`/`false`, a hop count, or comma-separated addresses and CIDRs. */
function trustProxyEnv(v: string | undefined): boolean | number | string[] | undefined {
  if (v === undefined || v === 'false') return undefined;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  if (list.length === 0 || !list.every((x) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(x))) {
    throw new Error(`CHS_TRUST_PROXY must be true, false, a hop count or comma-separated addresses/CIDRs, got "${v}"`);
  }
  return list;
}

function portEnv(env: NodeJS.ProcessEnv, name: string): number {
  const n = intEnv(env, name, 0);
  if (n > 65535) throw new Error(`${name} must be a port number (1-65535), got "${env[name]}"`);
  return n;
}

const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** CHS_EMAIL_FROM_ALLOWLIST: comma- or space-separated domains and addresses, lower-cased; a malformed entry fails start-up. */
function parseSenderAllowList(value: string | undefined): string[] {
  if (value === undefined) return [];
  const entries = value
    .split(/[\s,]+/)
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  for (const e of entries) {
    if (e.includes('@') ? !isValidEmail(e) : !DOMAIN.test(e)) {
      throw new Error(`CHS_EMAIL_FROM_ALLOWLIST entries must be domains (example.com) or addresses (alerts@example.com), got "${e}"`);
    }
  }
  return entries;
}

function loadJobsConfig(env: NodeJS.ProcessEnv): JobsConfig {
  const leaseMs = intEnv(env, 'CHS_JOB_LEASE_MS', DEFAULT_JOBS_CONFIG.leaseMs);
  const scheduler = optional(env, 'CHS_SCHEDULER');
  if (scheduler !== undefined && !['on', 'off'].includes(scheduler)) throw new Error(`CHS_SCHEDULER must be on or off, got "${scheduler}"`);
  return Object.freeze({
    concurrency: intEnv(env, 'CHS_JOB_CONCURRENCY', DEFAULT_JOBS_CONFIG.concurrency),
    leaseMs,
    pollMs: intEnv(env, 'CHS_JOB_POLL_MS', DEFAULT_JOBS_CONFIG.pollMs),
    sweepMs: intEnv(env, 'CHS_JOB_SWEEP_MS', Math.min(leaseMs, DEFAULT_JOBS_CONFIG.sweepMs)),
    shutdownMs: intEnv(env, 'CHS_JOB_SHUTDOWN_MS', DEFAULT_JOBS_CONFIG.shutdownMs),
    schedulerTickMs: intEnv(env, 'CHS_SCHEDULER_TICK_MS', DEFAULT_JOBS_CONFIG.schedulerTickMs),
    schedulerEnabled: scheduler !== 'off',
  });
}

/** `1`/`true` or `0`/`false`; unset or empty: the fallback. */
function flagEnv(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const v = optional(env, name);
  if (v === undefined) return fallback;
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  throw new Error(`${name} must be 1 or 0 (true or false), got "${v}"`);
}

function loadWebhooksConfig(env: NodeJS.ProcessEnv): WebhooksConfig {
  const d = DEFAULT_WEBHOOKS_CONFIG;
  const allowPrivate = flagEnv(env, 'CHS_WEBHOOKS_ALLOW_PRIVATE', d.allowPrivate);
  const schedule = optional(env, 'CHS_WEBHOOK_RETRY_SCHEDULE_MS');
  let retryScheduleMs = d.retryScheduleMs;
  if (schedule !== undefined) {
    const parts = schedule.split(',').map((p) => p.trim());
    if (!parts.every((p) => /^\d+$/.test(p))) {
      throw new Error(`CHS_WEBHOOK_RETRY_SCHEDULE_MS must be comma-separated whole numbers of milliseconds (the delay before each retry), got "${schedule}"`);
    }
    retryScheduleMs = Object.freeze(parts.map(Number));
  }
  return Object.freeze({
    allowPrivate,
    allowHttp: allowPrivate || flagEnv(env, 'CHS_WEBHOOKS_ALLOW_HTTP', d.allowHttp),
    timeoutMs: intEnv(env, 'CHS_WEBHOOK_TIMEOUT_MS', d.timeoutMs),
    concurrency: intEnv(env, 'CHS_WEBHOOK_CONCURRENCY', d.concurrency),
    pollMs: intEnv(env, 'CHS_WEBHOOK_POLL_MS', d.pollMs),
    retryScheduleMs,
    disableAfterMs: intEnv(env, 'CHS_WEBHOOK_DISABLE_AFTER_MS', d.disableAfterMs),
  });
}
