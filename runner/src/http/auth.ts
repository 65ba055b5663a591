/**
 * API-key authentication, the `workspaceId` check and rate limiting, as hooks on every request.
 *
 * onRequest (every request, unknown paths included):
 *   1. Read the key from `Authorization: Bearer <key>` or `X-API-Key: <key>`.
 *   2. Verify it (`ApiKeyVerifier`): one lookup on the unique hash index, remembered only while
 *      the store's data version is unchanged, so a key deleted or deactivated by any runner
 *      sharing the database is refused on the next request. (PostgreSQL: a lookup every request.)
 *   3. Count the request: a valid key in its key and workspace windows, anything else per IP;
 *      set the `X-RateLimit-*` headers (so they are on every response, errors too); 429 if full.
 *   4. A route that needs a key (all under /api but `config.public`) without a valid one: 401.
 *   Probes (`config.probe`: /api/health, /api/ready, /metrics) skip all of this.
 *      Unknown paths answer 404 whether or not a key is sent: routing comes before auth.
 * preValidation (after the body is parsed, before schema validation):
 *   5. `workspaceId` from the query and/or the JSON body: none → 400; any that is not the key's
 *      workspace → 403. Checked before validation so a foreign caller learns nothing of the
 *      parameters.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey, ApiKeyVerifier, KeyUsageTracker, Store } from '@chs/core';
import type { RateLimitConfig } from '../config.js';
import { HttpError } from './errors.js';
import { rateLimitHeaders, windowsFor, type RateLimitStore } from './rate-limit.js';

export interface AuthHookOptions {
  keys: ApiKeyVerifier;
  /** Read once per request, as it arrives, into `request.dataVersion`. */
  dataVersion: () => ReturnType<Store['dataVersion']>;
  usage: KeyUsageTracker;
  limits: RateLimitConfig;
  store: RateLimitStore;
}

/** The key a request presents, or undefined. `Authorization: Bearer` wins over `X-API-Key`. */
function presentedKey(headers: FastifyRequest['headers']): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m?.[1]) return m[1];
  }
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x.trim() !== '') return x.trim();
  return undefined;
}

function needsAuth(request: FastifyRequest): boolean {
  return !request.is404 && request.routeOptions.config.public !== true;
}

/** Counts a request and sets its rate-limit headers (steps 1–3); the key, or null. Throws RATE_LIMITED. */
export type RequestMeter = (request: FastifyRequest, reply: FastifyReply) => Promise<ApiKey | null>;

/**
 * Registers the hooks; returns steps 1–3 for requests that never reach them (a URL the router
 * refuses is answered before any hook runs, and must still be counted and carry the headers).
 */
export function registerAuth(app: FastifyInstance, options: AuthHookOptions): RequestMeter {
  const { keys, dataVersion, usage, limits, store } = options;
  app.decorateRequest('auth', null as unknown as FastifyRequest['auth']);
  app.decorateRequest('dataVersion', undefined);

  const meter: RequestMeter = async (request, reply) => {
    request.dataVersion = dataVersion();
    const presented = presentedKey(request.headers);
    const key = presented ? await keys.verify(presented, request.dataVersion) : null;
    const now = Date.now();
    const result = await store.consume(windowsFor(key ? { keyId: key.id, workspaceId: key.workspaceId } : { ip: request.ip }, limits), now);
    const headers = rateLimitHeaders(result, now);
    void reply.headers(headers);
    if (!result.allowed) {
      throw new HttpError('RATE_LIMITED', `Rate limit exceeded: ${headers['x-ratelimit-limit']} requests per window; retry after ${headers['retry-after']} s`);
    }
    return key;
  };

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // Load balancers and scrapers probe every few seconds: never counted, never refused.
    if (request.routeOptions.config.probe === true) return;
    const key = await meter(request, reply);
    if (key) {
      usage.touch(key);
      request.auth = { workspaceId: key.workspaceId, keyId: key.id, userId: key.userId };
    } else if (needsAuth(request)) {
      throw new HttpError(
        'AUTH_INVALID_KEY',
        presentedKey(request.headers)
          ? 'Invalid API key: unknown, deleted or inactive'
          : 'Missing API key: send "Authorization: Bearer <key>" or "X-API-Key: <key>"',
      );
    }
  });

  app.addHook('preValidation', async (request: FastifyRequest) => {
    if (!needsAuth(request) || request.routeOptions.config.probe === true) return;
    const seen: unknown[] = [];
    const query = request.query as Record<string, unknown> | undefined;
    if (query && query.workspaceId !== undefined) seen.push(query.workspaceId);
    const body = request.body as Record<string, unknown> | undefined;
    if (body && typeof body === 'object' && !Array.isArray(body) && body.workspaceId !== undefined) seen.push(body.workspaceId);
    if (seen.length === 0) throw new HttpError('VALIDATION_ERROR', 'querystring.workspaceId: required (the workspace domain, e.g. acme.com)');
    for (const id of seen) {
      if (typeof id !== 'string' || id.trim() === '') throw new HttpError('VALIDATION_ERROR', 'workspaceId: must be one non-empty string');
      if (id.trim().toLowerCase() !== request.auth.workspaceId) {
        throw new HttpError('FORBIDDEN_WORKSPACE', `The API key does not belong to workspace ${id}`);
      }
    }
  });
  return meter;
}
