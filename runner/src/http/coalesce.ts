/**
 * Single flight for read endpoints: identical requests (same workspace and URL) that arrive
 * together share one computation. The store answers synchronously (SQLite), so a computation
 * holds the event loop; without sharing, ten dashboards asking for the same
 * summary at once wait for ten computations in a row. Nothing is cached: a request never gets an
 * answer computed before it arrived, only one whose computation it joined before it started.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
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
      await nextTurn();
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
 * The key of a read request: workspace, method, the route and its validated parameters — the path
 * parameters and the query parameters the route's schema declares, as converted and defaulted by
 * validation. Nothing else changes a read's answer, so an unknown parameter (`?x=1`, `?x=2`…),
 * another spelling (`limit=050`, a default written out) or another order makes no new key.
 */
export function requestKey(request: FastifyRequest): string {
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const known = Object.keys(schema?.properties ?? {})
    .filter((name) => name !== 'workspaceId' && query[name] !== undefined)
    .sort()
    .map((name) => [name, query[name]]);
  return JSON.stringify([request.auth.workspaceId, request.method, request.routeOptions.url, request.params ?? {}, known]);
}
