// Worker entry: a health rebuild's scoring thread (score-thread.ts). Each message is one batch:
// read through this thread's own read-only connection, scored and encoded (score-batch.ts), and
// sent back for the rebuild's thread to write. Batches are handled one at a time, in order.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteReader, type SqliteFaultContext } from '../store/database.js';
import { isChsError } from '../errors.js';
import { scoreAndEncode } from './score-batch.js';
import type { ScoreReply, ScoreRequest } from './score-thread.js';

const port = parentPort;
if (!port) throw new Error('score-worker.js runs as a worker thread (health/score-thread.ts)');
// The heap limits `chs ingest` sets (ingest/heap-growth.ts) are not applied again here: the
// ingest is over when a rebuild starts, and with them this thread's rebuild took ~0.25 s longer
// (2.4 s against 2.15) for no lower peak.
// A store it cannot open fails each batch it is given, with the store's typed error.
let reader: ReturnType<typeof openSqliteReader> | { failed: unknown };
try {
  reader = openSqliteReader(workerData as SqliteFaultContext);
} catch (err) {
  reader = { failed: err };
}

let queue: Promise<void> = Promise.resolve();
port.on('message', (req: ScoreRequest) => {
  queue = queue.then(() => handle(req));
});

async function handle(req: ScoreRequest): Promise<void> {
  let reply: ScoreReply;
  try {
    if ('failed' in reader) throw reader.failed;
    const result = await scoreAndEncode(reader.db, req.workspaceId, req.batch, req.ctx);
    const e = result.encoded;
    reply = { id: req.id, ok: true, result };
    port!.postMessage(reply, [e.scores.buffer, e.confidences.buffer, e.refs.buffer, e.figures.buffer, e.figureEnds.buffer]);
    return;
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    reply = { id: req.id, ok: false, error: { message: e.message, ...(isChsError(e) ? { code: e.code } : {}) } };
  }
  port!.postMessage(reply);
}
