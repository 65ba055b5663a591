/**
 * HubSpot connector: companies, contacts, then engagements (emails, meetings, calls, notes), each
 * read through the search API by last-modified date, oldest change first.
 *
 * The search API stops at 10,000 results per query (paging further is a 400), so each stream is
 * read in windows [start, end): when a window's first page reports `total` above the cap the
 * window is halved until it fits, read to its end, and the next window starts where it ended.
 * No change is dropped, whatever the volume.
 *
 * Progress: before the first page, one one-result search per stream over the whole window it will
 * read ([start, until), whatever the splitting) gives HubSpot's exact `total`s; their sum is the
 * read's `totalEstimate`, and `itemsListed` (search rows listed so far) is reported before each
 * page is yielded.
 *
 * Renewal deals: with `renewalPipelineId` set, a last stream reads that pipeline's deals (and only
 * its deals: the search filters on `pipeline`) after its stages' metadata
 * (`GET /crm/v3/pipelines/deals/{id}`), each one an OutcomeRecord — closed won is `renewed`,
 * closed lost `churned`, dated by `closedate`, placed on the deal's primary company. Its window
 * lists the deals modified in it *or* closing in it, so a deal closed ahead of its close date is
 * read again once that day has come. Without a pipeline no deal is asked for.
 */
import pLimit from 'p-limit';
import { silentLogger } from '../../util/logger.js';
import { systemClock, DAY_MS } from '../../util/time.js';
import { isSyncFatal } from '../reconcile.js';
import { errorText, retryPolicy } from '../retry.js';
import type { RecordsConnector, ConnectorBaseOptions, ProviderRecord, SyncBatch, SyncOptions, HubSpotCredentials, UnreconciledItem } from '../types.js';
import { HubSpotClient, type HubSpotObject } from './hubspot-client.js';
import {
  DEFAULT_PROPERTY_MAP,
  STREAMS,
  lastModifiedProperty,
  mapCompany,
  mapContact,
  mapDeal,
  mapEngagement,
  PREFIXED_STREAMS,
  stageVerdict,
  parseHubSpotCursor,
  streamProperties,
  type HubSpotCursor,
  type HubSpotPropertyMap,
  type StageVerdict,
  type Stream,
} from './hubspot-mapping.js';

/** HubSpot search returns at most this many results per query. */
export const SEARCH_RESULT_CAP = 10_000;

export interface HubSpotConnectorOptions extends ConnectorBaseOptions {
  /** A private-app token, or a public app's OAuth tokens (refreshed; see onTokens). */
  credentials: HubSpotCredentials;
  /** OAuth app: persist the credentials after each refresh of the 30-minute access token. */
  onTokens?: ((credentials: HubSpotCredentials) => void | Promise<void>) | undefined;
  /** API root (CHS_HUBSPOT_API_URL). Default `https://api.hubapi.com`. */
  apiUrl?: string | undefined;
  /** Company properties holding MRR / renewal / owner. Default DEFAULT_PROPERTY_MAP. */
  propertyMap?: Partial<HubSpotPropertyMap> | undefined;
  /** Search page size (max 200). Default 200. */
  pageSize?: number;
  /** Quick syncs re-read this much before the saved position (search is eventually consistent). Default 5 min. */
  overlapMs?: number;
  /** Streams to read, in order. Default all: companies, contacts, emails, meetings, calls, notes, and deals with a renewal pipeline. */
  streams?: readonly Stream[];
  /**
   * The deal pipeline whose closed deals are renewal outcomes (its HubSpot id, e.g. `default` or
   * `12345678`). Default none: no deal is read (the `deals` stream is left out even when listed).
   */
  renewalPipelineId?: string | undefined;
}

