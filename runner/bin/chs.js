#!/usr/bin/env node
// The `chs` command. Runs the compiled runner (built by `npm install` / `npm ci` through the
// root `prepare` script).
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`chs: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
