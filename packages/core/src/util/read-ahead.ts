/**
 * Iterates `source` one item ahead: while the consumer works on item k, item k + 1 is already
 * being produced (a provider's next page fetched while the current one is parsed and stored).
 * Order, values and errors are the source's; an error of the item read ahead surfaces when the
 * consumer asks for it. When the consumer stops early, the item in flight is waited for and
 * dropped, then the source is closed (its `finally` blocks run).
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined = it.next();
  try {
    for (;;) {
      const r: IteratorResult<T> = await pending;
      pending = undefined;
      if (r.done) return;
      pending = it.next();
      // Observed on the next turn (or dropped below); never an unhandled rejection meanwhile.
      pending.catch(() => undefined);
      yield r.value;
    }
  } finally {
    if (pending) {
      await pending.catch(() => undefined);
      await it.return?.();
    }
  }
}
