export * from './clients.js';
export * from './client-history.js';
export { getSummary, IMPROVING_MIN_CHANGE, RENEWAL_DAYS, LIST_SIZE, type SummaryOptions, type MetricsSummary } from './summary.js';
export * from './trends.js';
export * from './deltas.js';
export * from './email-stats.js';
export { storedItemsPerDay } from './density.js';
export {
  runBacktest,
  BACKTEST_HORIZONS,
  DEFAULT_BACKTEST_DAYS,
  LEAD_TIME_GOAL_DAYS,
  type BacktestOptions,
  type BacktestReport,
  type BacktestHorizon,
  type BacktestChurn,
} from './backtest.js';
export { rocAuc, type ReliabilityBin, type Scored } from './backtest-stats.js';
export { learnHealthModel, MIN_LEARN_OUTCOMES, MIN_LEARN_CHURNS, MIN_WEIGHT, MAX_WEIGHT, MIN_AUC_GAIN, type LearnOptions, type LearnResult } from './learn.js';
