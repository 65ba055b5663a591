/**
 * Keeps the V8 heaps of an ingest's threads close to what they hold, for a whole `chs ingest`.
 *
 * Two V8 flags, measured on the whole 50,000-message command (alternated pairs):
 * - `--semi-space-growth-factor=1`: the main thread receives every parsed message from the
 *   workers and keeps each until its batch is written, a high survival rate that makes V8 grow
 *   its young generation to the ceiling (32 MB here), resident for the run. Frozen, it stays at
 *   the size it has when the command starts (2-8 MB).
 * - `--heap-growing-percent=50`: after each full collection V8 lets a heap's old generation grow
 *   to up to 4× what survived before the next one; the workers' heaps (~20 MB of parse stack)
 *   peaked at 67-81 MB and the main thread's near 100. At 1.5× the command peaked at 243-245 MB
 *   instead of 326-353 (257 instead of 320-371 at 200,000 messages), in the same time.
 *
 * V8 flags are process-wide, and a new worker thread resets them to the command line's once it
 * is up (Node 20): each ingest worker applies them again itself, after its own start, when the
 * pool tells it to (`workerData`). That is why this is a switch a command turns on for its
 * process (`chs ingest`), not something the library does on its own to a process it is embedded
 * in.
 */
import { setFlagsFromString } from 'node:v8';

const FLAGS = '--semi-space-growth-factor=1 --heap-growing-percent=50';
let limited = false;

/** Limits the heap growth of this process's threads from now on (see above). */
export function limitHeapGrowth(): void {
  limited = true;
  setFlagsFromString(FLAGS);
}

/** The `workerData` the ingest pool gives its workers. */
export function ingestWorkerData(): { limitHeapGrowth: boolean } {
  return { limitHeapGrowth: limited };
}

/** In an ingest worker, once it is up: applies the limits again (the thread's start reset them). */
export function reapplyInWorker(data: unknown): void {
  if (typeof data === 'object' && data !== null && (data as { limitHeapGrowth?: unknown }).limitHeapGrowth === true) setFlagsFromString(FLAGS);
}
