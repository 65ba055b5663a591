/**
 * One sync of one provider for one workspace: build the connector from the stored (encrypted)
 * credentials, drive it, and store what it yields through the same pipeline as local mail
 * (Google) or the records writer (HubSpot, Intercom), saving its cursor with every batch.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { RawMessage, Source, SourceCursor } from '../interfaces.js';
import { ChsError, isChsError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import { createConnector, type ProviderUrlOverrides } from '../connectors/registry.js';
import type { RateLimiters } from '../connectors/retry.js';
import type {
  CredentialsByProvider,
  Provider,
  RecordsConnector,
  SyncBatch,
  SyncOptions,
  SyncProgress as ConnectorProgress,
  UnreconciledItem,
} from '../connectors/types.js';
import {
  getIntegrationCredentials,
  hubspotSettings,
  listIntegrationAccounts,
  markIntegrationSynced,
  markNeedsReauth,
  updateIntegrationTokens,
  type Integration,
} from '../integrations/repository.js';
import type { SecretKeyInput } from '../integrations/secrets.js';
import { ingestSource, type IngestProgress, type RunTotals } from '../ingest/ingest.js';
import { readAhead } from '../util/read-ahead.js';
import type { ProcessPool } from '../ingest/pool.js';
import { RecordWriter } from '../ingest/records.js';
import { finishIngestionRun, startIngestionRun } from '../ingest/runs.js';
import { dropCursor, loadCursor, saveCursor } from '../ingest/cursors.js';
import type { BatchCheckpoint, RunCounts } from '../ingest/writer.js';
import { Resolver } from '../resolve/resolve.js';
import { createSentimentScorer } from '../score/sentiment.js';

export interface ProviderSyncDeps {
  db: Db;
  logger: Logger;
  clock: Clock;
  /** Key that decrypts stored credentials. */
  secretKey: SecretKeyInput;
  urls?: ProviderUrlOverrides;
  /** The engine's client-side quota buckets, shared by its syncs of one account. Default: each sync its own. */
  limiters?: RateLimiters;
  /** Test-only fault injection (EngineOptions.faults). Default none. */
  faults?: FaultHook;
}

type Executor = Kysely<Database> | Transaction<Database>;

/** Points of a sync where a test may inject a fault: a page of mail just arrived (the next is being fetched), a write batch stored but not committed. */
export type FaultPoint = 'fetch' | 'batch' | 'rebuild';
/** Called at each fault point with a 1-based count of that point in this run. */
export type FaultHook = (point: FaultPoint, n: number) => void;

/**
 * Saved with a message that is not the last of its page: the provider id of that message. The
 * cursor is then the page's start, so a resume re-lists the page and skips up to this message
 * instead of reading the committed part of the page again (its counts would be counted twice).
 */
const RESUME_AFTER = 'resumeAfter';

export interface ProviderSyncInput {
  workspaceId: string;
  provider: Provider;
  /** `quick`: from the saved cursor; `full`: a windowed read back to `since`. */
  mode: 'quick' | 'full';
  since?: Date;
  until?: Date;
  /** Stop after this many items (large ingestion's maxEmails). */
  maxItems?: number;
  /** Items per write transaction. Default 1000 (mail), one connector batch (records). */
  batchSize?: number;
  /**
   * Where the cursor is kept. Default `<provider>`: the incremental position shared by quick
   * syncs. Backfills and large ingestions use their own key so they resume without moving it.
   */
  cursorKey?: string;
  /** Drop the cursor when the run completes (one-off backfills). Default false. */
  dropCursorOnComplete?: boolean;
  jobId?: string;
  signal?: AbortSignal;
  checkpoint?: BatchCheckpoint;
  onProgress?: (p: SyncProgress) => void;
  pool?: ProcessPool;
  workers?: number;
  /** Per-message bounds of the parse workers (ingest.ts). */
  parseBudgetMs?: number;
  maxMessageBytes?: number;
}

/**
 * Progress of a sync, reported whenever it moves (a read, a stored batch, the provider's count, a
 * wait): `total` is capped by maxItems; `providerTotal` is the provider's own count, once it said;
 * `waiting` is set while the provider made the sync wait (Retry-After) and that wait has not ended.
 */
interface SyncProgress extends IngestProgress {
  providerTotal?: number;
  waiting?: { reason: string; until: Date };
}

export interface ProviderSyncSummary extends RunTotals {
  provider: Provider;
  /** Items the provider listed but that could not be read after a retry, with reasons. */
  unreconciled: UnreconciledItem[];
  /** Set when the provider refused the incremental cursor and a full resync ran. */
  resync: string | null;
  durationMs: number;
  touched: Map<string, string>;
  /** Each account's part (several Google mailboxes); absent on a single account's own summary. */
  accounts?: AccountSyncResult[];
}

