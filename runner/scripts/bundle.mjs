// The `chs` command line as one bundle (dist/bundle/), which bin/chs.js runs when present.
//
// Why: unbundled, `chs` loads ~450 ES modules before it does anything (kysely alone is 262
// files), ~0.6 s of a 2-core machine's time per command; bundled, the same code is a handful
// of files. The library (`@chs/core`, `@chs/runner`'s exports) stays unbundled `dist/`.
//
// Left out of the bundle (loaded from node_modules as usual): native and optional modules, and
// packages that find their own files at run time (piscina's and pino's worker threads, fastify's
// plugins, the fixtures' data). The ingest worker is an entry of its own, beside the chunk of
// pool.ts, which finds it through the __CHS_BUNDLED_WORKER__ define.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const runner = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${runner}dist/bundle`;
rmSync(outdir, { recursive: true, force: true });

await build({
  absWorkingDir: runner,
  entryPoints: { cli: 'dist/cli/main.js', worker: '../packages/core/dist/ingest/worker.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  define: { __CHS_BUNDLED_WORKER__: JSON.stringify('./worker.js') },
  // Bundled CommonJS packages call require() for Node's built-ins.
  banner: { js: "import { createRequire as __chsCreateRequire } from 'node:module'; const require = __chsCreateRequire(import.meta.url);" },
  external: ['better-sqlite3', 'pg', 'pg-native', 'pg-cloudflare', 'piscina', 'pino', 'thread-stream', 'fastify', '@fastify/*', 'ioredis', '@chs/fixtures'],
  logLevel: 'warning',
  legalComments: 'none',
});
