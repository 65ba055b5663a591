/** Graceful shutdown: stop accepting, let in-flight requests finish, then release resources. */
import type { FastifyInstance } from 'fastify';

export interface ShutdownOptions {
  /** Signals to handle. Default SIGTERM and SIGINT. */
  signals?: NodeJS.Signals[];
  /** Called after the app has closed (e.g. close the engine). */
  onClosed?: () => Promise<void>;
  /** Give up waiting after this many ms and exit 1. Default 10000. */
  timeoutMs?: number;
  /** Default: `process.exit`. */
  exit?: (code: number) => void;
}

/**
 * Installs signal handlers; resolves the returned promise once shut down. A second signal while
 * closing exits at once.
 */
export function installGracefulShutdown(app: FastifyInstance, options: ShutdownOptions = {}): { done: Promise<void>; shutdown: (reason: string) => Promise<void> } {
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
      const timer = setTimeout(() => {
        app.log.error({ reason }, 'shutdown timed out; exiting');
        exit(1);
      }, options.timeoutMs ?? 10_000);
      timer.unref();
      try {
        await app.close();
        await options.onClosed?.();
      } finally {
        clearTimeout(timer);
        for (const s of signals) process.off(s, onSignal);
        resolveDone();
      }
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
