/**
 * Runs `processBatch` either in worker threads (piscina) or in-process. Two workers by default:
 * on a 2-core machine V8's garbage collector and the single writer already use part of the
 * second core, and a third worker measured slower.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { processBatch, type ProcessResult, type ProcessTask } from './process.js';

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
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts')
    ? here.replace(/([\\/])src([\\/]ingest[\\/])pool\.ts$/, '$1dist$2worker.js')
    : here.replace(/pool\.js$/, 'worker.js');
  if (!existsSync(file)) throw new Error(`ingest worker not built: ${file} (run \`npm run build\`)`);
  return file;
}

/**
 * Young-generation size of each worker's heap (MB). Parsing allocates fast and keeps little, and
 * with V8's default for this machine's memory the two workers' young generations alone add
 * ~60 MB to peak RSS (50k-message bench: 418 MB default, 357-360 MB at 8, same throughput within
 * noise). Only the young generation is bounded: an old-generation limit, when hit, can take the
 * whole process down rather than the worker.
 */
export const WORKER_YOUNG_GENERATION_MB = 8;

export function createProcessPool(threads: number): ProcessPool {
  if (threads <= 0) {
    return { threads: 0, run: (task) => processBatch(task), close: async () => undefined };
  }
  const piscina = new Piscina({
    filename: workerFile(), minThreads: threads, maxThreads: threads, idleTimeout: 60_000,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  return {
    threads,
    run(task) {
      // Each message's bytes are copied into their own ArrayBuffer (a Buffer from a stream is a
      // view of a larger chunk, which structured clone would copy whole) and then moved, not copied.
      const transferList: ArrayBuffer[] = [];
      const messages = task.messages.map((m) => {
        const own = new Uint8Array(m.raw);
        transferList.push(own.buffer);
        return { ...m, raw: own };
      });
      return piscina.run({ ...task, messages }, { transferList }) as Promise<ProcessResult[]>;
    },
    close: () => piscina.destroy(),
  };
}
