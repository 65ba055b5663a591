/**
 * Ingestion of one source into one workspace: read → (worker pool: head, filter, resolve, body,
 * strip, score) → store, streaming with bounded memory, idempotent, resumable.
 */
import type { Db } from '../store/database.js';
import type { RawMessage, Source, SourceCursor } from '../interfaces.js';
import { ChsError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import type { BackendName } from '../parse/backends.js';
import { finishIngestionRun, startIngestionRun } from './runs.js';
import { dropCursor, loadCursor } from './cursors.js';
import { createProcessPool, type ProcessPool } from './pool.js';
import { MessageSlabs } from './slabs.js';
import type { ProcessInput, ProcessResult } from './process.js';
import { IngestWriter, type BatchCheckpoint, type RunCounts } from './writer.js';
import { getSettings } from '../settings/settings.js';

export interface IngestProgress {
  /** Messages stored (committed with their batch). */
  processed: number;
  /** Messages read from the source in this run, stored or not yet (reported every ~250 ms while reading). */
  read: number;
  /** Bytes of the source read so far and its size, when the source has one (an mbox file). */
  bytesRead?: number;
  bytesTotal?: number;
  /** Total messages when the source knows it. */
  total: number | undefined;
  added: number;
  updated: number;
  skipped: number;
  filtered: number;
  errors: number;
  /** Messages per second since the start. */
  rate: number;
  /** Seconds left at the current rate, when the total is known. */
  etaSeconds: number | undefined;
}

export interface IngestOptions {
  workspaceId: string;
  source: Source<RawMessage>;
  /** Worker threads for parse/score; 0 processes in the calling thread. Default 2. */
  workers?: number;
  /** Messages per write transaction. Default 1000. */
  batchSize?: number;
  /** Resume an unfinished earlier run of the same source from its saved cursor. Default true. */
  resume?: boolean;
  /** Job this run belongs to, if any. */
  jobId?: string;
  signal?: AbortSignal;
  onProgress?: (p: IngestProgress) => void;
  /** Reuse a pool across runs (the caller closes it). */
  pool?: ProcessPool;
  /** Run inside every batch's transaction (job progress moves with the data). */
  checkpoint?: BatchCheckpoint;
  /**
   * Keep the cursor when the run completes (provider syncs continue from it next time).
   * Default false: a local mailbox read to its end is read whole again next time.
   */
  keepCursor?: boolean;
  /** Stop after this many messages. Default: no limit. */
  maxItems?: number;
  /**
   * Leave the run `running`, and its cursor saved, once the source is read: the caller finishes
   * it after its own last step (`engine.ingest`: the health rebuild), so a run is never recorded
   * as done before that step is. Default false: the run ends with the read.
   */
  leaveRunOpen?: boolean;
  /** MIME parser backend in the workers. Default: parse.ts's DEFAULT_BACKEND. */
  parser?: BackendName;
  /** Time one message may take in a worker thread before it is abandoned (pool.ts). Default 10 s. */
  parseBudgetMs?: number;
  /** Messages larger than this are skipped as `too_large`. Default 64 MiB (process.ts MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
}

/**
 * Where the calling thread spent its time (ms), for benchmarks: reading and splitting the source,
 * waiting for worker results, and the writer (resolve + store). Parse/filter/score run in workers.
 */
export interface IngestStageTimes {
  readMs: number;
  waitMs: number;
  writeMs: number;
}

/** The counts every run reports (local mailbox, provider sync): the API's sync-history fields. */
export interface RunTotals {
  runId: string;
  status: 'completed' | 'cancelled';
  itemsProcessed: number;
  itemsAdded: number;
  itemsUpdated: number;
  itemsSkipped: number;
  itemsFiltered: number;
  errorsCount: number;
  clientsCreated: number;
  contactsCreated: number;
}

export interface IngestSummary extends RunTotals {
  /** Why messages added nothing to a scored client; `suggested`: stored, kept for suggested clients. */
  skipped: RunCounts['skippedBy'];
  /** Suggested clients made (resolve/discovery.ts): domains the mail names that are not clients yet. */
  clientsSuggested: number;
  filtered: Record<string, number>;
  processingErrors: { parseErrors: number; charsetErrors: number; attachmentErrors: number; sentimentErrors: number };
  interactionsCreated: number;
  resumedFrom: SourceCursor | null;
  durationMs: number;
  stages: IngestStageTimes;
  /** Clients whose interactions changed → earliest day touched (YYYY-MM-DD). */
  touched: Map<string, string>;
}

/**
 * A worker task ends at this many messages or bytes, whichever comes first. A worker that
 * finishes its task waits for this thread to hand it the next, which it cannot while it writes
 * a batch: a task must outlast that write. At 50 messages (~30 ms of parsing) each worker sat
 * idle 5 s of a 22 s, 50,000-message ingest; at 200 (~120 ms) the whole command took 22.0 s
 * instead of 24.9 (medians of 3 alternated runs each). The byte bound keeps a task of large
 * messages small.
 */
const TASK_MESSAGES = 200;
const TASK_BYTES = 4 * 1024 * 1024;
/** …or once its first message has waited this long (ms): a slow source (Gmail) still streams. */
const TASK_WAIT_MS = 50;
/**
 * Raw bytes handed to workers and not yet written (besides the batch being written; at least one
 * task): 16 MiB, four tasks of 4 MiB, kept both workers busy with less memory than 24.
 */
const MAX_IN_FLIGHT_BYTES = 16 * 1024 * 1024;

/** How often the read counter is reported while messages are read (ms). */
const PROGRESS_EVERY_MS = 250;

/** The byte position a cursor stands at (an mbox's `offset`), when it has one. */
function byteOffset(cursor: SourceCursor): number | undefined {
  const o = cursor['offset'];
  return typeof o === 'number' && Number.isFinite(o) ? o : undefined;
}

export interface IngestDeps {
  db: Db;
  logger: Logger;
}

export async function ingestSource(deps: IngestDeps, options: IngestOptions): Promise<IngestSummary> {
  const { db, logger } = deps;
  const { workspaceId, source } = options;
  const started = Date.now();
  const ws = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
  if (!ws) throw new ChsError('WORKSPACE_NOT_FOUND', `unknown workspace: ${workspaceId}`);
  const ownDomains = (await db.selectFrom('workspace_domains').select('domain').where('workspace_id', '=', workspaceId).execute()).map((r) => r.domain);
  const blocklist = (await db.selectFrom('blocklist').select('entry').where('workspace_id', '=', workspaceId).execute()).map((r) => r.entry);
  const rules = { blocklist, ownDomains: ownDomains.length ? ownDomains : [workspaceId] };

  let resumedFrom: SourceCursor | null = null;
  if (options.resume ?? true) {
    resumedFrom = (await loadCursor(db, workspaceId, source.key)) ?? null;
  }

  const runId = await startIngestionRun(db, { workspaceId, source: source.kind, jobId: options.jobId });

  const writer = await IngestWriter.open({
    db,
    workspaceId,
    runId,
    sourceKind: source.kind,
    sourceKey: source.key,
    now: () => new Date(),
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    discovery: (await getSettings(db, workspaceId)).clientDiscovery,
  });
  const pool = options.pool ?? createProcessPool(options.workers ?? 2, options.parseBudgetMs !== undefined ? { parseBudgetMs: options.parseBudgetMs } : {});
  const batchSize = options.batchSize ?? 1000;
  // Enough tasks queued that the workers keep parsing while this thread writes a batch; bounded
  // by count and by bytes, so memory stays flat whatever the message sizes.
  const maxInFlight = Math.max(2, pool.threads * 4);
  let total: number | undefined;
  let status: IngestSummary['status'] = 'completed';
  const stages: IngestStageTimes = { readMs: 0, waitMs: 0, writeMs: 0 };
  const write = async (items: Parameters<IngestWriter['write']>[0]): Promise<void> => {
    const t = performance.now();
    await writer.write(items);
    stages.writeMs += performance.now() - t;
  };

  let read = 0;
  let bytesRead: number | undefined;
  let bytesTotal: number | undefined;
  let reported = 0;
  const progress = (): void => {
    if (!options.onProgress) return;
    reported = performance.now();
    const c = writer.counts;
    const secs = Math.max((Date.now() - started) / 1000, 0.001);
    const rate = c.processed / secs;
    options.onProgress({
      processed: c.processed,
      read: Math.max(read, c.processed),
      ...(bytesRead !== undefined && bytesTotal !== undefined ? { bytesRead, bytesTotal } : {}),
      total,
      added: c.added,
      updated: c.updated,
      skipped: c.skipped,
      filtered: c.filtered,
      errors: c.errors,
      rate,
      etaSeconds: total !== undefined && rate > 0 ? Math.max(0, (total - c.processed) / rate) : undefined,
    });
  };

  try {
    // The count (a whole pass over an mbox: ~0.7 s for 1 GB) runs beside the ingest rather than
    // before it: progress shows the total, and the ETA, from when it is known. After a resume the
    // remaining count is unknown. A source that cannot be counted fails on its read below. A run
    // nobody follows (no onProgress: a script, `chs ingest --json`) does not read its source twice.
    if (!resumedFrom && source.total && options.onProgress) {
      source.total().then(
        (n) => {
          total = n;
          progress();
        },
        () => undefined,
      );
    }
    // The file's size is one stat, known before the first message: the bar can follow bytes from the start.
    if (source.size) {
      bytesTotal = await source.size().catch(() => undefined);
      if (bytesTotal !== undefined) bytesRead = (resumedFrom ? byteOffset(resumedFrom) : undefined) ?? 0;
    }
    progress();
    const inFlight: Array<{ results: Promise<ProcessResult[]>; cursors: SourceCursor[]; bytes: number }> = [];
    let inFlightBytes = 0;
    const buffer: Array<{ result: ProcessResult; cursor: SourceCursor }> = [];
    // Each message is copied into shared memory as it is read (slabs.ts): the source may then
    // read the next one into the same buffer, and the worker reads the copy in place.
    const slabs = new MessageSlabs();
    let task: ProcessInput[] = [];
    let taskMemory = slabs.task();
    let taskBytes = 0;
    let taskSince = 0;
    let cursors: SourceCursor[] = [];

    const drainOne = async (): Promise<void> => {
      const head = inFlight.shift();
      if (!head) return;
      inFlightBytes -= head.bytes;
      const waited = performance.now();
      const results = await head.results;
      stages.waitMs += performance.now() - waited;
      results.forEach((result, i) => buffer.push({ result, cursor: head.cursors[i]! }));
      // Batches of exactly batchSize (a task's results may complete more than one).
      while (buffer.length >= batchSize) {
        await write(buffer.splice(0, batchSize));
        progress();
      }
    };
    const submit = async (): Promise<void> => {
      if (task.length === 0) return;
      const results = pool.run({
        messages: task,
        rules,
        ...(options.parser ? { parser: options.parser } : {}),
        ...(options.maxMessageBytes !== undefined ? { maxMessageBytes: options.maxMessageBytes } : {}),
      });
      // The task's memory is free once its results are in, whether they came or failed. This also
      // observes a failure, which is thrown where the results are drained, not as an unhandled
      // rejection meanwhile.
      const memory = taskMemory;
      results.then(
        () => memory.release(),
        () => memory.release(),
      );
      inFlight.push({ results, cursors, bytes: taskBytes });
      inFlightBytes += taskBytes;
      task = [];
      taskMemory = slabs.task();
      taskBytes = 0;
      cursors = [];
      while (inFlight.length >= maxInFlight || (inFlight.length > 1 && inFlightBytes > MAX_IN_FLIGHT_BYTES)) await drainOne();
    };

    try {
      let asked = performance.now();
      for await (const m of source.items(resumedFrom ?? undefined, { transient: true })) {
        stages.readMs += performance.now() - asked;
        task.push({
          raw: taskMemory.add(m.raw),
          location: m.location,
          ...(m.envelopeDate ? { envelopeDate: m.envelopeDate } : {}),
          ...(m.labels?.length ? { labels: m.labels } : {}),
          ...(m.refused ? { refused: m.refused } : {}),
          ...(m.lineEndingsChecked ? { lineEndingsChecked: true } : {}),
        });
        cursors.push(m.cursor);
        taskBytes += m.raw.byteLength;
        if (task.length === 1) taskSince = performance.now();
        if (task.length >= TASK_MESSAGES || taskBytes >= TASK_BYTES || performance.now() - taskSince >= TASK_WAIT_MS) await submit();
        if (options.signal?.aborted) {
          status = 'cancelled';
          break;
        }
        read += 1;
        if (bytesTotal !== undefined) bytesRead = byteOffset(m.cursor) ?? bytesRead;
        // The read counter moves between stored batches too (a slow source, a large batch).
        if (performance.now() - reported >= PROGRESS_EVERY_MS) progress();
        if (options.maxItems !== undefined && read >= options.maxItems) break;
        asked = performance.now();
      }
    } catch (err) {
      if (err instanceof ChsError) throw err;
      throw new ChsError('SOURCE_UNREADABLE', `cannot read ${source.key}: ${(err as Error).message}`, { cause: err });
    }
    await submit();
    while (inFlight.length) await drainOne();
    await write(buffer);
    progress();

    const c = writer.counts;
    if (!options.leaveRunOpen) {
      await finishIngestion(db, {
        runId,
        status,
        ...(status === 'completed' && !options.keepCursor ? { dropCursor: { workspaceId, sourceKey: source.key } } : {}),
      });
    }
    logger.info({ runId, source: source.key, processed: c.processed, added: c.added }, 'ingestion read finished');
    return {
      runId,
      status,
      itemsProcessed: c.processed,
      itemsAdded: c.added,
      itemsUpdated: c.updated,
      itemsSkipped: c.skipped,
      itemsFiltered: c.filtered,
      errorsCount: c.errors,
      skipped: { ...c.skippedBy },
      filtered: { ...c.filteredBy },
      processingErrors: {
        parseErrors: c.problems.parse,
        charsetErrors: c.problems.charset,
        attachmentErrors: c.problems.attachment,
        sentimentErrors: c.problems.sentiment,
      },
      clientsCreated: c.clientsCreated,
      clientsSuggested: c.clientsSuggested,
      contactsCreated: c.contactsCreated,
      interactionsCreated: c.interactionsCreated,
      resumedFrom,
      durationMs: Date.now() - started,
      stages,
      touched: writer.touched,
    };
  } catch (err) {
    await finishIngestionRun(db, runId, 'failed').catch(() => undefined);
    throw err;
  } finally {
    if (!options.pool) await pool.close();
  }
}

/**
 * Ends a run with its status; `dropCursor`: and forgets its source's cursor, in the same
 * transaction (a finished run leaves no cursor: the next run of the same mailbox reads it again,
 * and adds nothing new).
 */
export async function finishIngestion(
  db: Db,
  run: { runId: string; status: 'completed' | 'cancelled' | 'failed'; dropCursor?: { workspaceId: string; sourceKey: string } },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await finishIngestionRun(trx, run.runId, run.status);
    if (run.dropCursor) await dropCursor(trx, run.dropCursor.workspaceId, run.dropCursor.sourceKey);
  });
}
