/**
 * The Gmail wire: `@googleapis/gmail` (Gmail v1) over a `google-auth-library` OAuth2Client, with every
 * retry owned by `withRetry` (gaxios's own retries are switched off per call and for the token
 * endpoint, so a 429 is retried a bounded number of times, once, honouring Retry-After).
 */
import { JWT, OAuth2Client, type Credentials } from 'google-auth-library';
import { gmail_v1 } from '@googleapis/gmail';
import { ChsError, isChsError } from '../../errors.js';
import type { Logger } from '../../util/logger.js';
import { msUntilLocalMidnight } from '../../util/time.js';
import type { GoogleCredentials } from '../types.js';
import { errorText, headerValue, parseRetryAfter, withRetry, type RateLimiter, type RetryPolicy, type Verdict } from '../retry.js';

export const DEFAULT_GOOGLE_API_URL = 'https://gmail.googleapis.com/';
export const DEFAULT_GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** The only scope the engine asks for. */
const GMAIL_SCOPE = 'https://www.googleapis.com/auth/gmail.readonly';

export interface GoogleClientOptions {
  credentials: GoogleCredentials;
  /** Gmail API root. Default `https://gmail.googleapis.com/`. */
  apiUrl?: string | undefined;
  /** OAuth token endpoint. Default `https://oauth2.googleapis.com/token`. */
  tokenUrl?: string | undefined;
  /** Called with the full credentials after every refresh; the caller persists them. */
  onTokens?: ((credentials: GoogleCredentials) => void | Promise<void>) | undefined;
  policy: Readonly<RetryPolicy>;
  logger: Logger;
  now: () => Date;
  /** Gmail user id. Default `me`. */
  userId?: string | undefined;
  /** Spends quota units before each request (see GMAIL_UNITS). Default: none. */
  limiter?: RateLimiter | undefined;
}

/** Quota units per call, as Gmail counts them. */
const GMAIL_UNITS = Object.freeze({ profile: 1, list: 5, get: 5, history: 2 });

/** What the Gmail error envelope says, from a GaxiosError-like value. */
interface HttpFailure {
  status: number | undefined;
  /** `errors[0].reason` of an API error, or the OAuth `error` string of the token endpoint. */
  reason: string;
  message: string;
  /** True when the body is an OAuth token-endpoint error (`{"error": "invalid_grant"}`). */
  oauth: boolean;
  retryAfterMs: number | undefined;
}

function describe(err: unknown, now: Date): HttpFailure {
  const e = err as { status?: unknown; code?: unknown; message?: unknown; response?: { status?: number; data?: unknown; headers?: unknown } };
  const status = typeof e.response?.status === 'number' ? e.response.status : typeof e.status === 'number' ? e.status : undefined;
  const data = e.response?.data;
  let reason = '';
  let message = typeof e.message === 'string' ? e.message : String(err);
  let oauth = false;
  if (data && typeof data === 'object') {
    const body = data as { error?: unknown; error_description?: unknown };
    if (typeof body.error === 'string') {
      oauth = true;
      reason = body.error;
      message = typeof body.error_description === 'string' ? `${body.error}: ${body.error_description}` : body.error;
    } else if (body.error && typeof body.error === 'object') {
      const inner = body.error as { message?: unknown; errors?: Array<{ reason?: unknown }> };
      if (typeof inner.message === 'string') message = inner.message;
      const r = inner.errors?.[0]?.reason;
      if (typeof r === 'string') reason = r;
    }
  } else if (message === 'invalid_grant') {
    oauth = true;
    reason = 'invalid_grant';
  }
  return { status, reason, message, oauth, retryAfterMs: parseRetryAfter(headerValue(e.response?.headers, 'retry-after'), now) };
}

const RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'backendError', 'internalError']);
const DAILY_REASONS = new Set(['dailyLimitExceeded', 'quotaExceeded']);

