export * from './clients.js';
export * from './client-history.js';
export { getSummary, IMPROVING_MIN_CHANGE, RENEWAL_DAYS, LIST_SIZE, type SummaryOptions, type MetricsSummary } from './summary.js';
export * from './trends.js';
export * from './deltas.js';
export * from './email-stats.js';
export { storedItemsPerDay } from './density.js';
