/**
 * The HubSpot wire through `@hubspot/api-client`. The SDK's own retry decorator is left off
 * (`numberOfApiCallRetries` unset): it ignores Retry-After, sleeps 10 s × n with real timers and
 * lives in a process-wide singleton, so `withRetry` owns every retry here.
 */
import { Client } from '@hubspot/api-client';
import type { Logger } from '../../util/logger.js';
import { ChsError, isChsError } from '../../errors.js';
import { errorText, headerValue, parseRetryAfter, withRetry, type RetryPolicy, type Verdict } from '../retry.js';
import type { HubSpotCredentials } from '../types.js';
import { hubspotNeedsRefresh, refreshHubSpotToken } from './hubspot-oauth.js';
import type { PipelineStage } from './hubspot-mapping.js';

export const DEFAULT_HUBSPOT_API_URL = 'https://api.hubapi.com';
/** HUBSPOT_DEFINED association type: a deal's primary company. */
const PRIMARY_DEAL_TO_COMPANY = 5;

export interface HubSpotObject {
  id: string;
  properties: Record<string, string | null>;
}

export interface SearchPage {
  total: number;
  results: HubSpotObject[];
  after?: string;
}

export interface SearchRequest {
  filterGroups: Array<{ filters: Array<{ propertyName: string; operator: string; value: string }> }>;
  sorts: Array<{ propertyName: string; direction: 'ASCENDING' | 'DESCENDING' }>;
  properties: string[];
  limit: number;
  after?: string;
}

export interface HubSpotClientOptions {
  accessToken: string;
  /**
   * A public app's OAuth tokens: the 30-minute access token is refreshed 5 minutes before it
   * expires and once after a 401; `onTokens` receives the new credentials to persist. Default
   * none: a private-app token, which does not expire.
   */
  oauth?: { credentials: HubSpotCredentials; onTokens?: ((credentials: HubSpotCredentials) => void | Promise<void>) | undefined } | undefined;
  /** Default `https://api.hubapi.com`. */
  apiUrl?: string | undefined;
  policy: Readonly<RetryPolicy>;
  logger: Logger;
  now: () => Date;
}

function msUntilUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return next - now.getTime();
}

/** Sorts a failed HubSpot call (an SDK `ApiException`: code, body, headers) into retry / park / fatal. */
function classifyHubSpotError(err: unknown, now: Date): Verdict {
  if (isChsError(err)) return { kind: 'fatal', error: err };
  const e = err as { code?: unknown; body?: unknown; headers?: unknown };
  const status = typeof e.code === 'number' ? e.code : undefined;
  const body = (e.body && typeof e.body === 'object' ? e.body : {}) as { message?: unknown; policyName?: unknown; category?: unknown };
  const message = typeof body.message === 'string' ? body.message : errorText(err);
  if (status === undefined) return { kind: 'retry', reason: `network: ${errorText(err)}` };
  if (status === 401) {
    return {
      kind: 'fatal',
      error: new ChsError(
        'INTEGRATION_NEEDS_REAUTH',
        `HubSpot rejected the access token (${message}); reconnect with a valid private-app token or install the app again`,
        { cause: err, details: { provider: 'hubspot', category: body.category } },
      ),
    };
  }
  if (status === 429) {
    // Daily limits reset at midnight in the account's time zone, which the API does not tell us;
    // UTC midnight is the guess, and a too-early resume simply parks again.
    if (body.policyName === 'DAILY') return { kind: 'park', resumeAt: new Date(now.getTime() + msUntilUtcMidnight(now)), reason: 'HubSpot daily limit' };
    const retryAfter = parseRetryAfter(headerValue(e.headers, 'retry-after'), now);
    const interval = Number(headerValue(e.headers, 'x-hubspot-ratelimit-interval-milliseconds'));
    const afterMs =
      retryAfter ??
      (message === 'You have reached your secondly limit.'
        ? 1000
        : body.policyName === 'TEN_SECONDLY_ROLLING' && Number.isFinite(interval) && interval > 0
          ? interval
          : undefined);
    return {
      kind: 'retry',
      reason: `HTTP 429 ${typeof body.policyName === 'string' ? body.policyName : message}`,
      ...(afterMs !== undefined ? { afterMs } : {}),
    };
  }
  if (status >= 500 || status === 408) return { kind: 'retry', reason: `HTTP ${status} ${message}` };
  return {
    kind: 'fatal',
    error: new ChsError(status === 404 ? 'NOT_FOUND' : 'PROVIDER_ERROR', `HubSpot: HTTP ${status} ${message}`, {
      cause: err,
      details: { provider: 'hubspot', status, category: body.category },
    }),
  };
}

