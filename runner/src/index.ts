export { loadConfig, type RunnerConfig } from './config.js';
export { main as runCli, buildProgram } from './cli/main.js';
/** Types of the HTTP API for clients, generated from the OpenAPI document (docs/api.md#the-contract). */
export type { components as ApiComponents, operations as ApiOperations, paths as ApiPaths } from './http/openapi-types.js';