/** What one account (a Google mailbox) did in a sync: its counts, or why it was left out. */
export interface AccountSyncResult {
  /** The mailbox address (Google); '' for HubSpot and Intercom. */
  account: string;
  status: 'completed' | 'cancelled' | 'needs_reauth';
  itemsProcessed: number;
  itemsAdded: number;
  /** Why the account could not sync (it is marked needs_reauth; the others went on). */
  error: string | null;
}

/** Where an account's cursor is kept: the key with the account after it (Google mailboxes), or the key itself. */
export function accountCursorKey(key: string, account: string): string {
  return account === '' ? key : `${key}:${account}`;
}

/** Drops a one-off read's cursors: the key itself and every account's (accountCursorKey). */
export async function dropSyncCursors(db: Executor, workspaceId: string, provider: Provider, key: string): Promise<void> {
  await dropCursor(db, workspaceId, key);
  for (const a of await listIntegrationAccounts(db, workspaceId, provider))
    if (a.account !== '') await dropCursor(db, workspaceId, accountCursorKey(key, a.account));
}

/**
 * One sync of a provider for a workspace: every connected account in turn (each Google mailbox
 * with its own cursor, quota bucket, status and errors). An account whose credentials are dead is
 * marked needs_reauth and the others go on; only when none could sync does the sync fail with it.
 * Any other error stops the sync (the job retries or parks; accounts done keep their cursors).
 * A message seen in two mailboxes is stored once (the writer dedupes by Message-ID per client).
 */
export async function syncProvider(deps: ProviderSyncDeps, input: ProviderSyncInput): Promise<ProviderSyncSummary> {
  const { db, logger } = deps;
  const { workspaceId, provider } = input;
  const all = await listIntegrationAccounts(db, workspaceId, provider);
  const live = all.filter((a) => a.state === 'connected');
  if (live.length === 0) {
    const dead = all.find((a) => a.state === 'needs_reauth');
    if (dead)
      throw new ChsError(
        'INTEGRATION_NEEDS_REAUTH',
        `${provider} needs to be connected again for ${workspaceId}${dead.lastError ? `: ${dead.lastError}` : ''}`,
      );
    throw new ChsError('INTEGRATION_NOT_CONNECTED', `${provider} is not connected for ${workspaceId}`);
  }
  const counters = { batches: 0 };
  const accounts: AccountSyncResult[] = [];
  let total: ProviderSyncSummary | undefined;
  let refused: ChsError | undefined;
  for (const a of live) {
    const left = input.maxItems === undefined ? undefined : input.maxItems - (total?.itemsProcessed ?? 0);
    if (left !== undefined && left <= 0) break;
    // The caller's checkpoint and progress see the whole sync: the accounts already read are added
    // to this account's running counts (a job's checkpoint is its totals so far, not one account's).
    const done = total;
    const checkpoint: BatchCheckpoint | undefined =
      input.checkpoint && done
        ? (trx, counts, cursor, touched) => input.checkpoint!(trx, plusCounts(counts, done), cursor, mergeTouched(done.touched, touched))
        : input.checkpoint;
    const onProgress =
      input.onProgress && done
        ? (p: SyncProgress): void =>
            input.onProgress!({
              ...plusTotals(p, done),
              read: p.read + done.itemsProcessed,
              // This mailbox's count comes after what the mailboxes before it held.
              ...(p.total !== undefined ? { total: p.total + done.itemsProcessed } : {}),
              ...(p.providerTotal !== undefined ? { providerTotal: p.providerTotal + done.itemsProcessed } : {}),
            })
        : input.onProgress;
    let s: ProviderSyncSummary;
    try {
      s = await syncAccount(
        deps,
        { ...input, ...(left !== undefined ? { maxItems: left } : {}), ...(checkpoint ? { checkpoint } : {}), ...(onProgress ? { onProgress } : {}) },
        a,
        counters,
      );
    } catch (err) {
      if (!isChsError(err, 'INTEGRATION_NEEDS_REAUTH')) throw err;
      refused ??= err;
      accounts.push({ account: a.account, status: 'needs_reauth', itemsProcessed: 0, itemsAdded: 0, error: err.message });
      logger.warn({ provider, workspaceId, account: a.account }, 'account needs to be connected again; the others sync on');
      continue;
    }
    accounts.push({ account: a.account, status: s.status, itemsProcessed: s.itemsProcessed, itemsAdded: s.itemsAdded, error: null });
    total = total ? mergeSummaries(total, s) : s;
    if (s.status === 'cancelled') break;
  }
  if (!total) throw refused ?? new ChsError('INTERNAL', 'no account was synced');
  return { ...total, accounts };
}