/** Sorts a failed Gmail / token call into retry, park or fatal. 401 is handled by the caller. */
function classifyGoogleError(err: unknown, now: Date): Verdict {
  if (isChsError(err)) return { kind: 'fatal', error: err };
  const f = describe(err, now);
  if (f.oauth && (f.reason === 'invalid_grant' || f.reason === 'invalid_client' || f.reason === 'unauthorized_client')) {
    return { kind: 'fatal', error: needsReauth(`Google refused the refresh token (${f.message}); reconnect the account`, err) };
  }
  if (f.status === undefined) {
    // No response at all: a network failure, worth retrying.
    return { kind: 'retry', reason: `network: ${errorText(err)}` };
  }
  if (f.status === 403 || f.status === 429) {
    if (DAILY_REASONS.has(f.reason))
      return {
        kind: 'park',
        resumeAt: new Date(now.getTime() + msUntilLocalMidnight(now, 'America/Los_Angeles') /* Gmail's daily quotas reset at Pacific midnight */),
        reason: f.reason,
      };
    // "User-rate limit exceeded.  Retry after 2024-05-14T10:00:00.000Z"
    const m = /Retry after (\S+)/i.exec(f.message);
    const at = m?.[1] !== undefined ? Date.parse(m[1]) : NaN;
    const afterMs = f.retryAfterMs ?? (Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime()));
    if (f.status === 429 || RATE_REASONS.has(f.reason)) {
      return { kind: 'retry', reason: `HTTP ${f.status} ${f.reason || f.message}`, ...(afterMs !== undefined ? { afterMs } : {}) };
    }
    return {
      kind: 'fatal',
      error: new ChsError('PROVIDER_ERROR', `Gmail refused the request: ${f.message}`, {
        cause: err,
        details: { provider: 'google', status: f.status, reason: f.reason },
      }),
    };
  }
  if (f.status === 408 || f.status >= 500) {
    return { kind: 'retry', reason: `HTTP ${f.status} ${f.message}`, ...(f.retryAfterMs !== undefined ? { afterMs: f.retryAfterMs } : {}) };
  }
  return {
    kind: 'fatal',
    error: new ChsError(f.status === 404 ? 'NOT_FOUND' : 'PROVIDER_ERROR', `Gmail: HTTP ${f.status} ${f.message}`, {
      cause: err,
      details: { provider: 'google', status: f.status, reason: f.reason },
    }),
  };
}

function needsReauth(message: string, cause?: unknown): ChsError {
  return new ChsError('INTEGRATION_NEEDS_REAUTH', message, { cause, details: { provider: 'google' } });
}

function statusOf(err: unknown): number | undefined {
  const e = err as { status?: unknown; response?: { status?: unknown } };
  const s = e.response?.status ?? e.status;
  return typeof s === 'number' ? s : undefined;
}

export class GoogleClient {
  readonly #oauth: OAuth2Client;
  readonly #gmail: gmail_v1.Gmail;
  readonly #opts: GoogleClientOptions;
  readonly #userId: string;
  #credentials: GoogleCredentials;

