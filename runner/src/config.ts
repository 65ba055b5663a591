/**
 * The runner's one typed configuration, parsed once from the environment (and CLI flags) at
 * start-up. The core reads no environment: everything it needs is passed from here.
 */
import { dirname, resolve } from 'node:path';
import { isPostgresUrl, type FaultPoint } from '@chs/core';

export interface RateLimitConfig {
  /** Per key, per minute. Default 100. */
  perKeyMinute: number;
  /** Per key, per hour. Default 1000. */
  perKeyHour: number;
  /** Per workspace, per day. Default 10000. */
  perWorkspaceDay: number;
}

export interface ProviderUrls {
  googleApi?: string;
  googleToken?: string;
  hubspotApi?: string;
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
  concurrency: 2, leaseMs: 30_000, pollMs: 1000, sweepMs: 10_000, shutdownMs: 10_000, schedulerTickMs: 60_000, schedulerEnabled: true,
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
  providers: ProviderUrls;
  /** Job runner settings. Default DEFAULT_JOBS_CONFIG. */
  jobs?: JobsConfig;
  /**
   * PostgreSQL connections this runner may hold (CHS_PG_POOL_SIZE), shared by HTTP requests, job
   * workers and the scheduler; requests beyond it wait for a free connection. Default 10. See
   * docs/scale-out.md for sizing N runners against the server's max_connections.
   */
  pgPoolSize?: number;
  /**
   * Tests only (CHS_TEST_FAULT=<point>:<n>, point fetch, batch or rebuild): the runner kills
   * itself with SIGKILL at the n-th such point of a job (EngineOptions.faults). Default none.
   */
  testFault?: TestFault;
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

export const DEFAULT_DATABASE = './data/chs.db';
/** CHS_PG_POOL_SIZE when unset. */
export const DEFAULT_PG_POOL_SIZE = 10;

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${v}"`);
  return n;
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
  const g = optional(env, 'CHS_GOOGLE_API_URL'); if (g) providers.googleApi = g;
  const gt = optional(env, 'CHS_GOOGLE_TOKEN_URL'); if (gt) providers.googleToken = gt;
  const h = optional(env, 'CHS_HUBSPOT_API_URL'); if (h) providers.hubspotApi = h;
  const i = optional(env, 'CHS_INTERCOM_API_URL'); if (i) providers.intercomApi = i;
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
    throw new Error(`CHS_PG_POOL_SIZE (${pgPoolSize}) must be greater than CHS_JOB_CONCURRENCY (${jobs.concurrency}), so HTTP requests are not starved by jobs`);
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
      perWorkspaceDay: intEnv(env, 'CHS_RATE_LIMIT_PER_DAY', 10000),
    }),
    providers: Object.freeze(providers),
    jobs,
    pgPoolSize,
    ...(fault ? { testFault: fault } : {}),
  });
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
