/**
 * Graceful shutdown in phases, each with a budget of its own: stop accepting and let in-flight
 * requests finish (`httpTimeoutMs`), then each of `phases` in order (the job drain, which has
 * `CHS_JOB_SHUTDOWN_MS`; closing the database). One budget for all of it would cut the job drain
 * short whatever CHS_JOB_SHUTDOWN_MS says. A phase over its budget is logged and left behind; the
 * process then exits 1 once the others are done, since something did not stop cleanly.
 */
import type { FastifyInstance } from 'fastify';

interface ShutdownPhase {
  name: string;
  timeoutMs: number;
  run: () => Promise<void>;
}

export interface ShutdownOptions {
  /** Signals to handle. Default SIGTERM and SIGINT. */
  signals?: NodeJS.Signals[];
  /** Budget for `app.close()` (requests in flight). Default 10000. */
  httpTimeoutMs?: number;
  /** Run after the app has closed, in order, each within its own budget. Default none. */
  phases?: ShutdownPhase[];
  /** Default: `process.exit`. */
  exit?: (code: number) => void;
}

const DEFAULT_HTTP_SHUTDOWN_MS = 10_000;

/** Runs `fn` within `ms`: true when it finished (or failed) in time, false when it did not. */
async function within(ms: number, fn: () => Promise<void>, onError: (err: unknown) => void): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  try {
    return await Promise.race([
      fn().then(
        () => true,
        (err: unknown) => {
          onError(err);
          return true;
        },
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Installs signal handlers; resolves the returned promise once shut down. A second signal while
 * closing exits at once.
 */
export function installGracefulShutdown(
  app: FastifyInstance,
  options: ShutdownOptions = {},
): { done: Promise<void>; shutdown: (reason: string) => Promise<void> } {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => {
    resolveDone = r;
  });
  let closing: Promise<void> | undefined;

  const shutdown = (reason: string): Promise<void> => {
    closing ??= (async () => {
      app.log.info({ reason }, 'shutting down');
      const phases: ShutdownPhase[] = [
        { name: 'http', timeoutMs: options.httpTimeoutMs ?? DEFAULT_HTTP_SHUTDOWN_MS, run: () => app.close() },
        ...(options.phases ?? []),
      ];
      let clean = true;
      try {
        for (const phase of phases) {
          const inTime = await within(phase.timeoutMs, phase.run, (err) => {
            clean = false;
            app.log.error({ err, phase: phase.name }, 'shutdown phase failed');
          });
          if (!inTime) {
            clean = false;
            app.log.error({ phase: phase.name, timeoutMs: phase.timeoutMs }, 'shutdown phase timed out; going on');
          }
        }
      } finally {
        for (const s of signals) process.off(s, onSignal);
        resolveDone();
      }
      if (!clean) exit(1);
    })();
    return closing;
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) exit(1);
    else void shutdown(signal);
  };
  for (const s of signals) process.on(s, onSignal);
  return { done, shutdown };
}