export function createHubSpotConnector(options: HubSpotConnectorOptions): RecordsConnector {
  const opts = Object.freeze({ ...options });
  const logger = opts.logger ?? silentLogger;
  const clock = opts.clock ?? systemClock;
  const policy = retryPolicy(opts.retry);
  const map: HubSpotPropertyMap = { ...DEFAULT_PROPERTY_MAP, ...opts.propertyMap };
  const pageSize = Math.min(200, Math.max(1, opts.pageSize ?? 200));
  const overlapMs = opts.overlapMs ?? 5 * 60_000;
  const horizonDays = opts.horizonDays ?? 365;
  const pipelineId = opts.renewalPipelineId || undefined;
  const streams = (opts.streams ?? STREAMS).filter((s) => s !== 'deals' || pipelineId !== undefined);
  const oauth = opts.credentials.refreshToken ? { credentials: opts.credentials, onTokens: opts.onTokens } : undefined;
  const client = new HubSpotClient({ accessToken: opts.credentials.accessToken, oauth, apiUrl: opts.apiUrl, policy, logger, now: clock });
  const limit = pLimit(opts.concurrency ?? 4);

  return Object.freeze({
    provider: 'hubspot' as const,
    kind: 'records' as const,
    async *sync(o: SyncOptions): AsyncGenerator<SyncBatch<ProviderRecord>> {
      const saved = parseHubSpotCursor(o.cursor);
      if (saved && saved.dealsPipeline !== pipelineId) {
        // Deals read for another pipeline (or none) say nothing of this one: it is read from the start.
        delete saved.done.deals;
        if (saved.current?.stream === 'deals') delete saved.current;
      }
      const until = (o.until ?? clock()).getTime();
      const engagementHorizon = (o.since ?? new Date(until - horizonDays * DAY_MS)).getTime();
      const cursor: HubSpotCursor = {
        v: 1,
        done: o.mode === 'full' ? {} : { ...saved?.done },
        ...(pipelineId !== undefined ? { dealsPipeline: pipelineId } : {}),
      };
      /** The renewal pipeline's stages (read before its deals); undefined until then. */
      let stages: Map<string, StageVerdict | undefined> | undefined;
      let owners: Map<string, string> | undefined;
      const contactEmailCache = new Map<string, string>();
      let yielded = 0;

      const ownerEmail = (id: string) => owners?.get(id);

      let pipelineError: string | undefined;
      /** The renewal pipeline's stage verdicts; undefined (with pipelineError) when HubSpot will not say. */
      const pipelineStages = async (id: string): Promise<Map<string, StageVerdict | undefined> | undefined> => {
        try {
          const list = await client.pipelineStages('deals', id, o.signal);
          return new Map(list.map((st) => [st.id, stageVerdict(st.metadata)]));
        } catch (err) {
          if (isSyncFatal(err) || o.signal?.aborted) throw err;
          pipelineError = `the renewal pipeline ${id} could not be read: ${errorText(err)}`;
          logger.warn(
            { provider: 'hubspot', pipelineId: id, err: errorText(err) },
            'hubspot renewal pipeline unavailable; its deals are left for a later sync',
          );
          return undefined;
        }
      };

      const modifiedIn = (stream: Stream, start: number, end: number) => {
        const within = (property: string) => [
          { propertyName: property, operator: 'GTE', value: String(start) },
          { propertyName: property, operator: 'LT', value: String(end) },
        ];
        if (stream !== 'deals' || pipelineId === undefined) return [{ filters: within(lastModifiedProperty(stream)) }];
        // The pipeline's deals modified in the window, or closing in it (a deal closed ahead of
        // its close date is an outcome once that day has come, with no change to list it by).
        const inPipeline = { propertyName: 'pipeline', operator: 'EQ', value: pipelineId };
        return [{ filters: [...within(lastModifiedProperty(stream)), inPipeline] }, { filters: [...within('closedate'), inPipeline] }];
      };

      const search = (stream: Stream, start: number, end: number, after?: string) =>
        client.search(
          stream,
          {
            filterGroups: modifiedIn(stream, start, end),
            sorts: [{ propertyName: lastModifiedProperty(stream), direction: 'ASCENDING' }],
            properties: streamProperties(stream, map),
            limit: pageSize,
            ...(after ? { after } : {}),
          },
          o.signal,
        );

      async function toRecords(stream: Stream, objects: HubSpotObject[]): Promise<{ items: ProviderRecord[]; unreconciled: UnreconciledItem[] }> {
        const items: ProviderRecord[] = [];
        const unreconciled: UnreconciledItem[] = [];
        if (stream === 'companies') {
          if (map.csmOwner === 'hubspot_owner_id' && owners === undefined && objects.some((c) => c.properties['hubspot_owner_id'])) {
            // Best effort: without the owners scope the owner id is kept instead of the e-mail.
            owners = await client.owners(o.signal).catch((err: unknown) => {
              if (isSyncFatal(err)) throw err;
              logger.warn({ provider: 'hubspot', err: errorText(err) }, 'hubspot owners unavailable; keeping owner ids');
              return new Map<string, string>();
            });
          }
          for (const c of objects) items.push(mapCompany(c.id, c.properties, map, ownerEmail));
          return { items, unreconciled };
        }
        if (stream === 'contacts') {
          for (const c of objects) {
            const r = mapContact(c.id, c.properties);
            if (r.email) contactEmailCache.set(c.id, r.email);
            items.push(r);
          }
          return { items, unreconciled };
        }
        const ids = objects.map((x) => x.id);
        if (stream === 'deals') {
          const companies = await limit(() => client.dealCompanies(ids, o.signal));
          const today = clock().toISOString().slice(0, 10);
          for (const x of objects) {
            const r = mapDeal(x.id, x.properties, {
              pipelineId: pipelineId ?? '',
              stages: stages ?? new Map(),
              companies: companies.get(x.id) ?? { all: [] },
              today,
            });
            if (typeof r === 'string') unreconciled.push({ providerId: `deals:${x.id}`, reason: r });
            else items.push(r);
          }
          return { items, unreconciled };
        }
        const [companies, contacts] = await Promise.all([
          limit(() => client.associations(stream, 'companies', ids, o.signal)),
          limit(() => client.associations(stream, 'contacts', ids, o.signal)),
        ]);
        const missing = [...new Set([...contacts.values()].flat())].filter((id) => !contactEmailCache.has(id));
        if (missing.length > 0) {
          const found = await limit(() => client.contactEmails(missing, o.signal));
          for (const [id, email] of found) contactEmailCache.set(id, email);
        }
        for (const x of objects) {
          const contactIds = contacts.get(x.id) ?? [];
          const r = mapEngagement(stream, x.id, x.properties, {
            companyIds: companies.get(x.id) ?? [],
            contactIds,
            contactEmails: contactIds.map((id) => contactEmailCache.get(id)).filter((e): e is string => e !== undefined),
          });
          if (typeof r === 'string') unreconciled.push({ providerId: `${stream}:${x.id}`, reason: r });
          else items.push(r);
        }
        return { items, unreconciled };
      }

      // Where each stream's read starts (and, resuming mid-stream, the page it starts at).
      const plan: Array<{ stream: Stream; start: number; after?: string | undefined }> = [];
      for (const stream of streams) {
        // Companies, contacts and renewal deals are read whole; engagements back to the horizon.
        const full = stream === 'companies' || stream === 'contacts' || stream === 'deals' ? 0 : engagementHorizon;
        if (saved?.current?.stream === stream && o.mode === 'quick') {
          plan.push({ stream, start: saved.current.start, after: saved.current.after });
        } else if (
          saved?.current &&
          o.mode === 'quick' &&
          STREAMS.indexOf(saved.current.stream) > STREAMS.indexOf(stream) &&
          cursor.done[stream] !== undefined
        ) {
          // Resuming a run that had already finished this stream.
          continue;
        } else {
          const done = cursor.done[stream];
          plan.push({ stream, start: done !== undefined ? Math.max(full, done - overlapMs) : full });
        }
      }

      /** What `stream` will list from `start` on, less the `after` rows a resumed run already listed; undefined when HubSpot cannot say. */
      const count = async (stream: Stream, start: number, after: string | undefined): Promise<number | undefined> => {
        if (start >= until) return 0;
        try {
          const total = await client.count(stream, { filterGroups: modifiedIn(stream, start, until), properties: [lastModifiedProperty(stream)] }, o.signal);
          return Math.max(0, total - (Number(after) || 0));
        } catch (err) {
          if (isSyncFatal(err) || o.signal?.aborted) throw err;
          logger.warn({ provider: 'hubspot', stream, err: errorText(err) }, 'hubspot count unavailable; the stream is left out of the progress total');
          return undefined;
        }
      };
      // One call per stream: the first alone (a dead token or a spent quota ends the sync on its
      // first request), the others side by side within the account's concurrency, so the total
      // shows after two round trips rather than six.
      let totalEstimate: number | undefined;
      const [first, ...rest] = plan;
      const counts = first ? [await count(first.stream, first.start, first.after)] : [];
      counts.push(...(await Promise.all(rest.map(({ stream, start, after }) => limit(() => count(stream, start, after))))));
      for (const n of counts) if (n !== undefined) totalEstimate = (totalEstimate ?? 0) + n;
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

      for (const { stream, start: from, after: resumeAfter } of plan) {
        if (stream === 'deals' && pipelineId !== undefined) {
          stages = await pipelineStages(pipelineId);
          if (!stages) {
            // The pipeline cannot be read (deleted, a scope missing): its deals are left for a later
            // sync, which reads them from where they stand now (done.deals does not move).
            yield {
              items: [],
              cursor: { ...cursor, done: { ...cursor.done } },
              window: `deals of pipeline ${pipelineId}`,
              expectedIds: [],
              unreconciled: [{ providerId: `pipelines:deals:${pipelineId}`, reason: pipelineError ?? 'the renewal pipeline could not be read' }],
              vanished: [],
            };
            continue;
          }
        }
        let start = from;
        let after = resumeAfter;
        while (start < until) {
          let end = until;
          let page = await search(stream, start, end, after);
          // Halve the window until the search can page through all of it.
          while (after === undefined && page.total > SEARCH_RESULT_CAP && end - start > 1) {
            end = start + Math.floor((end - start) / 2);
            logger.info({ provider: 'hubspot', stream, start, end, total: page.total }, 'hubspot window above the search cap; splitting');
            page = await search(stream, start, end);
          }
          let read = after === undefined ? 0 : Number(after) || 0;
          for (;;) {
            read += page.results.length;
            const { items, unreconciled } = await toRecords(stream, page.results);
            const capped = page.after !== undefined && read >= SEARCH_RESULT_CAP;
            if (capped) {
              // Only reachable when more than 10,000 changes share one millisecond.
              unreconciled.push({ providerId: `${stream}@${start}`, reason: `more than ${SEARCH_RESULT_CAP} ${stream} changed within one millisecond` });
            }
            const next = capped ? undefined : page.after;
            cursor.current = next ? { stream, start, end, after: next } : { stream, start: end, end: until };
            const window = `${stream} modified ${new Date(start).toISOString()} .. ${new Date(end).toISOString()}`;
            // The read counter moves before the page is stored.
            listed += page.results.length;
            progress(stream, window);
            yielded += items.length;
            yield {
              items,
              cursor: { ...cursor, done: { ...cursor.done }, current: { ...cursor.current } },
              window,
              expectedIds: page.results.map((r) => (PREFIXED_STREAMS.includes(stream) ? `${stream}:${r.id}` : r.id)),
              unreconciled,
              vanished: [],
            };
            progress(stream, window);
            if (!next) break;
            page = await search(stream, start, end, next);
          }
          after = undefined;
          start = end;
        }
        cursor.done[stream] = until;
        delete cursor.current;
      }
      // Closing batch: every stream is done through `until`; nothing is mid-way.
      yield {
        items: [],
        cursor: { v: 1, done: { ...cursor.done }, ...(cursor.dealsPipeline !== undefined ? { dealsPipeline: cursor.dealsPipeline } : {}) },
        window: 'hubspot sync complete',
        expectedIds: [],
        unreconciled: [],
        vanished: [],
      };
    },
  });
}
