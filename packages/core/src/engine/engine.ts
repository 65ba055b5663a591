import { ChsError, isChsError, toError } from '../errors.js';
import { openStore, type Store, type StoreOptions } from '../store/database.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { systemClock, type Clock } from '../util/time.js';
import { finishIngestion, ingestSource, type IngestOptions, type IngestSummary } from '../ingest/ingest.js';
import { recomputeHealth } from '../health/recompute.js';
import { syncProvider, type FaultHook, type ProviderSyncInput, type ProviderSyncSummary } from '../sync/provider-sync.js';
import type { ProviderUrlOverrides } from '../connectors/registry.js';
import { RateLimiters } from '../connectors/retry.js';
import type { Db } from '../store/database.js';
import type { SecretKeyInput } from '../integrations/secrets.js';
import { OutboxEmitter, type EngineEvents } from '../events/emitter.js';

export interface EngineOptions {
  /** A SQLite path, `:memory:`, or a `postgres://` URL; or an already-open Store. */
  database: string | Store;
  /** PostgreSQL pool size. Default 10. */
  poolSize?: number;
  /** PostgreSQL schema. Default `public`. */
  schema?: string;
  /** SQLite: how long to wait for a lock another process holds before DATABASE_BUSY. Default 5000. */
  busyTimeoutMs?: number;
  /** Default: a logger that drops everything. */
  logger?: Logger;
  /** "Now" for the data (metric windows, snapshot dates). Default: the system clock. */
  clock?: Clock;
  /** Key that encrypts provider credentials at rest: a SecretKey or 32 bytes (or a function giving it, called on first use). Needed for provider syncs. */
  secretKey?: SecretKeyInput | (() => SecretKeyInput);
  /** Provider base URLs (proxies, EU hosts, local fakes). Default: the public endpoints. */
  providerUrls?: ProviderUrlOverrides;
  /** Bounds on one message, applied to every ingest and sync unless the call sets its own (docs/parsing.md). */
  mailLimits?: MailLimits;
  /**
   * Test-only fault injection: called at fixed points of a provider sync (`fetch`: a page
   * arrived and the next is being fetched; `batch`: a write batch is stored but not committed;
   * `rebuild`: before each batch of the health rebuild is read, scored and written; it applies
   * to `ingest` as well) with a 1-based count. Default none.
   */
  faults?: FaultHook;
  /** How often in-process event listeners (`engine.events`) look for new events (ms). Default 1000. */
  eventsPollMs?: number;
}

/** Bounds on the work one message may cause. */
export interface MailLimits {
  /** Time one message may take in a parse worker before it is abandoned (ms). Default 10 000. */
  parseBudgetMs?: number;
  /** Messages larger than this are skipped as `too_large`. Default 64 MiB. */
  maxMessageBytes?: number;
}

interface HealthUpdate {
  clientsScored: number;
  snapshotsWritten: number;
  /** Time the rebuild took (ms). */
  durationMs: number;
}

interface EngineSyncSummary extends Omit<ProviderSyncSummary, 'touched'> {
  health: HealthUpdate;
}

export interface EngineIngestSummary extends Omit<IngestSummary, 'touched'> {
  health: HealthUpdate;
}

/**
 * The engine: one store plus the services built over it. Another Node service embeds it with
 * `createEngine({ database })`; the runner builds its HTTP API and CLI on it.
 */
export interface Engine {
  readonly store: Store;
  readonly logger: Logger;
  readonly clock: Clock;
  /**
   * The event catalogue as typed in-process events (docs/events.md): `engine.events.on('client.risk_entered', (e) => …)`.
   * Listeners hear what is committed after the engine was created, within `eventsPollMs`, and at once after this engine's own ingest, sync and rebuild.
   */
  readonly events: EngineEvents;
  /** Ingests a source into a workspace, then rebuilds the health history of the clients and days it touched. */
  ingest(options: IngestOptions): Promise<EngineIngestSummary>;
  /** Syncs a connected provider, then rebuilds the health history it touched. */
  sync(input: ProviderSyncInput): Promise<EngineSyncSummary>;
  /** The read of `sync` alone: what it stored and the clients it touched, health not rebuilt yet. */
  readProvider(input: ProviderSyncInput): Promise<ProviderSyncSummary>;
  /** Rebuilds the health history of the touched clients (client id → earliest day touched). */
  rebuildHealth(workspaceId: string, touched: ReadonlyMap<string, string>): Promise<HealthUpdate>;
  close(): Promise<void>;
}