/** Client id → earliest day touched, of both. */
function mergeTouched(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): Map<string, string> {
  const touched = new Map(a);
  for (const [client, day] of b) {
    const was = touched.get(client);
    if (was === undefined || day < was) touched.set(client, day);
  }
  return touched;
}

type Totals = Pick<RunCounts, 'processed' | 'added' | 'updated' | 'skipped' | 'filtered' | 'errors'>;

/** Running totals (counts or progress) plus those of the accounts read before. */
function plusTotals<T extends Totals>(c: T, before: ProviderSyncSummary): T {
  return {
    ...c,
    processed: c.processed + before.itemsProcessed,
    added: c.added + before.itemsAdded,
    updated: c.updated + before.itemsUpdated,
    skipped: c.skipped + before.itemsSkipped,
    filtered: c.filtered + before.itemsFiltered,
    errors: c.errors + before.errorsCount,
  };
}

/** An account's running counts plus those of the accounts read before it. */
function plusCounts(c: Readonly<RunCounts>, before: ProviderSyncSummary): RunCounts {
  return {
    ...plusTotals({ ...c }, before),
    clientsCreated: c.clientsCreated + before.clientsCreated,
    contactsCreated: c.contactsCreated + before.contactsCreated,
  };
}

function mergeSummaries(a: ProviderSyncSummary, b: ProviderSyncSummary): ProviderSyncSummary {
  const touched = mergeTouched(a.touched, b.touched);
  return {
    ...a,
    status: b.status === 'cancelled' ? 'cancelled' : a.status,
    itemsProcessed: a.itemsProcessed + b.itemsProcessed,
    itemsAdded: a.itemsAdded + b.itemsAdded,
    itemsUpdated: a.itemsUpdated + b.itemsUpdated,
    itemsSkipped: a.itemsSkipped + b.itemsSkipped,
    itemsFiltered: a.itemsFiltered + b.itemsFiltered,
    errorsCount: a.errorsCount + b.errorsCount,
    clientsCreated: a.clientsCreated + b.clientsCreated,
    contactsCreated: a.contactsCreated + b.contactsCreated,
    unreconciled: [...a.unreconciled, ...b.unreconciled],
    resync: a.resync ?? b.resync,
    durationMs: a.durationMs + b.durationMs,
    touched,
  };
}

