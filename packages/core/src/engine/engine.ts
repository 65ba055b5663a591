import { openStore, type Store, type StoreOptions } from '../store/database.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { systemClock, type Clock } from '../util/time.js';
import { ingestSource, type IngestOptions, type IngestSummary } from '../ingest/ingest.js';
import { recomputeHealth } from '../health/recompute.js';

export interface EngineOptions {
  /** A SQLite path, `:memory:`, or a `postgres://` URL; or an already-open Store. */
  database: string | Store;
  /** PostgreSQL pool size. Default 10. */
  poolSize?: number;
  /** PostgreSQL schema. Default `public`. */
  schema?: string;
  /** Default: a logger that drops everything. */
  logger?: Logger;
  /** "Now" for the data (metric windows, snapshot dates). Default: the system clock. */
  clock?: Clock;
}

export interface EngineIngestSummary extends Omit<IngestSummary, 'touched'> {
  health: { clientsScored: number; snapshotsWritten: number };
}

/**
 * The engine: one store plus the services built over it. Another Node service embeds it with
 * `createEngine({ database })`; the runner builds its HTTP API and CLI on it.
 */
export interface Engine {
  readonly store: Store;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Ingests a source into a workspace, then rebuilds the health history of the clients and days it touched. */
  ingest(options: IngestOptions): Promise<EngineIngestSummary>;
  close(): Promise<void>;
}

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const store =
    typeof options.database === 'string'
      ? await openStore({ url: options.database, ...(options.poolSize ? { poolSize: options.poolSize } : {}), ...(options.schema ? { schema: options.schema } : {}) } satisfies StoreOptions)
      : options.database;
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  return Object.freeze({
    store,
    logger,
    clock,
    async ingest(opts: IngestOptions): Promise<EngineIngestSummary> {
      const { touched, ...summary } = await ingestSource({ db: store.db, logger }, opts);
      let health = { clientsScored: 0, snapshotsWritten: 0 };
      if (touched.size > 0) {
        const fromDay = [...touched.values()].sort()[0];
        health = await recomputeHealth(store.db, { workspaceId: opts.workspaceId, clientIds: [...touched.keys()], ...(fromDay ? { fromDay } : {}), now: clock() });
      }
      return { ...summary, health };
    },
    close: () => store.close(),
  });
}
