/**
 * A health rebuild's second core: a worker thread that reads and scores the rebuild's batches
 * (score-batch.ts) through a connection of its own to the same store (a read-only one to the
 * SQLite file, or one to the PostgreSQL database), while the rebuild's thread writes the batches
 * before them. SQLite runs each statement to its end in the calling thread, so in one thread
 * reading, scoring, encoding and writing take turns; here the writes (about a third of a full
 * rebuild) overlap with the rest. On PostgreSQL the rebuild's thread otherwise scored while the
 * server inserted, and its scoring and garbage collection set the pace.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ChsError, ERROR_CODES, type ErrorCode } from '../errors.js';
import type { StoreLocation } from '../store/database.js';
import type { BatchContext, ClientRow, ScoredBatch } from './score-batch.js';

declare const __CHS_BUNDLED_SCORE_WORKER__: string | undefined;

/**
 * The scoring thread's young generation (MB). Its garbage is a batch's at most; at V8's default
 * size the thread added ~15 MB to the peak of a 50,000-message `chs ingest` (at its highest just
 * then: 289-298 MB against 281-283 at 16), for ~0.1 s of a 2 s rebuild.
 */
const SCORE_WORKER_YOUNG_GENERATION_MB = 16;

export interface ScoreRequest {
  id: number;
  workspaceId: string;
  batch: ClientRow[];
  ctx: BatchContext;
}

/** Asks the thread to close its connection and end (score-worker.ts answers `closed`). */
export interface CloseRequest {
  close: true;
}

export type ScoreReply =
  { id: number; ok: true; result: ScoredBatch } | { id: number; ok: false; error: { message: string; code?: ErrorCode } } | { closed: true };

/** How long close() waits for the thread to close its connection before it is terminated (ms). */
const CLOSE_WAIT_MS = 2_000;

/**
 * The compiled worker file. From TypeScript sources (tests) the worker still runs the build
 * output (`dist/`), which `npm test` builds first.
 */
function scoreWorkerFile(): string {
  // In the command line's bundle (runner/scripts/bundle.mjs) the worker is an entry of its own beside this code's chunk.
  if (typeof __CHS_BUNDLED_SCORE_WORKER__ === 'string') return fileURLToPath(new URL(__CHS_BUNDLED_SCORE_WORKER__, import.meta.url));
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts')
    ? here.replace(/([\\/])src([\\/]health[\\/])score-thread\.ts$/, '$1dist$2score-worker.js')
    : here.replace(/score-thread\.js$/, 'score-worker.js');
  if (!existsSync(file)) throw new Error(`health scoring worker not built: ${file} (run \`npm run build\`)`);
  return file;
}

let started = 0;
/** Scoring threads this process has started (tests tell which way a rebuild went). */
export const scoreThreadsStarted = (): number => started;

export class ScoreThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (r: ScoredBatch) => void; reject: (e: Error) => void }>();
  #next = 0;
  #failed: Error | undefined;

  constructor(where: StoreLocation) {
    started++;
    this.#worker = new Worker(scoreWorkerFile(), { workerData: where, resourceLimits: { maxYoungGenerationSizeMb: SCORE_WORKER_YOUNG_GENERATION_MB } });
    this.#worker.on('message', (reply: ScoreReply) => {
      if ('closed' in reply) return;
      const p = this.#pending.get(reply.id);
      if (!p) return;
      this.#pending.delete(reply.id);
      if (reply.ok) p.resolve(reply.result);
      else {
        const code = reply.error.code;
        p.reject(code !== undefined && ERROR_CODES.includes(code) ? new ChsError(code, reply.error.message) : new Error(reply.error.message));
      }
    });
    // A thread that fails to start (its file, its connection) or dies fails what it was given.
    this.#worker.on('error', (err) => this.#fail(err));
    this.#worker.on('exit', (code) => this.#fail(new Error(`the health scoring thread exited (code ${code})`)));
  }

  #fail(err: Error): void {
    this.#failed ??= err;
    for (const p of this.#pending.values()) p.reject(this.#failed);
    this.#pending.clear();
  }

  /** Reads, scores and encodes a batch in the thread; batches are done in the order given. */
  score(workspaceId: string, batch: ClientRow[], ctx: BatchContext): Promise<ScoredBatch> {
    if (this.#failed) return Promise.reject(this.#failed);
    const id = ++this.#next;
    return new Promise<ScoredBatch>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, workspaceId, batch, ctx } satisfies ScoreRequest);
    });
  }

  /** Ends the thread: its connection is closed first (a PostgreSQL server sees a clean goodbye), then the thread. */
  async close(): Promise<void> {
    this.#worker.removeAllListeners('exit');
    if (!this.#failed) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.#worker.off('message', onReply);
          this.#worker.off('exit', done);
          resolve();
        };
        const onReply = (reply: ScoreReply): void => {
          if ('closed' in reply) done();
        };
        const timer = setTimeout(done, CLOSE_WAIT_MS);
        this.#worker.on('message', onReply);
        this.#worker.on('exit', done);
        this.#worker.postMessage({ close: true } satisfies CloseRequest);
      });
    }
    await this.#worker.terminate();
    this.#fail(new Error('the health scoring thread was closed'));
  }
}
