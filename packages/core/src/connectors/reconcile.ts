/**
 * Reconciliation of one window: fetch every listed id with bounded concurrency, try the failures
 * once more after the window, and report what is still missing with its reason.
 */
import type { LimitFunction } from 'p-limit';
import { isChsError } from '../errors.js';
import { errorText } from './retry.js';
import type { UnreconciledItem } from './types.js';

export interface WindowFetch<T> {
  /** Fetched items in the order of the listed ids. */
  items: T[];
  unreconciled: UnreconciledItem[];
  vanished: string[];
  /** Ids yielded (in `items`), for the caller's own check. */
  yieldedIds: string[];
}

/** Errors that end the whole sync rather than one item. */
export function isSyncFatal(err: unknown): err is Error {
  return isChsError(err, 'INTEGRATION_NEEDS_REAUTH') || isChsError(err, 'PROVIDER_RATE_LIMITED') || (err instanceof Error && err.name === 'AbortError');
}

/**
 * `fetchOne` returns the item, or a string saying why the fetched item is unusable (kept as an
 * unreconciled reason without a retry: refetching the same bytes cannot help). `isVanished`
 * tells a deleted item (404) from a failure.
 */
export async function fetchWindow<T>(
  ids: readonly string[],
  fetchOne: (id: string) => Promise<T | string>,
  limit: LimitFunction,
  isVanished: (err: unknown) => boolean,
  signal?: AbortSignal,
): Promise<WindowFetch<T>> {
  const got = new Map<string, T>();
  const unusable = new Map<string, string>();
  const vanished: string[] = [];

  const pass = async (todo: readonly string[]): Promise<Map<string, string>> => {
    const errors = new Map<string, string>();
    let fatal: Error | undefined;
    await Promise.all(
      todo.map((id) =>
        limit(async () => {
          if (fatal !== undefined || signal?.aborted) return;
          try {
            const r = await fetchOne(id);
            if (typeof r === 'string') unusable.set(id, r);
            else got.set(id, r);
          } catch (err) {
            if (isSyncFatal(err)) fatal ??= err;
            else if (isVanished(err)) vanished.push(id);
            else errors.set(id, errorText(err));
          }
        }),
      ),
    );
    if (fatal !== undefined) throw fatal;
    signal?.throwIfAborted();
    return errors;
  };

  let failed = await pass(ids);
  if (failed.size > 0) failed = await pass([...failed.keys()]);

  const items: T[] = [];
  const yieldedIds: string[] = [];
  for (const id of ids) {
    const v = got.get(id);
    if (v !== undefined) {
      items.push(v);
      yieldedIds.push(id);
    }
  }
  const unreconciled: UnreconciledItem[] = [];
  for (const id of ids) {
    const reason = failed.get(id) ?? unusable.get(id);
    if (reason !== undefined && !got.has(id)) unreconciled.push({ providerId: id, reason });
  }
  return { items, unreconciled, vanished, yieldedIds };
}
