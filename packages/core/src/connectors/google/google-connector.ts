/**
 * Google Mail connector. A full read takes the profile's history id, then lists mail newest-first
 * in time windows (a short "recent" window first for a fast first value, then wider windows back
 * to the horizon) and fetches each listed message as `raw`. Afterwards `quick` syncs read
 * `history.list` from the saved history id; a 404 there (cursor too old) starts a windowed full
 * read by itself and says so in the batch (`resync`).
 */
import pLimit from 'p-limit';
import type { RawMessage } from '../../interfaces.js';
import { isChsError } from '../../errors.js';
import { silentLogger } from '../../util/logger.js';
import { systemClock } from '../../util/time.js';
import { fetchWindow } from '../reconcile.js';
import { RateLimiter, retryPolicy, type QuotaLimit, type RateLimiters } from '../retry.js';
import type { MailConnector, ConnectorBaseOptions, GoogleCredentials, SyncBatch, SyncOptions } from '../types.js';
import { DEFAULT_GOOGLE_API_URL, GoogleClient } from './google-client.js';
import { addedMessageIds, nextWindow, parseGoogleCursor, toCursor, toRawMessage, windowLabel, windowQuery, type GoogleCursor } from './google-mapping.js';

export interface GoogleConnectorOptions extends ConnectorBaseOptions {
  credentials: GoogleCredentials;
  /** Gmail API root (CHS_GOOGLE_API_URL). Default `https://gmail.googleapis.com/`. */
  apiUrl?: string | undefined;
  /** OAuth token endpoint (CHS_GOOGLE_TOKEN_URL). Default `https://oauth2.googleapis.com/token`. */
  tokenUrl?: string | undefined;
  /** Persist refreshed credentials (called after every token refresh). */
  onTokens?: ((credentials: GoogleCredentials) => void | Promise<void>) | undefined;
  /** Width of the first, newest window. Default 7 days. */
  recentDays?: number;
  /** Width of each older window. Default 30 days. */
  windowDays?: number;
  /** messages.list / history.list page size (max 500). Default 500. */
  pageSize?: number;
  /** Extra Gmail search terms for full reads, e.g. `-in:chats`. Default ''. */
  query?: string;
  /**
   * The account's per-user quota, spent proactively by a token bucket (2% headroom); `false`
   * turns it off. Default Gmail's: 15,000 units per minute.
   */
  quota?: QuotaLimit | false;
  /**
   * The buckets to draw on: every connector of the same mailbox and API root built with the same
   * `RateLimiters` shares one (the engine passes its own). Default: a bucket of this connector's own.
   */
  limiters?: RateLimiters | undefined;
}

const GMAIL_DEFAULT_QUOTA: Readonly<Required<QuotaLimit>> = Object.freeze({ units: 15_000, windowMs: 60_000 });

function limiterFor(
  quota: QuotaLimit | false | undefined,
  limiters: RateLimiters | undefined,
  apiUrl: string,
  account: string | undefined,
): RateLimiter | undefined {
  if (quota === false) return undefined;
  const q = { units: quota?.units ?? GMAIL_DEFAULT_QUOTA.units, windowMs: quota?.windowMs ?? GMAIL_DEFAULT_QUOTA.windowMs };
  // One bucket per mailbox: a sync and a large ingestion of the same mailbox draw on one quota.
  return limiters && account !== undefined ? limiters.get(`google ${apiUrl} ${account.toLowerCase()}`, q) : new RateLimiter(q);
}

const DAY = 86_400;

