/**
 * The Intercom wire over the platform `fetch`, with `Intercom-Version` pinned. Intercom tells its
 * rate-limit window in headers (`X-RateLimit-Remaining`, `X-RateLimit-Reset` in epoch seconds):
 * a 429 waits until the reset, and a response with nothing remaining makes the next request wait
 * for the reset instead of earning a 429.
 */
import { ChsError, isChsError } from '../../errors.js';
import type { Logger } from '../../util/logger.js';
import { errorText, parseRetryAfter, withRetry, type RetryPolicy, type Verdict } from '../retry.js';

export const DEFAULT_INTERCOM_API_URL = 'https://api.intercom.io';
export const INTERCOM_VERSION = '2.11';

export interface IntercomClientOptions {
  accessToken: string;
  /** API root: `https://api.intercom.io` (default), `https://api.eu.intercom.io`, `https://api.au.intercom.io`. */
  apiUrl?: string | undefined;
  policy: Readonly<RetryPolicy>;
  logger: Logger;
  now: () => Date;
  /** Default: the global fetch (tests intercept it with nock ≥ 14). */
  fetch?: typeof fetch;
}

/** A non-2xx Intercom answer, with its `error.list` body. */
class IntercomHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
    this.name = 'IntercomHttpError';
  }
}

const REAUTH_CODES = new Set(['unauthorized', 'token_revoked', 'token_expired', 'token_not_found', 'token_blocked']);

function classifyIntercomError(err: unknown): Verdict {
  if (isChsError(err)) return { kind: 'fatal', error: err };
  if (!(err instanceof IntercomHttpError)) return { kind: 'retry', reason: `network: ${errorText(err)}` };
  if (err.status === 401 || REAUTH_CODES.has(err.code)) {
    return {
      kind: 'fatal',
      error: new ChsError('INTEGRATION_NEEDS_REAUTH', `Intercom rejected the access token (${err.code}: ${err.message}); reconnect with a valid token`, {
        cause: err,
        details: { provider: 'intercom' },
      }),
    };
  }
  if (err.status === 429 || err.status === 408 || err.status >= 500) {
    return { kind: 'retry', reason: `HTTP ${err.status} ${err.code}`, ...(err.retryAfterMs !== undefined ? { afterMs: err.retryAfterMs } : {}) };
  }
  return {
    kind: 'fatal',
    error: new ChsError(err.status === 404 ? 'NOT_FOUND' : 'PROVIDER_ERROR', `Intercom: HTTP ${err.status} ${err.code}: ${err.message}`, {
      cause: err,
      details: { provider: 'intercom', status: err.status, code: err.code },
    }),
  };
}

export class IntercomClient {
  readonly #opts: IntercomClientOptions;
  readonly #base: string;
  readonly #fetch: typeof fetch;
  /** Epoch ms before which no request is sent (the window is spent). */
  #notBefore = 0;

  constructor(opts: IntercomClientOptions) {
    this.#opts = opts;
    this.#base = (opts.apiUrl ?? DEFAULT_INTERCOM_API_URL).replace(/\/+$/, '');
    this.#fetch = opts.fetch ?? globalThis.fetch;
  }

  #resetWaitMs(headers: Headers): number | undefined {
    const reset = Number(headers.get('x-ratelimit-reset'));
    if (!Number.isFinite(reset) || reset <= 0) return undefined;
    return Math.max(0, reset * 1000 - this.#opts.now().getTime());
  }

  async #once<T>(method: 'GET' | 'POST', path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const wait = this.#notBefore - this.#opts.now().getTime();
    if (wait > 0) await this.#opts.policy.sleep(wait, signal);
    const res = await this.#fetch(`${this.#base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.#opts.accessToken}`,
        accept: 'application/json',
        'intercom-version': INTERCOM_VERSION,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
    if (res.headers.get('x-ratelimit-remaining') === '0') {
      const ms = this.#resetWaitMs(res.headers);
      if (ms !== undefined) this.#notBefore = this.#opts.now().getTime() + ms;
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = undefined;
    }
    if (res.ok) {
      if (json === undefined) throw new IntercomHttpError(res.status, 'invalid_json', 'response is not JSON', undefined);
      return json as T;
    }
    const first = (json as { errors?: Array<{ code?: unknown; message?: unknown }> } | undefined)?.errors?.[0];
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.#opts.now()) ?? (res.status === 429 ? this.#resetWaitMs(res.headers) : undefined);
    // The wait was honoured by withRetry; do not add it again before the retry.
    this.#notBefore = 0;
    throw new IntercomHttpError(
      res.status,
      typeof first?.code === 'string' ? first.code : `http_${res.status}`,
      typeof first?.message === 'string' ? first.message : res.statusText,
      retryAfterMs,
    );
  }

  /** `maxRetries` lowers the policy's for this call (a progress count is retried at most once). */
  request<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal, maxRetries?: number): Promise<T> {
    const policy = maxRetries === undefined ? this.#opts.policy : { ...this.#opts.policy, maxRetries: Math.min(this.#opts.policy.maxRetries, maxRetries) };
    return withRetry('intercom', () => this.#once<T>(method, path, body, signal), classifyIntercomError, {
      policy,
      signal,
      now: this.#opts.now,
      onRetry: (i) => this.#opts.logger.warn({ provider: 'intercom', call: `${method} ${path.split('?')[0]}`, ...i }, 'intercom call retried'),
    });
  }
}
