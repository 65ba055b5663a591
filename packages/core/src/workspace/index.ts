export * from './types.js';
export * from './workspaces.js';
export * from './users.js';
export * from './api-keys.js';
export * from './key-usage.js';
