/** `chs serve`: the HTTP API, then the background services, until SIGTERM/SIGINT. */
import type { Command } from 'commander';
import { ChsError, redactUrl, type Engine } from '@chs/core';
import { DEFAULT_JOBS_CONFIG, type RunnerConfig } from '../../config.js';
// The HTTP stack (Fastify, pino, prom-client, ioredis, the dashboard's static files) is loaded
// when `chs serve` runs, not by every `chs` command: start-up of `chs ingest` and the others stays light.
import type { createLogger } from '../../http/logging.js';
import type { RedisRateLimitStore } from '../../http/redis-rate-limit.js';
import type { CliContext } from '../context.js';
import type { RegisterCommand } from './index.js';

/** What a background service gets; it returns how to stop it (awaited on shutdown, in reverse order). */
interface BackgroundServiceContext {
  engine: Engine;
  config: RunnerConfig;
  logger: ReturnType<typeof createLogger>;
}
type BackgroundService = (ctx: BackgroundServiceContext) => Promise<() => Promise<void>>;

/**
 * ▶ HOOK: job workers and the scheduler start here. Add a BackgroundService to this list; it is
 * started after the HTTP server listens and stopped (before the engine closes) on shutdown.
 */
const backgroundServices: BackgroundService[] = [];

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new ChsError('INVALID_INPUT', `--port must be an integer from 0 to 65535, got "${value}"`);
  return n;
}

async function run(ctx: CliContext, cmd: Command, flags: { port: string; host: string }): Promise<void> {
  await serve(ctx, ctx.config(cmd.optsWithGlobals()), flags);
}

/**
 * Serves until SIGTERM/SIGINT: the HTTP API and the dashboard, then the background services.
 * `signIn` (the demo): a URL fragment, `#workspace=…&key=…`, printed on one line after the
 * dashboard's address once it listens — the one line meant for the user; browsers never send a
 * fragment to the server.
 */
export async function serve(ctx: CliContext, config: RunnerConfig, flags: { port: string; host: string }, signIn?: string): Promise<void> {
  const port = parsePort(flags.port);
  const [
    { buildApp },
    { createLogger },
    { buildMetricsServer, createMetrics, METRICS_PATH },
    { installGracefulShutdown },
    { createJobService },
    { findDashboard },
  ] = await Promise.all([
    import('../../http/app.js'),
    import('../../http/logging.js'),
    import('../../http/metrics.js'),
    import('../../http/shutdown.js'),
    import('../../jobs/service.js'),
    import('../../http/dashboard.js'),
  ]);
  // Built by `npm ci` (the root `prepare`); without it the API is served alone.
  const dashboardDir = findDashboard();
  const logger = createLogger({ level: config.logLevel });
  const engine = await ctx.openEngine(config);
  const stops: Array<() => Promise<void>> = [];
  let app;
  const metrics = createMetrics(engine);
  // The job runner: routes wake its worker when they queue a job (and its webhook dispatcher when
  // they queue a delivery); it starts with the background services.
  const jobs = createJobService({ engine, config, logger, onWebhookAttempt: (a) => metrics.webhookAttempt(a) });
  try {
    const rateLimitStore = await sharedRateLimitStore(config, logger);
    app = await buildApp({
      engine,
      config,
      logger,
      jobs,
      webhooks: jobs.webhooks,
      metrics,
      ...(rateLimitStore ? { rateLimitStore } : {}),
      ...(dashboardDir ? { dashboardDir } : {}),
    });
    const metricsServer = config.metricsPort === undefined ? undefined : await buildMetricsServer(metrics, config.metricsToken);
    // Closed with the API, so a scraper sees the runner go away with it.
    if (metricsServer) app.addHook('onClose', async () => metricsServer.close());
    await app.listen({ port, host: flags.host });
    await metricsServer?.listen({ port: config.metricsPort, host: flags.host });
  } catch (err) {
    await app?.close().catch(() => undefined);
    await engine.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new ChsError('INVALID_INPUT', `port ${port} on ${flags.host} is already in use`, { cause: err });
    throw err;
  }
  const { done } = installGracefulShutdown(app, {
    phases: [
      {
        // The job drain has CHS_JOB_SHUTDOWN_MS; the other services a few seconds beside it.
        name: 'jobs and background services',
        timeoutMs: (config.jobs?.shutdownMs ?? DEFAULT_JOBS_CONFIG.shutdownMs) + 5_000,
        run: async () => {
          for (const stop of stops.reverse()) await stop().catch((err: unknown) => logger.error({ err }, 'background service did not stop cleanly'));
        },
      },
      { name: 'database', timeoutMs: 5_000, run: () => engine.close() },
    ],
  });
  jobs.start();
  stops.push(() => jobs.stop());
  for (const start of backgroundServices) stops.push(await start({ engine, config, logger }));
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = flags.host.includes(':') ? `[${flags.host}]` : flags.host;
  const metricsAt = `http://${shownHost}:${config.metricsPort ?? actualPort}${METRICS_PATH}`;
  // stdout is the JSON log stream; these lines are for the human (and the tests) on stderr.
  ctx.stderr.write(`chs: serving http://${shownHost}:${actualPort}/api (database ${engine.store.location}; metrics ${metricsAt}); stop with Ctrl-C\n`);
  if (dashboardDir) ctx.stderr.write(`Dashboard: http://${shownHost}:${actualPort}/${signIn ?? ''}\n`);
  else ctx.stderr.write('chs: the dashboard is not built (npm run build -w dashboard); serving the API only\n');
  await done;
}

/**
 * CHS_REDIS_URL set: rate-limit counters in Redis, shared by every runner using it; checked at
 * start-up so a wrong URL stops `chs serve` instead of silently counting per runner.
 */
async function sharedRateLimitStore(config: RunnerConfig, logger: ReturnType<typeof createLogger>): Promise<RedisRateLimitStore | undefined> {
  if (!config.redisUrl) return undefined;
  const { RedisRateLimitStore } = await import('../../http/redis-rate-limit.js');
  const store = new RedisRateLimitStore({ url: config.redisUrl, logger });
  try {
    await store.connect();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw new ChsError('INVALID_INPUT', `CHS_REDIS_URL: Redis at ${redactUrl(config.redisUrl)} did not answer: ${(err as Error).message}`, { cause: err });
  }
  return store;
}

export const register: RegisterCommand = (program, ctx) => {
  program
    .command('serve')
    .description('run the HTTP API under /api, the dashboard at / (and the job workers and scheduler)')
    .option('--port <port>', 'port to listen on', '8080')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .action(async (flags: { port: string; host: string }, cmd: Command) => run(ctx, cmd, flags));
};
