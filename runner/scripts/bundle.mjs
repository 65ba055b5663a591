// The `chs` command line as one bundle (dist/bundle/), which bin/chs.js runs when present.
//
// Why: unbundled, `chs` loads ~450 ES modules before it does anything (kysely alone is 262
// files), ~0.6 s of a 2-core machine's time per command; bundled, the same code is a handful
// of files. The library (`@chs/core`, `@chs/runner`'s exports) stays unbundled `dist/`.
//
// Left out of the bundle (loaded from node_modules as usual): native and optional modules, and
// packages that find their own files at run time (piscina's and pino's worker threads, fastify's
// plugins, the fixtures' data). The ingest worker is a build of its own (worker.js), beside the
// chunk of pool.ts, which finds it through the __CHS_BUNDLED_WORKER__ define; so is the health
// rebuild's scoring thread (score-worker.js, __CHS_BUNDLED_SCORE_WORKER__).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const runner = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${runner}dist/bundle`;
rmSync(outdir, { recursive: true, force: true });

const common = {
  absWorkingDir: runner,
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Bundled CommonJS packages call require() for Node's built-ins.
  banner: { js: "import { createRequire as __chsCreateRequire } from 'node:module'; const require = __chsCreateRequire(import.meta.url);" },
  external: ['better-sqlite3', 'pg', 'pg-native', 'pg-cloudflare', 'piscina', 'pino', 'thread-stream', 'fastify', '@fastify/*', 'ioredis', '@chs/fixtures'],
  logLevel: 'warning',
  legalComments: 'none',
};

/**
 * pool.ts loads the parse stack (`import('./process.js')`) to process in the calling thread
 * (`--workers 0`). Bundled with the command line, that dynamic import put the parse stack's
 * libraries (libmime and its charset tables) in chunks every `chs` command loaded at start
 * (~60 ms); the bundle takes them from the worker's own build instead, which exports the same.
 */
const processFromWorker = {
  name: 'process-from-worker',
  setup(b) {
    b.onResolve({ filter: /^\.\/process\.js$/ }, (args) =>
      args.kind === 'dynamic-import' && /[\\/]ingest[\\/]pool\.js$/.test(args.importer) ? { path: './worker.js', external: true } : undefined,
    );
  },
};

// The command line, split into chunks so a command loads only its own code.
await build({
  ...common,
  entryPoints: { cli: 'dist/cli/main.js' },
  splitting: true,
  plugins: [processFromWorker],
  chunkNames: 'chunk-[hash]',
  define: { __CHS_BUNDLED_WORKER__: JSON.stringify('./worker.js'), __CHS_BUNDLED_SCORE_WORKER__: JSON.stringify('./score-worker.js') },
});

// The ingest worker, a build of its own: one file sharing no chunk with the command line. Shared
// chunks put the parse stack (libmime, iconv-lite, encoding-japanese) in the chunk that also
// holds what the main thread needs from resolve/ and score/, so every `chs` command loaded it.
await build({
  ...common,
  entryPoints: { worker: '../packages/core/dist/ingest/worker.js' },
  splitting: false,
});

// The health rebuild's scoring thread (health/score-thread.ts), a build of its own for the same
// reason: it reads and scores, and needs none of the command line's other code.
await build({
  ...common,
  entryPoints: { 'score-worker': '../packages/core/dist/health/score-worker.js' },
  splitting: false,
});
