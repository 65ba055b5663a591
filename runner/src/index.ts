export { loadConfig, type RunnerConfig } from './config.js';
export { main as runCli, buildProgram } from './cli/main.js';
