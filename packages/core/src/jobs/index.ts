export * from './states.js';
export * from './repository.js';
export * from './worker.js';
export * from './counts.js';
export * from './runs.js';
export * from './sessions.js';
export * from './retention.js';
export { LIVE_EVERY_MS, LIVE_STALE_MS } from './live.js';