export function createGoogleConnector(options: GoogleConnectorOptions): MailConnector {
  const opts = Object.freeze({ ...options });
  const logger = opts.logger ?? silentLogger;
  const clock = opts.clock ?? systemClock;
  const policy = retryPolicy(opts.retry);
  const recentSeconds = (opts.recentDays ?? 7) * DAY;
  const windowSeconds = (opts.windowDays ?? 30) * DAY;
  const pageSize = Math.min(500, Math.max(1, opts.pageSize ?? 500));
  const extraQuery = opts.query ?? '';
  const horizonDays = opts.horizonDays ?? 365;
  const client = new GoogleClient({
    credentials: opts.credentials,
    apiUrl: opts.apiUrl,
    tokenUrl: opts.tokenUrl,
    onTokens: opts.onTokens,
    policy,
    logger,
    now: clock,
    limiter: limiterFor(opts.quota, opts.limiters, opts.apiUrl ?? DEFAULT_GOOGLE_API_URL, opts.credentials.email),
  });
  const limit = pLimit(opts.concurrency ?? 5);

  const isVanished = (err: unknown) => isChsError(err, 'NOT_FOUND');

  /**
   * Messages fetched so far in one read, told as they arrive (`itemsListed`): a page of 500 takes
   * seconds at the quota, and the job's read counter should move within it, not once per page.
   */
  const fetchCounter = (o: SyncOptions, phase: string, yielded: () => number) => {
    let fetched = 0;
    return (): void => {
      fetched += 1;
      o.onProgress?.({ phase, itemsYielded: yielded(), itemsListed: fetched });
    };
  };

  async function* fetchPage(
    ids: string[],
    before: GoogleCursor,
    after: GoogleCursor,
    window: string,
    signal: AbortSignal | undefined,
    onFetched: () => void,
  ): AsyncGenerator<SyncBatch<RawMessage>> {
    const itemCursor = toCursor(before);
    const r = await fetchWindow(
      ids,
      async (id) => {
        const m = toRawMessage(await client.getRaw(id, signal), itemCursor);
        onFetched();
        return m;
      },
      limit,
      isVanished,
      signal,
    );
    for (const u of r.unreconciled) logger.warn({ provider: 'google', providerId: u.providerId, reason: u.reason }, 'gmail message not reconciled');
    yield { items: r.items, cursor: toCursor(after), window, expectedIds: ids, unreconciled: r.unreconciled, vanished: r.vanished };
  }

  async function* fullRead(start: GoogleCursor, o: SyncOptions, resyncReason?: string): AsyncGenerator<SyncBatch<RawMessage>> {
    let c = start;
    let yielded = 0;
    const onFetched = fetchCounter(o, 'full', () => yielded);
    let pendingResync = resyncReason;
    for (;;) {
      const ws = c.windowStart as number;
      const we = c.windowEnd as number;
      const label = windowLabel(ws, we);
      const page = await client.listMessages(
        { q: windowQuery(ws, we, extraQuery), maxResults: pageSize, ...(c.pageToken ? { pageToken: c.pageToken } : {}) },
        o.signal,
      );
      const ids = (page.messages ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
      let next: GoogleCursor;
      if (page.nextPageToken) {
        next = { ...c, pageToken: page.nextPageToken };
      } else {
        const w = nextWindow({ horizon: c.horizon as number, windowStart: ws }, windowSeconds);
        const { pageToken: _done, ...rest } = c;
        next = w ? { ...rest, ...w } : { v: 1, phase: 'incremental', ...(c.historyId ? { historyId: c.historyId } : {}) };
      }
      for await (const b of fetchPage(ids, c, next, label, o.signal, onFetched)) {
        yielded += b.items.length;
        if (pendingResync !== undefined) {
          b.resync = { reason: pendingResync };
          pendingResync = undefined;
        }
        yield b;
      }
      o.onProgress?.({ phase: 'full', itemsYielded: yielded, window: label });
      c = next;
      if (c.phase === 'incremental') return;
    }
  }

  async function startFull(o: SyncOptions): Promise<GoogleCursor> {
    const profile = await client.getProfile(o.signal);
    const until = Math.floor((o.until ?? clock()).getTime() / 1000);
    const horizon = Math.floor((o.since ?? new Date(until * 1000 - horizonDays * DAY * 1000)).getTime() / 1000);
    // The total for progress and estimates: Gmail's estimate of the messages the whole window
    // holds (one list call of one id, 5 units), else the mailbox's own count (an upper bound).
    const counted = await client.listMessages({ q: windowQuery(horizon, until, extraQuery), maxResults: 1 }, o.signal);
    const total = typeof counted.resultSizeEstimate === 'number' ? counted.resultSizeEstimate : profile.messagesTotal;
    if (typeof total === 'number') o.onProgress?.({ phase: 'full', itemsYielded: 0, totalEstimate: total });
    return {
      v: 1,
      phase: 'full',
      ...(profile.historyId ? { historyId: profile.historyId } : {}),
      horizon,
      windowEnd: until,
      windowStart: Math.max(horizon, until - recentSeconds),
    };
  }

  async function* incremental(c: GoogleCursor, o: SyncOptions): AsyncGenerator<SyncBatch<RawMessage>> {
    const startId = c.historyId as string;
    let pageToken = c.pageToken;
    let yielded = 0;
    const onFetched = fetchCounter(o, 'incremental', () => yielded);
    for (;;) {
      let page;
      try {
        page = await client.listHistory({ startHistoryId: startId, maxResults: pageSize, ...(pageToken ? { pageToken } : {}) }, o.signal);
      } catch (err) {
        if (isChsError(err, 'NOT_FOUND')) {
          logger.warn({ provider: 'google', historyId: startId }, 'gmail history id expired; starting a full resync');
          const full = await startFull(o);
          yield* fullRead(full, o, `history id ${startId} is no longer valid (HTTP 404); full resync`);
          return;
        }
        throw err;
      }
      const ids = addedMessageIds(page);
      const before: GoogleCursor = { v: 1, phase: 'incremental', historyId: startId, ...(pageToken ? { pageToken } : {}) };
      const after: GoogleCursor = page.nextPageToken
        ? { v: 1, phase: 'incremental', historyId: startId, pageToken: page.nextPageToken }
        : { v: 1, phase: 'incremental', historyId: page.historyId ?? startId };
      for await (const b of fetchPage(ids, before, after, `history since ${startId}`, o.signal, onFetched)) {
        yielded += b.items.length;
        yield b;
      }
      o.onProgress?.({ phase: 'incremental', itemsYielded: yielded });
      if (!page.nextPageToken) return;
      pageToken = page.nextPageToken;
    }
  }

  return Object.freeze({
    provider: 'google' as const,
    kind: 'mail' as const,
    async *sync(o: SyncOptions): AsyncGenerator<SyncBatch<RawMessage>> {
      const saved = parseGoogleCursor(o.cursor);
      if (saved?.phase === 'full') {
        // A full read that was interrupted (crash, shutdown, park) continues where it stopped,
        // whichever mode asked for it: its windows were fixed when it started.
        yield* fullRead(saved, o);
      } else if (saved?.phase === 'incremental' && o.mode === 'quick') {
        yield* incremental(saved, o);
      } else {
        yield* fullRead(await startFull(o), o);
      }
    },
  });
}