/**
 * Rebuilds the snapshots of the touched clients, each from the first day touched, and of every
 * client of the workspace still stale from a rebuild that did not finish (health/stale.ts), in
 * one recompute. The `rebuild` fault point is each of its batches.
 */
async function rescore(db: Db, workspaceId: string, touched: ReadonlyMap<string, string>, clock: Clock, faults: FaultHook | undefined): Promise<HealthUpdate> {
  const started = performance.now();
  const r = await recomputeHealth(db, {
    workspaceId,
    fromDays: touched,
    includeStale: true,
    now: clock(),
    ...(faults ? { onBatch: (n: number) => faults('rebuild', n) } : {}),
  });
  return { clientsScored: r.clientsScored, snapshotsWritten: r.snapshotsWritten, durationMs: Math.round(performance.now() - started) };
}

/**
 * An ingest or sync whose health rebuild failed: its mail is stored and the clients it had not
 * rescored stay stale, for the next run or the runner to redo. The error keeps its code.
 */
export function rebuildFailed(err: unknown): Error {
  const e = toError(err);
  const message = `the mail was stored, but the health rebuild did not finish (the next ingest or sync, or chs serve, redoes it for the clients it had not written): ${e.message}`;
  return isChsError(e) ? new ChsError(e.code, message, { cause: e, ...(e.details ? { details: e.details } : {}) }) : new Error(message, { cause: e });
}

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const store =
    typeof options.database === 'string'
      ? await openStore({
          url: options.database,
          ...(options.poolSize ? { poolSize: options.poolSize } : {}),
          ...(options.schema ? { schema: options.schema } : {}),
          ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
        } satisfies StoreOptions)
      : options.database;
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const faults = options.faults;
  // The engine's quota buckets: its syncs of one mailbox (a quick sync and a large ingestion) share one.
  const limiters = new RateLimiters();
  let secretKey: SecretKeyInput | undefined;
  const readProvider = async (input: ProviderSyncInput): Promise<ProviderSyncSummary> => {
    if (!options.secretKey) throw new ChsError('INVALID_INPUT', 'the engine was created without a secretKey: provider credentials cannot be read');
    secretKey ??= typeof options.secretKey === 'function' ? options.secretKey() : options.secretKey;
    return syncProvider(
      { db: store.db, logger, clock, secretKey, limiters, ...(options.providerUrls ? { urls: options.providerUrls } : {}), ...(faults ? { faults } : {}) },
      { ...options.mailLimits, ...input },
    );
  };
  const events = new OutboxEmitter(store.db, { logger, ...(options.eventsPollMs !== undefined ? { pollMs: options.eventsPollMs } : {}) });
  await events.begin();
  const announced = async <T>(work: Promise<T>): Promise<T> => {
    const result = await work;
    await events.flush();
    return result;
  };
  const rebuildHealth = (workspaceId: string, touched: ReadonlyMap<string, string>) => announced(rescore(store.db, workspaceId, touched, clock, faults));
  return Object.freeze({
    store,
    logger,
    clock,
    events,
    async ingest(opts: IngestOptions): Promise<EngineIngestSummary> {
      // The run is finished here, after its rebuild: until then it is `running` and keeps its
      // cursor, so a run that stops in the rebuild (failed, or killed) is never `completed`, and
      // the next one resumes at the end of what it read and redoes the rebuild.
      const { touched, ...summary } = await announced(ingestSource({ db: store.db, logger }, { ...options.mailLimits, ...opts, leaveRunOpen: true }));
      let health: HealthUpdate;
      try {
        health = await rebuildHealth(opts.workspaceId, touched);
      } catch (err) {
        await finishIngestion(store.db, { runId: summary.runId, status: 'failed' }).catch(() => undefined);
        throw rebuildFailed(err);
      }
      await finishIngestion(store.db, {
        runId: summary.runId,
        status: summary.status,
        ...(summary.status === 'completed' && !opts.keepCursor ? { dropCursor: { workspaceId: opts.workspaceId, sourceKey: opts.source.key } } : {}),
      });
      return { ...summary, health };
    },
    async sync(input: ProviderSyncInput): Promise<EngineSyncSummary> {
      const { touched, ...summary } = await readProvider(input);
      try {
        return { ...summary, health: await rebuildHealth(input.workspaceId, touched) };
      } catch (err) {
        throw rebuildFailed(err);
      }
    },
    readProvider,
    rebuildHealth,
    close: async () => {
      events.close();
      await store.close();
    },
  });
}
