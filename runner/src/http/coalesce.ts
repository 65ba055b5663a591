/**
 * Single flight for read endpoints: identical requests (same workspace and URL) that arrive
 * together share one computation. The store answers synchronously (SQLite), so a computation
 * holds the event loop; without sharing, ten dashboards asking for the same
 * summary at once wait for ten computations in a row. Nothing is cached: a request never gets an
 * answer computed before it arrived, only one whose computation it joined before it started.
 */
import type { FastifyRequest } from 'fastify';
import type {} from './types.js'; // request.auth

export class Coalescer {
  readonly #inFlight = new Map<string, Promise<unknown>>();

  /** Runs `compute`, or joins the identical computation about to start. */
  run<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const joined = this.#inFlight.get(key);
    if (joined) return joined as Promise<T>;
    const started = async (): Promise<T> => {
      // One turn of the event loop first: the identical requests already received are parsed
      // and join this computation instead of queueing behind it. Once it starts, it takes no
      // one else: a later request never gets data read before it arrived.
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.#inFlight.delete(key);
      return compute();
    };
    const p = started();
    this.#inFlight.set(key, p);
    return p;
  }

  /** Runs `compute` for a read request, shared with identical requests (see {@link requestKey}). */
  forRequest<T>(request: FastifyRequest, compute: () => Promise<T>): Promise<T> {
    return this.run(requestKey(request), compute);
  }

  /** Computations about to start (for tests). */
  get size(): number {
    return this.#inFlight.size;
  }
}

/**
 * The key of a read request: workspace, method and the URL as sent (path and query; the auth hook
 * has matched its workspaceId to the key's workspace). Two spellings of one query only stay apart.
 */
export function requestKey(request: FastifyRequest): string {
  return `${request.auth.workspaceId}\u0000${request.method}\u0000${request.url}`;
}
