/**
 * Keeps the calling thread's V8 young generation at its start size for a whole ingest.
 *
 * The main thread of an ingest receives every parsed message from the workers, and keeps each
 * until its batch is written: a high survival rate that makes V8 grow the young generation to
 * its ceiling (32 MB on this class of machine), which then stays resident for the run. Freezing
 * its growth (`--semi-space-growth-factor=1`) keeps it at the start size.
 *
 * V8 flags are process-wide, and a new worker thread resets them to the command line's once it
 * is up (Node 20): each ingest worker applies the flag again itself, after its own start, when
 * the pool tells it to (`workerData`). That is why this is a switch a command turns on for its
 * process (`chs ingest`), not something the library does on its own to a process it is embedded
 * in.
 */
import { setFlagsFromString } from 'node:v8';

const FLAG = '--semi-space-growth-factor=1';
let held = false;

/** Holds the young generation of this process's threads at their current size from now on. */
export function holdYoungGeneration(): void {
  held = true;
  setFlagsFromString(FLAG);
}

/** The `workerData` the ingest pool gives its workers. */
export interface IngestWorkerData {
  holdYoungGeneration: boolean;
}

export function ingestWorkerData(): IngestWorkerData {
  return { holdYoungGeneration: held };
}

/** In an ingest worker, once it is up: applies the hold again (the thread's start reset it). */
export function reapplyInWorker(data: unknown): void {
  if (typeof data === 'object' && data !== null && (data as Partial<IngestWorkerData>).holdYoungGeneration === true) setFlagsFromString(FLAG);
}
