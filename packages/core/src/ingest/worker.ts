// Piscina worker entry: one task = one batch of raw messages.
import { processBatch } from './process.js';

export default processBatch;
// The command line's bundle loads this file for in-process pools too (runner/scripts/bundle.mjs).
export { processBatch };
