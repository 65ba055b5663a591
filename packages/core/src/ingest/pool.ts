/**
 * Runs `processBatch` either in worker threads (piscina) or in-process. Two workers by default:
 * on a 2-core machine V8's garbage collector and the single writer already use part of the
 * second core, and a third worker measured slower.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { FailedMessage, ProcessInput, ProcessResult, ProcessTask } from './process.js';
import { MessageSlabs } from './slabs.js';
import { ingestWorkerData } from './heap-growth.js';

/** Set (to the worker's path relative to the chunk) only in the command line's bundle; undeclared elsewhere. */
declare const __CHS_BUNDLED_WORKER__: string | undefined;

export interface ProcessPool {
  readonly threads: number;
  run(task: ProcessTask): Promise<ProcessResult[]>;
  close(): Promise<void>;
}

/**
 * The compiled worker file. When this module runs from TypeScript sources (tests), the worker
 * still runs the build output (`dist/`), which `npm test` builds first.
 */
export function workerFile(): string {
  // In the command line's bundle (runner/scripts/bundle.mjs) this code sits in a shared chunk and
  // the worker is an entry of its own beside it, named at build time.
  if (typeof __CHS_BUNDLED_WORKER__ === 'string') return fileURLToPath(new URL(__CHS_BUNDLED_WORKER__, import.meta.url));
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts') ? here.replace(/([\\/])src([\\/]ingest[\\/])pool\.ts$/, '$1dist$2worker.js') : here.replace(/pool\.js$/, 'worker.js');
  if (!existsSync(file)) throw new Error(`ingest worker not built: ${file} (run \`npm run build\`)`);
  return file;
}

/**
 * Young-generation size of each worker's heap (MB). Parsing allocates fast and keeps little, and
 * with V8's default for this machine's memory the two workers' young generations alone add
 * ~60 MB to peak RSS (50k-message bench: 418 MB default, 357-360 MB at 8, same throughput within
 * noise). Since message bytes reach the workers in shared memory (slabs.ts), 2 MB: the whole
 * 50,000-message `chs ingest` peaked at 344-353 MB instead of 368-391 at 4 (and 378-399 at 8),
 * 0.3-0.8 s slower of ~18 s (alternated pairs; smaller, more frequent collections). Only the
 * young generation is bounded: an old-generation limit, when hit, can take the whole process
 * down rather than the worker. How far the old generation grows between collections is turned
 * down instead, by the command that runs the ingest (heap-growth.ts, passed on in `workerData`).
 */
const WORKER_YOUNG_GENERATION_MB = 2;

/** Default time one message may take in a worker before it is abandoned (docs/parsing.md). */
export const DEFAULT_PARSE_BUDGET_MS = 10_000;

export interface ProcessPoolOptions {
  /**
   * Time one message may take in a worker thread (ms): past it the thread is terminated (and
   * replaced), the message counted as a parse error and the rest of its batch processed again
   * on a fresh thread. Default {@link DEFAULT_PARSE_BUDGET_MS}. In-process pools (`threads: 0`)
   * have no budget: nothing can stop synchronous work on the calling thread.
   */
  parseBudgetMs?: number;
  /** Worker entry file (default {@link workerFile}); tests give one with a message that never ends. */
  filename?: string;
}

/** The Message-ID of a raw message, read from its first 64 KiB without parsing (for error reports). */
export function peekMessageId(raw: Uint8Array): string | undefined {
  const head = Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, 64 * 1024)).toString('latin1');
  const blank = head.search(/\r?\n\r?\n/);
  const m = /^message-id:[ \t]*<([^<>\s]{1,250})>/im.exec(blank === -1 ? head : head.slice(0, blank));
  return m?.[1];
}

/** The result that stands for a message abandoned over budget. */
function overBudget(input: ProcessInput, budgetMs: number): FailedMessage {
  const id = peekMessageId(input.raw);
  return {
    ok: false,
    location: input.location,
    kind: 'parse',
    reason: `parse time budget of ${budgetMs} ms exceeded: abandoned${id ? ` (Message-ID <${id}>)` : ''}`,
  };
}

export function createProcessPool(threads: number, options: ProcessPoolOptions = {}): ProcessPool {
  if (threads <= 0) {
    // In-process: the parse stack is loaded on first use, so a process whose parsing runs in
    // worker threads never loads it on its main thread.
    return { threads: 0, run: async (task) => (await import('./process.js')).processBatch(task), close: async () => undefined };
  }
  const budgetMs = options.parseBudgetMs ?? DEFAULT_PARSE_BUDGET_MS;
  const tickMs = Math.max(5, Math.min(250, Math.floor(budgetMs / 4)));
  const piscina = new Piscina({
    filename: options.filename ?? workerFile(),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 60_000,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    workerData: ingestWorkerData(),
  });

  const slabs = new MessageSlabs();

  /**
   * Runs messages in one worker task under watch: the worker writes the index of the message it
   * is on into `progress`; an index unchanged for longer than the budget aborts the task (which
   * terminates the thread). Returns the results, or the index of the message that overran.
   */
  const runWatched = async (task: ProcessTask, messages: ProcessInput[]): Promise<{ results: ProcessResult[] } | { overran: number }> => {
    const progress = new Int32Array(new SharedArrayBuffer(4));
    progress[0] = -1;
    const abort = new AbortController();
    let seen = -1;
    let since = 0;
    let overran = -1;
    const watch = setInterval(() => {
      const at = Atomics.load(progress, 0);
      const now = performance.now();
      if (at !== seen) {
        seen = at;
        since = now;
      } else if (at >= 0 && at < messages.length && now - since > budgetMs) {
        overran = at;
        clearInterval(watch);
        abort.abort();
      }
    }, tickMs);
    try {
      const results = (await piscina.run({ ...task, messages, progress }, { signal: abort.signal })) as ProcessResult[];
      return { results };
    } catch (err) {
      if (overran >= 0) return { overran };
      throw err;
    } finally {
      clearInterval(watch);
    }
  };

  return {
    threads,
    async run(task) {
      // The messages' bytes go to the worker in shared memory (slabs.ts), read in place there
      // (and again by a fresh worker after an overrun); the caller's own are free meanwhile.
      const bytes = slabs.task();
      const messages = task.messages.map((m) => ({ ...m, raw: bytes.add(m.raw) }));
      try {
        const results: ProcessResult[] = new Array<ProcessResult>(messages.length);
        // Ranges still to process; an overrun splits its range around the message that overran.
        const todo: Array<[number, number]> = [[0, messages.length]];
        while (todo.length) {
          const [from, to] = todo.shift()!;
          if (from >= to) continue;
          const outcome = await runWatched(task, messages.slice(from, to));
          if ('results' in outcome) {
            outcome.results.forEach((r, i) => (results[from + i] = r));
            continue;
          }
          const bad = from + outcome.overran;
          results[bad] = overBudget(messages[bad]!, budgetMs);
          todo.unshift([from, bad], [bad + 1, to]);
        }
        return results;
      } finally {
        bytes.release();
      }
    },
    close: () => piscina.destroy(),
  };
}