/** One account's sync: its credentials, its settings, its connector, its cursor. */
async function syncAccount(
  deps: ProviderSyncDeps,
  input: ProviderSyncInput,
  integration: Integration,
  counters: { batches: number },
): Promise<ProviderSyncSummary> {
  const { db, logger, clock, secretKey } = deps;
  const { workspaceId, provider } = input;
  const { account } = integration;
  const credentials = await getIntegrationCredentials(db, secretKey, workspaceId, provider, account);
  // What the sync last reported, and what the connector said since: the provider's count, the rows
  // it listed (records connectors), a wait it was told to make. Each of them is reported at once.
  let last: IngestProgress | undefined;
  let totalEstimate: number | undefined;
  let listed = 0;
  // Messages of a page a resume fetched again but skips (stored by the attempt before): not read anew.
  let reread = 0;
  // HubSpot and Intercom: what is read is the search rows the connector listed (the total's unit).
  let rows = false;
  let waiting: SyncProgress['waiting'];
  const capped = (n: number | undefined): number | undefined =>
    n === undefined ? input.maxItems : input.maxItems === undefined ? n : Math.min(n, input.maxItems);
  const report = (): void => {
    if (!input.onProgress) return;
    const p: IngestProgress = last ?? {
      processed: 0,
      read: 0,
      total: undefined,
      added: 0,
      updated: 0,
      skipped: 0,
      filtered: 0,
      errors: 0,
      rate: 0,
      etaSeconds: undefined,
    };
    const total = capped(totalEstimate) ?? p.total;
    const etaSeconds = total !== undefined && p.rate > 0 ? Math.max(0, (total - p.processed) / p.rate) : undefined;
    if (waiting && waiting.until.getTime() <= Date.now()) waiting = undefined;
    input.onProgress({
      ...p,
      read: rows ? listed : Math.max(p.read, listed - reread),
      total,
      etaSeconds,
      ...(totalEstimate !== undefined ? { providerTotal: totalEstimate } : {}),
      ...(waiting ? { waiting } : {}),
    });
  };
  const connector = await createConnector(provider, {
    credentials,
    retry: {
      onWait: (w) => {
        waiting = w;
        report();
      },
    },
    ...(deps.urls ? { urls: deps.urls } : {}),
    ...(deps.limiters ? { limiters: deps.limiters } : {}),
    ...(provider === 'hubspot' ? { hubspotRenewalPipelineId: hubspotSettings(integration.config).renewalPipelineId ?? undefined } : {}),
    logger,
    clock,
    // Refreshed tokens (Google, HubSpot OAuth apps) are sealed again for this account.
    onTokens: async (c: CredentialsByProvider[typeof provider]) => updateIntegrationTokens(db, secretKey, workspaceId, provider, c, account),
  });
  rows = connector.kind === 'records';
  const cursorKey = accountCursorKey(input.cursorKey ?? provider, account);
  const checkpoint: BatchCheckpoint | undefined =
    input.checkpoint || deps.faults
      ? async (trx, counts, cursor, touched) => {
          await input.checkpoint?.(trx, counts, cursor, touched);
          deps.faults?.('batch', ++counters.batches);
        }
      : undefined;
  // The provider's own count (e.g. Gmail's resultSizeEstimate), capped by maxItems, is the progress total.
  const onProgress = input.onProgress
    ? (p: IngestProgress): void => {
        last = p;
        report();
      }
    : undefined;
  const unreconciled: UnreconciledItem[] = [];
  let resync: string | null = null;
  const note = (batch: SyncBatch<unknown>): void => {
    unreconciled.push(...batch.unreconciled);
    if (batch.resync) resync = batch.resync.reason;
  };
  const syncOptions = (cursor: SourceCursor | undefined): SyncOptions => ({
    mode: input.mode,
    ...(cursor ? { cursor } : {}),
    ...(input.since ? { since: input.since } : {}),
    ...(input.until ? { until: input.until } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    onProgress: (p: ConnectorProgress) => {
      const before = [totalEstimate, listed];
      if (p.totalEstimate !== undefined) totalEstimate = p.totalEstimate;
      if (p.itemsListed !== undefined) listed = Math.max(listed, p.itemsListed);
      if (before[0] !== totalEstimate || before[1] !== listed) report();
    },
  });

  try {
    let summary: ProviderSyncSummary;
    if (connector.kind === 'mail') {
      // Each message carries the cursor of the batch before it, and the batch's last message the
      // batch's own cursor: whatever prefix the writer commits is a safe place to resume.
      // The cursor of the last batch, empty ones included: a read that ends with empty windows
      // (and the switch to incremental reading) must still move the saved position.
      let finalCursor: SourceCursor | undefined;
      const source: Source<RawMessage> = {
        kind: provider,
        key: cursorKey,
        async *items(from?: SourceCursor) {
          const { [RESUME_AFTER]: after, ...start } = from ?? {};
          let skipThrough = typeof after === 'string' ? after : undefined;
          let previous: SourceCursor | undefined = from ? start : undefined;
          let pages = 0;
          // The next page is fetched while this one is parsed and stored: quota time is not left
          // idle while the pipeline works (one page of look-ahead; a resume re-reads it).
          for await (const batch of readAhead(connector.sync(syncOptions(previous)))) {
            note(batch);
            deps.faults?.('fetch', ++pages);
            finalCursor = batch.cursor;
            let items = batch.items;
            if (skipThrough !== undefined) {
              // Not found (the page changed meanwhile): read it whole; what is stored is skipped as a duplicate.
              const stored = items.findIndex((m) => m.providerId === skipThrough);
              items = items.slice(stored + 1);
              reread += stored + 1;
              skipThrough = undefined;
            }
            const last = items.length - 1;
            for (let i = 0; i <= last; i++) {
              const m = items[i]!;
              const within = m.providerId === undefined ? (previous ?? {}) : { ...(previous ?? {}), [RESUME_AFTER]: m.providerId };
              yield { ...m, cursor: i === last ? batch.cursor : within };
            }
            previous = batch.cursor;
          }
        },
      };
      const s = await ingestSource(
        { db, logger },
        {
          workspaceId,
          source,
          keepCursor: !input.dropCursorOnComplete,
          ...(input.maxItems !== undefined ? { maxItems: input.maxItems } : {}),
          ...(input.batchSize !== undefined ? { batchSize: input.batchSize } : {}),
          ...(input.jobId ? { jobId: input.jobId } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
          ...(checkpoint ? { checkpoint } : {}),
          ...(onProgress ? { onProgress } : {}),
          ...(input.pool ? { pool: input.pool } : {}),
          ...(input.workers !== undefined ? { workers: input.workers } : {}),
          ...(input.parseBudgetMs !== undefined ? { parseBudgetMs: input.parseBudgetMs } : {}),
          ...(input.maxMessageBytes !== undefined ? { maxMessageBytes: input.maxMessageBytes } : {}),
        },
      );
      if (s.status === 'completed' && !input.dropCursorOnComplete && finalCursor) await saveCursor(db, workspaceId, cursorKey, finalCursor);
      summary = {
        provider,
        runId: s.runId,
        status: s.status,
        itemsProcessed: s.itemsProcessed,
        itemsAdded: s.itemsAdded,
        itemsUpdated: s.itemsUpdated,
        itemsSkipped: s.itemsSkipped,
        itemsFiltered: s.itemsFiltered,
        errorsCount: s.errorsCount,
        clientsCreated: s.clientsCreated,
        contactsCreated: s.contactsCreated,
        unreconciled,
        resync,
        durationMs: s.durationMs,
        touched: s.touched,
      };
    } else {
      summary = await syncRecords(
        deps,
        { ...input, ...(onProgress ? { onProgress } : {}), ...(checkpoint ? { checkpoint } : {}) },
        connector,
        syncOptions,
        cursorKey,
        note,
      );
      summary.unreconciled = unreconciled;
      summary.resync = resync;
    }
    if (summary.status === 'completed') await markIntegrationSynced(db, workspaceId, provider, new Date(), account);
    return summary;
  } catch (err) {
    if (isChsError(err, 'INTEGRATION_NEEDS_REAUTH')) await markNeedsReauth(db, workspaceId, provider, err.message, account);
    throw err;
  }
}

async function syncRecords(
  deps: ProviderSyncDeps,
  input: ProviderSyncInput,
  connector: RecordsConnector,
  syncOptions: (cursor: SourceCursor | undefined) => SyncOptions,
  cursorKey: string,
  note: (b: SyncBatch<unknown>) => void,
): Promise<ProviderSyncSummary> {
  const { db, logger } = deps;
  const { workspaceId, provider } = input;
  const started = Date.now();
  const cursor = await loadCursor(db, workspaceId, cursorKey);
  const own = (await db.selectFrom('workspace_domains').select('domain').where('workspace_id', '=', workspaceId).execute()).map((r) => r.domain);
  const blocklist = (await db.selectFrom('blocklist').select('entry').where('workspace_id', '=', workspaceId).execute()).map((r) => r.entry);
  const runId = await startIngestionRun(db, { workspaceId, source: provider, jobId: input.jobId });
  const writer = new RecordWriter({
    db,
    workspaceId,
    provider,
    runId,
    sourceKey: cursorKey,
    resolver: new Resolver({ ownDomains: own.length ? own : [workspaceId], blocklist }),
    scorer: createSentimentScorer(),
    logger,
    clock: deps.clock,
    ...(input.checkpoint ? { checkpoint: input.checkpoint } : {}),
  });
  let status: 'completed' | 'cancelled' = 'completed';
  try {
    for await (const batch of connector.sync(syncOptions(cursor))) {
      note(batch);
      await writer.write(batch.items, batch.cursor);
      const c: RunCounts = writer.counts;
      const secs = Math.max((Date.now() - started) / 1000, 0.001);
      input.onProgress?.({
        processed: c.processed,
        read: c.processed,
        total: undefined,
        added: c.added,
        updated: c.updated,
        skipped: c.skipped,
        filtered: c.filtered,
        errors: c.errors,
        rate: c.processed / secs,
        etaSeconds: undefined,
      });
      if (input.signal?.aborted) {
        status = 'cancelled';
        break;
      }
      if (input.maxItems !== undefined && c.processed >= input.maxItems) break;
    }
    await db.transaction().execute(async (trx) => {
      await finishIngestionRun(trx, runId, status);
      if (status === 'completed' && input.dropCursorOnComplete) await dropCursor(trx, workspaceId, cursorKey);
    });
  } catch (err) {
    await finishIngestionRun(db, runId, 'failed').catch(() => undefined);
    throw err;
  }
  const c = writer.counts;
  logger.info({ provider, workspaceId, processed: c.processed }, 'provider sync finished');
  return {
    provider,
    runId,
    status,
    itemsProcessed: c.processed,
    itemsAdded: c.added,
    itemsUpdated: c.updated,
    itemsSkipped: c.skipped,
    itemsFiltered: c.filtered,
    errorsCount: c.errors,
    clientsCreated: c.clientsCreated,
    contactsCreated: c.contactsCreated,
    unreconciled: [],
    resync: null,
    durationMs: Date.now() - started,
    touched: writer.touched,
  };
}