export class HubSpotClient {
  readonly #client: Client;
  readonly #opts: HubSpotClientOptions;

  #credentials: HubSpotCredentials | undefined;
  /** Set by a 401: the next call refreshes first, whatever the expiry says. */
  #stale = false;
  #refreshing: Promise<void> | undefined;

  constructor(opts: HubSpotClientOptions) {
    this.#opts = opts;
    this.#credentials = opts.oauth ? { ...opts.oauth.credentials } : undefined;
    this.#client = new Client({
      accessToken: this.#credentials?.accessToken ?? opts.accessToken,
      basePath: (opts.apiUrl ?? DEFAULT_HUBSPOT_API_URL).replace(/\/+$/, ''),
    });
  }

  /** The current credentials of an OAuth app (after any refresh); undefined for a private-app token. */
  get credentials(): HubSpotCredentials | undefined {
    return this.#credentials ? { ...this.#credentials } : undefined;
  }

  /** Refreshes an OAuth app's access token when it is due (or a 401 said so); one refresh at a time. */
  async #fresh(): Promise<void> {
    const c = this.#credentials;
    if (!c?.refreshToken || !c.clientId || !c.clientSecret) return;
    if (!this.#stale && !hubspotNeedsRefresh(c, this.#opts.now())) return;
    const { refreshToken, clientId, clientSecret } = c;
    this.#refreshing ??= (async () => {
      const next = await refreshHubSpotToken({ clientId, clientSecret, apiUrl: this.#opts.apiUrl }, { refreshToken, now: this.#opts.now() });
      this.#credentials = next;
      this.#stale = false;
      this.#client.setAccessToken(next.accessToken);
      this.#opts.logger.info({ provider: 'hubspot', expiresAt: next.expiresAt }, 'hubspot access token refreshed');
      await this.#opts.oauth?.onTokens?.({ ...next });
    })().finally(() => {
      this.#refreshing = undefined;
    });
    await this.#refreshing;
  }

  #call<T>(what: string, op: () => Promise<T>, signal?: AbortSignal, policy: Readonly<RetryPolicy> = this.#opts.policy): Promise<T> {
    let forced = false;
    const run = async (): Promise<T> => {
      await this.#fresh();
      return op();
    };
    return withRetry(
      'hubspot',
      run,
      (err) => {
        // An OAuth token HubSpot says expired (clock skew, revoked early): one refresh, then retry.
        if (this.#credentials?.refreshToken && !forced && (err as { code?: unknown }).code === 401) {
          forced = true;
          this.#stale = true;
          return { kind: 'retry', afterMs: 0, reason: 'HTTP 401, refreshing the access token' };
        }
        // The token endpoint's own 5xx or unreachability is worth another try.
        if (isChsError(err, 'PROVIDER_ERROR') && err.details?.stage === 'token') return { kind: 'retry', reason: err.message };
        return classifyHubSpotError(err, this.#opts.now());
      },
      {
        policy,
        signal,
        now: this.#opts.now,
        onRetry: (i) => this.#opts.logger.warn({ provider: 'hubspot', call: what, ...i }, 'hubspot call retried'),
      },
    );
  }

  async search(objectType: string, request: SearchRequest, signal?: AbortSignal): Promise<SearchPage> {
    const res = await this.#call(
      `${objectType}.search`,
      // The SDK types `sorts` as string[]; the API takes {propertyName, direction} objects, which
      // the serializer passes through unchanged.
      () => this.#client.crm.objects.searchApi.doSearch(objectType, request as unknown as Parameters<Client['crm']['objects']['searchApi']['doSearch']>[1]),
      signal,
    );
    const after = res.paging?.next?.after;
    return {
      total: res.total,
      results: res.results.map((r) => ({ id: String(r.id), properties: r.properties })),
      ...(after ? { after } : {}),
    };
  }

  /**
   * How many objects match `request`'s filters: the search `total` (exact, even above the
   * 10,000-result cap) of a one-result page. A count is only for progress, so it is retried at
   * most once (one token refresh, one 429 or 5xx) rather than holding up the read.
   */
  async count(objectType: string, request: Pick<SearchRequest, 'filterGroups' | 'properties'>, signal?: AbortSignal): Promise<number> {
    const body: Omit<SearchRequest, 'sorts' | 'after'> = { ...request, limit: 1 };
    const res = await this.#call(
      `${objectType}.count`,
      () => this.#client.crm.objects.searchApi.doSearch(objectType, body as unknown as Parameters<Client['crm']['objects']['searchApi']['doSearch']>[1]),
      signal,
      { ...this.#opts.policy, maxRetries: Math.min(this.#opts.policy.maxRetries, 1) },
    );
    return res.total;
  }

  /** Associated object ids per from-id (v4 batch read), e.g. emails → companies. */
  async associations(fromType: string, toType: string, ids: string[], signal?: AbortSignal): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (ids.length === 0) return out;
    const res = await this.#call(
      `associations.${fromType}.${toType}`,
      () => this.#client.crm.associations.v4.batchApi.getPage(fromType, toType, { inputs: ids.map((id) => ({ id })) }),
      signal,
    );
    for (const r of res.results) {
      out.set(String(r._from.id), [...new Set(r.to.map((t) => String(t.toObjectId)))]);
    }
    return out;
  }

  /**
   * Each deal's companies (v4 batch read): every associated id, and the primary one (the
   * HUBSPOT_DEFINED deal → company type 5, "Primary") when the deal has one.
   */
  async dealCompanies(ids: string[], signal?: AbortSignal): Promise<Map<string, { primary?: string; all: string[] }>> {
    const out = new Map<string, { primary?: string; all: string[] }>();
    if (ids.length === 0) return out;
    const res = await this.#call(
      'associations.deals.companies',
      () => this.#client.crm.associations.v4.batchApi.getPage('deals', 'companies', { inputs: ids.map((id) => ({ id })) }),
      signal,
    );
    for (const r of res.results) {
      const primary = r.to.find((t) => t.associationTypes.some((a) => String(a.category) === 'HUBSPOT_DEFINED' && a.typeId === PRIMARY_DEAL_TO_COMPANY));
      out.set(String(r._from.id), {
        ...(primary ? { primary: String(primary.toObjectId) } : {}),
        all: [...new Set(r.to.map((t) => String(t.toObjectId)))],
      });
    }
    return out;
  }

  /** A deal (or ticket) pipeline's stages: `GET /crm/v3/pipelines/{objectType}/{pipelineId}`. */
  async pipelineStages(objectType: string, pipelineId: string, signal?: AbortSignal): Promise<PipelineStage[]> {
    const res = await this.#call(`pipelines.${objectType}`, () => this.#client.crm.pipelines.pipelinesApi.getById(objectType, pipelineId), signal);
    return res.stages.map((s) => ({ id: String(s.id), label: s.label, metadata: { ...s.metadata } }));
  }

  /** Contact id → lower-cased e-mail, for ids that have one. */
  async contactEmails(ids: string[], signal?: AbortSignal): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (ids.length === 0) return out;
    const res = await this.#call(
      'contacts.batch.read',
      () => this.#client.crm.contacts.batchApi.read({ inputs: ids.map((id) => ({ id })), properties: ['email'], propertiesWithHistory: [] }),
      signal,
    );
    for (const r of res.results) {
      const email = (r.properties['email'] ?? '').trim().toLowerCase();
      if (email) out.set(String(r.id), email);
    }
    return out;
  }

  /** Owner id → e-mail, all pages. */
  async owners(signal?: AbortSignal): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    let after: string | undefined;
    do {
      const page = await this.#call('owners', () => this.#client.crm.owners.ownersApi.getPage(undefined, after, 500, false), signal);
      for (const o of page.results) if (o.email) out.set(String(o.id), o.email.toLowerCase());
      after = page.paging?.next?.after;
    } while (after);
    return out;
  }
}
