// Worker entry: a health rebuild's scoring thread (score-thread.ts). Each message is one batch:
// read through this thread's own connection (SQLite read-only, or PostgreSQL), scored and encoded (score-batch.ts), and
// sent back for the rebuild's thread to write. Batches are handled one at a time, in order.
import { parentPort, workerData } from 'node:worker_threads';
import { openStoreReader, type Db, type StoreLocation } from '../store/database.js';
import { isChsError, toError } from '../errors.js';
import { scoreAndEncode } from './score-batch.js';
import type { CloseRequest, ScoreReply, ScoreRequest } from './score-thread.js';

const port = parentPort;
if (!port) throw new Error('score-worker.js runs as a worker thread (health/score-thread.ts)');
// The heap limits `chs ingest` sets (ingest/heap-growth.ts) are not applied again here: the
// ingest is over when a rebuild starts, and with them this thread's rebuild took ~0.25 s longer
// (2.4 s against 2.15) for no lower peak.
// A store it cannot open fails each batch it is given, with the store's typed error.
const reader: Promise<Db> = openStoreReader(workerData as StoreLocation);
reader.catch(() => undefined);

let queue: Promise<void> = Promise.resolve();
port.on('message', (req: ScoreRequest | CloseRequest) => {
  queue = queue.then(() => ('close' in req ? close() : handle(req)));
});

async function close(): Promise<void> {
  await reader.then((db) => db.destroy()).catch(() => undefined);
  port!.postMessage({ closed: true } satisfies ScoreReply);
}

async function handle(req: ScoreRequest): Promise<void> {
  try {
    const result = await scoreAndEncode(await reader, req.workspaceId, req.batch, req.ctx);
    const e = result.encoded;
    // The typed arrays move to the rebuild's thread rather than being copied.
    port!.postMessage({ id: req.id, ok: true, result } satisfies ScoreReply, [
      e.scores.buffer,
      e.confidences.buffer,
      e.refs.buffer,
      e.figures.buffer,
      e.figureEnds.buffer,
    ]);
  } catch (err) {
    const e = toError(err);
    port!.postMessage({ id: req.id, ok: false, error: { message: e.message, ...(isChsError(e) ? { code: e.code } : {}) } } satisfies ScoreReply);
  }
}
