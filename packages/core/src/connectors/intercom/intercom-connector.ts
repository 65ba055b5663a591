/**
 * Intercom connector: contacts (with their companies), then conversations as support tickets.
 * Both are read through the search endpoints by `updated_at`. Intercom may match timestamp
 * filters by calendar day in the workspace's time zone, so a quick sync re-reads an overlap
 * (default one day) before its position and skips what it already read unchanged.
 *
 * Progress: before the first page, one one-row search per stream with the query its read will use
 * gives Intercom's `total_count`s; their sum is the read's `totalEstimate`, and `itemsListed`
 * (search rows listed so far) is reported before each page is yielded.
 */
import pLimit from 'p-limit';
import { isChsError } from '../../errors.js';
import { silentLogger } from '../../util/logger.js';
import { systemClock } from '../../util/time.js';
import { fetchWindow, isSyncFatal } from '../reconcile.js';
import { errorText, retryPolicy } from '../retry.js';
import type {
  CompanyRecord,
  RecordsConnector,
  ConnectorBaseOptions,
  ProviderRecord,
  SyncBatch,
  SyncOptions,
  TokenCredentials,
  UnreconciledItem,
} from '../types.js';
import { IntercomClient } from './intercom-client.js';
import {
  IC_STREAMS,
  mapCompany,
  mapContact,
  mapConversation,
  parseIntercomCursor,
  type IcCompany,
  type IcContact,
  type IcConversation,
  type IcConversationSummary,
  type IntercomCursor,
  type SearchPage,
} from './intercom-mapping.js';

