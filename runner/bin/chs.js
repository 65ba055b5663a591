#!/usr/bin/env node
// The `chs` command. Runs the compiled runner (built by `npm install` / `npm ci` through the
// root `prepare` script).
import { existsSync, statSync } from 'node:fs';

// A `.env` in the working directory sets what the environment does not already set (Node's own
// parser: KEY=value lines, # comments, quotes); the environment wins.
if (existsSync('.env')) process.loadEnvFile('.env');

// The bundle (runner/scripts/bundle.mjs, built with the rest) starts in a fraction of the time
// of the ~450 separate modules of `dist/`. It is the same code, so it is used only when it is
// newer than the last compile of the runner and the core (a `tsc -b` without `npm run bundle`
// after an edit falls back to `dist/`).
const bundle = new URL('../dist/bundle/cli.js', import.meta.url);
const compiled = ['../dist/.tsbuildinfo', '../../packages/core/dist/.tsbuildinfo'].map((f) => new URL(f, import.meta.url));
const fresh = existsSync(bundle) && compiled.every((f) => !existsSync(f) || statSync(f).mtimeMs <= statSync(bundle).mtimeMs);
const { main } = await import(fresh ? bundle.href : '../dist/cli/main.js');
main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`chs: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
