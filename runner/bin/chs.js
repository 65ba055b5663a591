#!/usr/bin/env node
// The `chs` command. Runs the compiled runner (built by `npm install` / `npm ci` through the
// root `prepare` script).
import { existsSync } from 'node:fs';

// A `.env` in the working directory sets what the environment does not already set (Node's own
// parser: KEY=value lines, # comments, quotes); the environment wins.
if (existsSync('.env')) process.loadEnvFile('.env');

const { main } = await import('../dist/cli/main.js');
main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`chs: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