export interface IntercomConnectorOptions extends ConnectorBaseOptions {
  credentials: TokenCredentials;
  /** API root (CHS_INTERCOM_API_URL; EU `https://api.eu.intercom.io`, AU `https://api.au.intercom.io`). Default `https://api.intercom.io`. */
  apiUrl?: string | undefined;
  /** Re-read before the saved position, in seconds. Default 86,400 (one day). */
  overlapSeconds?: number;
  /** Search page size (max 150). Default 150. */
  pageSize?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

export function createIntercomConnector(options: IntercomConnectorOptions): RecordsConnector {
  const opts = Object.freeze({ ...options });
  const logger = opts.logger ?? silentLogger;
  const clock = opts.clock ?? systemClock;
  const policy = retryPolicy(opts.retry);
  const overlap = opts.overlapSeconds ?? 86_400;
  const pageSize = Math.min(150, Math.max(1, opts.pageSize ?? 150));
  const horizonDays = opts.horizonDays ?? 365;
  const client = new IntercomClient({
    accessToken: opts.credentials.accessToken,
    apiUrl: opts.apiUrl,
    policy,
    logger,
    now: clock,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const limit = pLimit(opts.concurrency ?? 5);
  const isVanished = (err: unknown) => isChsError(err, 'NOT_FOUND');

  return Object.freeze({
    provider: 'intercom' as const,
    kind: 'records' as const,
    async *sync(o: SyncOptions): AsyncGenerator<SyncBatch<ProviderRecord>> {
      const saved = o.mode === 'quick' ? parseIntercomCursor(o.cursor) : undefined;
      const cursor: IntercomCursor = { v: 1, streams: { ...saved?.streams } };
      const nowS = Math.floor((o.until ?? clock()).getTime() / 1000);
      const horizon = Math.floor((o.since ?? new Date((nowS - horizonDays * 86_400) * 1000)).getTime() / 1000);
      const companyCache = new Map<string, IcCompany | null>();
      let yielded = 0;

      const snapshot = (): IntercomCursor => structuredClone(cursor);

      async function contactsPage(contacts: IcContact[]): Promise<{ items: ProviderRecord[]; unreconciled: UnreconciledItem[] }> {
        const unreconciled: UnreconciledItem[] = [];
        const wanted = [...new Set(contacts.flatMap((c) => (c.companies?.data ?? []).map((x) => x.id)))].filter((id) => !companyCache.has(id));
        const fetched = await fetchWindow(
          wanted,
          (id) => client.request<IcCompany>('GET', `/companies/${encodeURIComponent(id)}`, undefined, o.signal),
          limit,
          isVanished,
          o.signal,
        );
        for (const c of fetched.items) companyCache.set(c.id, c);
        for (const id of fetched.vanished) companyCache.set(id, null);
        for (const u of fetched.unreconciled) unreconciled.push({ providerId: `company:${u.providerId}`, reason: u.reason });
        const domainsOf = new Map<string, Set<string>>();
        for (const c of contacts) {
          const d = c.email_domain ?? c.email?.split('@')[1] ?? '';
          for (const x of c.companies?.data ?? []) {
            if (!domainsOf.has(x.id)) domainsOf.set(x.id, new Set());
            if (d) domainsOf.get(x.id)?.add(d);
          }
        }
        const companies = new Map<string, CompanyRecord>();
        for (const id of domainsOf.keys()) {
          const c = companyCache.get(id);
          if (c) companies.set(id, mapCompany(c, domainsOf.get(id) ?? []));
        }
        const items: ProviderRecord[] = [...companies.values()];
        for (const c of contacts) {
          const first = c.companies?.data?.[0]?.id;
          items.push(mapContact(c, first !== undefined ? companies.get(first) : undefined));
        }
        return { items, unreconciled };
      }

      const query = (from: number) => ({ operator: 'AND', value: [{ field: 'updated_at', operator: '>', value: from }] });

      // Where each stream's read starts (and, resuming mid-stream, the page it starts at).
      const plan: Array<{ stream: (typeof IC_STREAMS)[number]; from: number; resume: IntercomCursor['current'] }> = [];
      for (const stream of IC_STREAMS) {
        const prev = cursor.streams[stream];
        const full = stream === 'contacts' ? 0 : horizon;
        const resume = saved?.current?.stream === stream ? saved.current : undefined;
        if (!resume && saved?.current && IC_STREAMS.indexOf(saved.current.stream) > IC_STREAMS.indexOf(stream)) continue;
        plan.push({ stream, from: resume?.from ?? (prev ? Math.max(full, prev.since - overlap) : full), resume });
      }

      // One one-row search per stream, one after the other: Intercom's `total_count` for the read's
      // query, less the rows a resumed run already listed. A count that fails is left out.
      let totalEstimate: number | undefined;
      for (const { stream, from, resume } of plan) {
        try {
          const page = await client.request<SearchPage<unknown>>('POST', `/${stream}/search`, { query: query(from), pagination: { per_page: 1 } }, o.signal, 1);
          if (typeof page.total_count === 'number') totalEstimate = (totalEstimate ?? 0) + Math.max(0, page.total_count - (resume?.listed ?? 0));
        } catch (err) {
          if (isSyncFatal(err) || o.signal?.aborted) throw err;
          logger.warn({ provider: 'intercom', stream, err: errorText(err) }, 'intercom count unavailable; the stream is left out of the progress total');
        }
      }
      let listed = 0;
      const progress = (phase: string, window?: string) =>
        o.onProgress?.({
          phase,
          itemsYielded: yielded,
          itemsListed: listed,
          ...(totalEstimate !== undefined ? { totalEstimate } : {}),
          ...(window !== undefined ? { window } : {}),
        });
      if (totalEstimate !== undefined) progress('count');

      for (const { stream, from, resume } of plan) {
        const prev = cursor.streams[stream];
        const prevSeen = prev?.seen ?? {};
        // Rows of this window listed so far, by this run and the one it resumes.
        let windowListed = resume?.listed ?? 0;
        let startingAfter = resume?.startingAfter;
        let high = resume?.high ?? prev?.since ?? 0;
        // What the previous sync read is carried on: a sync that finds nothing new must not forget
        // it, or the next one reads the whole overlap again.
        let seen: Record<string, number> = { ...(resume?.seen ?? prevSeen) };
        for (;;) {
          const page = await client.request<SearchPage<IcContact & IcConversationSummary>>(
            'POST',
            `/${stream}/search`,
            {
              query: query(from),
              pagination: { per_page: pageSize, ...(startingAfter ? { starting_after: startingAfter } : {}) },
            },
            o.signal,
          );
          const rows = (stream === 'contacts' ? page.data : page.conversations) ?? [];
          listed += rows.length;
          windowListed += rows.length;
          // Skip what an earlier page of this run, or the previous sync, read with this same updated_at.
          const fresh = rows.filter((r) => seen[r.id] !== r.updated_at && prevSeen[r.id] !== r.updated_at);
          let items: ProviderRecord[];
          let unreconciled: UnreconciledItem[];
          let vanished: string[] = [];
          if (stream === 'contacts') {
            ({ items, unreconciled } = await contactsPage(fresh));
          } else {
            const r = await fetchWindow(
              fresh.map((x) => x.id),
              async (id) =>
                mapConversation(
                  await client.request<IcConversation>('GET', `/conversations/${encodeURIComponent(id)}?display_as=plaintext`, undefined, o.signal),
                ),
              limit,
              isVanished,
              o.signal,
            );
            items = r.items;
            unreconciled = r.unreconciled;
            vanished = r.vanished;
          }
          const failed = new Set(unreconciled.map((u) => u.providerId));
          for (const r of fresh) {
            if (failed.has(r.id)) continue;
            seen[r.id] = r.updated_at;
            if (r.updated_at > high) high = r.updated_at;
          }
          // Only ids near the high-water mark can come back in the next overlap: keep those.
          seen = Object.fromEntries(Object.entries(seen).filter(([, t]) => t >= high - overlap));
          const next = page.pages?.next?.starting_after ?? undefined;
          if (next) {
            cursor.current = { stream, from, startingAfter: next, high, seen, listed: windowListed };
          } else {
            delete cursor.current;
            cursor.streams[stream] = { since: Math.max(high, prev?.since ?? 0), seen };
          }
          const window = `${stream} updated after ${new Date(from * 1000).toISOString()}`;
          // The read counter moves before the page is stored.
          progress(stream, window);
          yielded += items.length;
          yield {
            items,
            cursor: { ...snapshot() },
            window,
            expectedIds: fresh.map((r) => r.id),
            unreconciled,
            vanished,
          };
          progress(stream, window);
          if (!next) break;
          startingAfter = next;
        }
      }
    },
  });
}
