export * from './states.js';
export * from './repository.js';
