// Piscina worker entry: one task = one batch of raw messages.
import { processBatch } from './process.js';

export default processBatch;
