export { ingestSource, type IngestOptions, type IngestProgress, type IngestSummary, type IngestDeps, type IngestStageTimes } from './ingest.js';
export { createProcessPool, DEFAULT_PARSE_BUDGET_MS, type ProcessPool, type ProcessPoolOptions } from './pool.js';
export {
  processOne,
  processBatch,
  type ProcessResult,
  type ProcessedMessage,
  type FailedMessage,
  type DroppedMessage,
  type ProcessTask,
  type ProcessRules,
} from './process.js';
export { limitHeapGrowth } from './heap-growth.js';
export { SUMMARY_LENGTH } from './summary.js';
export { MAX_MESSAGE_BYTES } from './limits.js';
export { type RunCounts, type BatchCheckpoint } from './writer.js';
export { startIngestionRun, finishIngestionRun } from './runs.js';
export { nameFromDomain, newClientRow, type NewClient } from '../store/clients.js';
export type { RunTotals } from './ingest.js';
export { loadCursor, saveCursor, dropCursor } from './cursors.js';
