export * from './states.js';
export * from './repository.js';
export * from './worker.js';
export * from './counts.js';