  constructor(opts: GoogleClientOptions) {
    this.#opts = opts;
    this.#userId = opts.userId ?? 'me';
    this.#credentials = { ...opts.credentials };
    const c = opts.credentials;
    const sa = c.serviceAccount;
    const tokenUrl = opts.tokenUrl ?? DEFAULT_GOOGLE_TOKEN_URL;
    // A service account with domain-wide delegation signs a JWT for the mailbox (`sub`) and trades
    // it at the token endpoint (RFC 7523); a user's grant refreshes with its refresh token.
    this.#oauth = sa
      ? new JWT({ email: sa.clientEmail, key: sa.privateKey, ...(sa.privateKeyId ? { keyId: sa.privateKeyId } : {}), scopes: [GMAIL_SCOPE], subject: c.email })
      : new OAuth2Client({
          ...(c.clientId ? { clientId: c.clientId } : {}),
          ...(c.clientSecret ? { clientSecret: c.clientSecret } : {}),
          endpoints: { oauth2TokenUrl: tokenUrl },
        });
    // The token endpoint is retried by the library on 5xx/429 (even for POST); switch that off so
    // withRetry is the only retry loop. The JWT grant's endpoint is fixed in the library (it is the
    // assertion's audience too): a configured token URL (a proxy, a local fake) takes its requests.
    this.#oauth.transporter.interceptors.request.add({
      resolved: async (config) => {
        config.retry = false;
        config.retryConfig = { ...config.retryConfig, retry: 0 };
        if (sa && String(config.url) === DEFAULT_GOOGLE_TOKEN_URL) config.url = new URL(tokenUrl);
        return config;
      },
    });
    const creds: Credentials = { access_token: c.accessToken, token_type: 'Bearer' };
    if (c.refreshToken) creds.refresh_token = c.refreshToken;
    // The JWT client refreshes through this marker (its own constructor sets it).
    if (sa) creds.refresh_token = 'jwt-placeholder';
    if (c.expiresAt) creds.expiry_date = Date.parse(c.expiresAt);
    if (c.scope) creds.scope = c.scope;
    this.#oauth.setCredentials(creds);
    this.#oauth.on('tokens', (t) => this.#onTokens(t));
    this.#gmail = new gmail_v1.Gmail({
      // googleapis-common carries its own google-auth-library copy; the client is structurally the
      // same (it only calls `request`).
      auth: this.#oauth,
      rootUrl: opts.apiUrl ?? DEFAULT_GOOGLE_API_URL,
    });
  }

  get credentials(): GoogleCredentials {
    return { ...this.#credentials };
  }

  #onTokens(t: Credentials): void {
    const next: GoogleCredentials = { ...this.#credentials };
    if (t.access_token) next.accessToken = t.access_token;
    if (t.refresh_token && !this.#credentials.serviceAccount) next.refreshToken = t.refresh_token;
    if (t.expiry_date) next.expiresAt = new Date(t.expiry_date).toISOString();
    if (t.scope) next.scope = t.scope;
    this.#credentials = next;
    this.#opts.logger.info({ provider: 'google', expiresAt: next.expiresAt }, 'google access token refreshed');
    const cb = this.#opts.onTokens;
    if (cb) {
      Promise.resolve()
        .then(() => cb({ ...next }))
        .catch((err: unknown) => this.#opts.logger.error({ provider: 'google', err: errorText(err) }, 'could not persist refreshed google tokens'));
    }
  }

  /** One API call with bounded retries; a 401 gets one forced refresh when a refresh token exists. */
  async #call<T>(what: string, units: number, op: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let forcedRefresh = false;
    const limiter = this.#opts.limiter;
    return withRetry(
      'google',
      async () => {
        await limiter?.take(units, signal);
        return op();
      },
      (err) => {
        if (statusOf(err) === 401 && !describe(err, this.#opts.now()).oauth) {
          if ((this.#credentials.refreshToken || this.#credentials.serviceAccount) && !forcedRefresh) {
            forcedRefresh = true;
            // Make the library believe the token expired so the next attempt refreshes first.
            this.#oauth.setCredentials({ ...this.#oauth.credentials, expiry_date: 1 });
            return { kind: 'retry', afterMs: 0, reason: 'HTTP 401, refreshing the access token' };
          }
          return {
            kind: 'fatal',
            error: needsReauth('Gmail rejected the access token (401 Invalid Credentials) and no refresh could cure it; reconnect the account', err),
          };
        }
        return classifyGoogleError(err, this.#opts.now());
      },
      {
        policy: this.#opts.policy,
        signal,
        now: this.#opts.now,
        onRetry: (i) => this.#opts.logger.warn({ provider: 'google', call: what, ...i }, 'google call retried'),
      },
    );
  }

  getProfile(signal?: AbortSignal): Promise<gmail_v1.Schema$Profile> {
    return this.#call(
      'users.getProfile',
      GMAIL_UNITS.profile,
      async () => (await this.#gmail.users.getProfile({ userId: this.#userId }, { retry: false, ...(signal ? { signal } : {}) })).data,
      signal,
    );
  }

  listMessages(params: { q?: string; pageToken?: string; maxResults: number }, signal?: AbortSignal): Promise<gmail_v1.Schema$ListMessagesResponse> {
    return this.#call(
      'users.messages.list',
      GMAIL_UNITS.list,
      async () =>
        (
          await this.#gmail.users.messages.list(
            {
              userId: this.#userId,
              maxResults: params.maxResults,
              ...(params.q ? { q: params.q } : {}),
              ...(params.pageToken ? { pageToken: params.pageToken } : {}),
            },
            { retry: false, ...(signal ? { signal } : {}) },
          )
        ).data,
      signal,
    );
  }

  getRaw(id: string, signal?: AbortSignal): Promise<gmail_v1.Schema$Message> {
    return this.#call(
      'users.messages.get',
      GMAIL_UNITS.get,
      async () => (await this.#gmail.users.messages.get({ userId: this.#userId, id, format: 'raw' }, { retry: false, ...(signal ? { signal } : {}) })).data,
      signal,
    );
  }

  listHistory(params: { startHistoryId: string; pageToken?: string; maxResults: number }, signal?: AbortSignal): Promise<gmail_v1.Schema$ListHistoryResponse> {
    return this.#call(
      'users.history.list',
      GMAIL_UNITS.history,
      async () =>
        (
          await this.#gmail.users.history.list(
            {
              userId: this.#userId,
              startHistoryId: params.startHistoryId,
              historyTypes: ['messageAdded'],
              maxResults: params.maxResults,
              ...(params.pageToken ? { pageToken: params.pageToken } : {}),
            },
            { retry: false, ...(signal ? { signal } : {}) },
          )
        ).data,
      signal,
    );
  }
}
