// Piscina worker entry: one task = one batch of raw messages.
import { workerData } from 'node:worker_threads';
import { reapplyInWorker } from './heap-growth.js';

// First, before the parse stack loads (~0.2 s in which the main thread reads on): this thread's
// start reset V8's flags to the command line's.
reapplyInWorker(workerData);
const { processBatch } = await import('./process.js');

export default processBatch;
// The command line's bundle loads this file for in-process pools too (runner/scripts/bundle.mjs).
export { processBatch };
