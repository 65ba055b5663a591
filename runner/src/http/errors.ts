/**
 * The one table from error codes to HTTP statuses, and the error body every 4xx/5xx carries:
 * `{ "error": string, "code": string, "status": number }` (docs/errors.md). Engine errors
 * (ChsError) and HTTP-level errors (HttpError, Fastify's own) all end here; docs/errors.md lists
 * every code, and a test checks the list and this table agree.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, isChsError, type ErrorCode } from '@chs/core';

/** Codes raised by the HTTP layer itself (the engine's codes are ERROR_CODES). */
const HTTP_ERROR_CODES = [
  'AUTH_INVALID_KEY',
  'FORBIDDEN_WORKSPACE',
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'MALFORMED_REQUEST',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'NOT_READY',
  'OAUTH_NOT_CONFIGURED',
] as const;
export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];
export type ApiErrorCode = HttpErrorCode | ErrorCode;

interface Mapping {
  status: number;
  /**
   * Whether the thrown message may reach the client. 4xx messages are written for the caller;
   * 5xx messages may carry internals (paths, SQL, hosts) and are replaced by `publicMessage`.
   */
  expose: boolean;
  publicMessage: string;
}

const m = (status: number, publicMessage: string, expose = status < 500): Mapping => ({ status, expose, publicMessage });

/**
 * Every code → status. Keep docs/errors.md in step (a test compares them and checks every
 * ERROR_CODES entry is here). Engine codes are Partial so a code added to the core does not break
 * the build before it is mapped; until then it answers 500 INTERNAL.
 */
export const ERROR_TABLE: Readonly<Record<HttpErrorCode | 'INTERNAL', Mapping> & Partial<Record<ErrorCode, Mapping>>> = Object.freeze({
  // HTTP layer
  AUTH_INVALID_KEY: m(401, 'Missing or invalid API key'),
  FORBIDDEN_WORKSPACE: m(403, 'The API key does not belong to this workspace'),
  VALIDATION_ERROR: m(400, 'Invalid parameters'),
  INVALID_JSON: m(400, 'The request body is not valid JSON'),
  UNSUPPORTED_MEDIA_TYPE: m(415, 'Unsupported content type; send application/json'),
  PAYLOAD_TOO_LARGE: m(413, 'Request body is too large'),
  URI_TOO_LONG: m(414, 'A path segment is too long'),
  HEADERS_TOO_LARGE: m(431, 'The request headers (URL included) are too large'),
  REQUEST_TIMEOUT: m(408, 'The request was not received in time'),
  MALFORMED_REQUEST: m(400, 'The request is not valid HTTP'),
  RATE_LIMITED: m(429, 'Rate limit exceeded'),
  SERVICE_UNAVAILABLE: m(503, 'The service is shutting down or unavailable; retry shortly', true),
  NOT_READY: m(503, 'Not ready: a dependency (database, Redis) is unreachable or the database is not migrated', true),
  // The HTTP sign-in needs CHS_PUBLIC_URL and an OAuth client (docs/integrations.md); the message names them.
  OAUTH_NOT_CONFIGURED: m(409, 'The provider sign-in is not configured on this server'),
  // Engine (ChsError)
  INVALID_INPUT: m(400, 'Invalid input'),
  NOT_FOUND: m(404, 'Not found'),
  CONFLICT: m(409, 'Conflict with the current state'),
  WORKSPACE_NOT_FOUND: m(404, 'Workspace not found'),
  WORKSPACE_EXISTS: m(409, 'Workspace already exists'),
  INVALID_DOMAIN: m(400, 'Invalid domain'),
  CLIENT_NOT_FOUND: m(404, 'Client not found'),
  KEY_NOT_FOUND: m(404, 'API key not found'),
  OAUTH_FAILED: m(400, 'The provider sign-in failed'),
  SOURCE_UNREADABLE: m(400, 'The source cannot be read'),
  INTEGRATION_NOT_CONNECTED: m(400, 'The integration is not connected'),
  INTEGRATION_NEEDS_REAUTH: m(409, 'The integration needs to be re-authorised'),
  JOB_CONFLICT: m(409, 'A job of this kind is already running'),
  INVALID_TRANSITION: m(409, 'Invalid state transition'),
  // A provider's or mail server's answer is the useful part of these 502s, and carries no internals.
  PROVIDER_ERROR: m(502, 'The provider returned an error', true),
  // The provider's own quota is spent: retry after `details.resumeAt` (sent as Retry-After).
  PROVIDER_RATE_LIMITED: m(503, 'The provider’s rate limit is exhausted; retry later', true),
  NOTIFICATION_FAILED: m(502, 'The notification could not be delivered', true),
  // Relay and key guards (issue 16): the workspace's key cap, its sender domains, the e-mail
  // confirmation token, the hourly budget of e-mails sent on request (Retry-After from details.resumeAt).
  KEY_LIMIT_REACHED: m(409, 'The workspace has as many active API keys as allowed'),
  SENDER_NOT_ALLOWED: m(400, 'The sender address is not on one of the workspace’s domains'),
  CONFIRMATION_INVALID: m(400, 'The confirmation token is unknown, used or expired'),
  NOTIFICATION_RATE_LIMITED: m(429, 'Too many e-mails sent on request this hour'),
  DATABASE_UNREACHABLE: m(503, 'The database is unreachable'),
  DATABASE_BUSY: m(503, 'The database is locked by another process; retry shortly'),
  STORAGE_FULL: m(507, 'The server is out of storage'),
  CREDENTIALS_UNREADABLE: m(500, 'Stored provider credentials cannot be decrypted'),
  MIGRATION_FAILED: m(500, 'Internal server error'),
  INTERNAL: m(500, 'Internal server error'),
});

function isApiErrorCode(code: string): code is ApiErrorCode {
  return Object.hasOwn(ERROR_TABLE, code);
}

/** The mapping of a code; an unmapped code is INTERNAL. */
export function mappingOf(code: string): { code: ApiErrorCode } & Mapping {
  return isApiErrorCode(code) && ERROR_TABLE[code] ? { code, ...ERROR_TABLE[code] } : { code: 'INTERNAL', ...ERROR_TABLE.INTERNAL };
}

/** An error raised by the HTTP layer, with its stable code. */
export class HttpError extends Error {
  readonly code: HttpErrorCode;
  readonly status: number;
  /** Extra headers to send with the error (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(code: HttpErrorCode, message?: string, headers: Record<string, string> = {}) {
    super(message ?? ERROR_TABLE[code].publicMessage);
    this.name = 'HttpError';
    this.code = code;
    this.status = ERROR_TABLE[code].status;
    this.headers = headers;
  }
}

export interface ErrorBody {
  error: string;
  code: string;
  status: number;
}

/** Fastify's own error codes (parsing, validation, routing) → ours. */
const FASTIFY_CODES: Record<string, ApiErrorCode> = {
  FST_ERR_VALIDATION: 'VALIDATION_ERROR',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_ERROR',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_NOT_FOUND: 'NOT_FOUND',
  FST_ERR_BAD_URL: 'VALIDATION_ERROR',
  FST_ERR_MAX_PARAM_LENGTH: 'URI_TOO_LONG',
  FST_ERR_ASYNC_CONSTRAINT: 'VALIDATION_ERROR',
};

/** What a status alone means when nothing more specific is known. */
function codeForStatus(status: number): ApiErrorCode {
  if (status === 401) return 'AUTH_INVALID_KEY';
  if (status === 403) return 'FORBIDDEN_WORKSPACE';
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 414) return 'URI_TOO_LONG';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status === 429) return 'RATE_LIMITED';
  if (status === 503) return 'SERVICE_UNAVAILABLE';
  if (status >= 400 && status < 500) return 'VALIDATION_ERROR';
  return 'INTERNAL';
}

/** Turns anything thrown into the status, the body and extra headers of the response. */
function toErrorResponse(err: unknown): { body: ErrorBody; headers: Record<string, string>; internal: boolean } {
  if (err instanceof HttpError) {
    return { body: { error: err.message, code: err.code, status: err.status }, headers: err.headers, internal: false };
  }
  if (isChsError(err)) {
    const mapping = mappingOf(err.code);
    const headers: Record<string, string> = {};
    const resumeAt = typeof err.details?.resumeAt === 'string' ? Date.parse(err.details.resumeAt) : Number.NaN;
    if (!Number.isNaN(resumeAt)) headers['retry-after'] = String(Math.max(1, Math.ceil((resumeAt - Date.now()) / 1000)));
    return {
      body: { error: mapping.expose ? err.message : mapping.publicMessage, code: mapping.code, status: mapping.status },
      headers,
      internal: mapping.status >= 500,
    };
  }
  const fe = err as Partial<FastifyError> | null;
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code = (fe?.code && FASTIFY_CODES[fe.code]) || codeForStatus(status);
    // Fastify's 4xx messages describe the request (which field, what was wrong), never internals.
    const message = typeof fe?.message === 'string' && fe.message !== '' ? fe.message : mappingOf(code).publicMessage;
    return { body: { error: message, code, status }, headers: {}, internal: false };
  }
  const mapping = mappingOf(status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL');
  return { body: { error: mapping.publicMessage, code: mapping.code, status: mapping.status }, headers: {}, internal: true };
}

/** The app's error handler: one body shape, 5xx logged with the request id and never leaked. */
export function errorHandler(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { body, headers, internal } = toErrorResponse(err);
  if (internal) {
    request.log.error({ err, reqId: request.id, code: body.code }, 'request failed');
    body.error = `${body.error} (request id ${request.id})`;
  } else if (body.status >= 400) {
    request.log.info({ code: body.code, status: body.status }, body.error);
  }
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  void reply.status(body.status).type('application/json; charset=utf-8').send(body);
}

/** JSON 404 for any path no route serves. */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  void reply.status(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found`, code: 'NOT_FOUND', status: 404 } satisfies ErrorBody);
}

/** Every code the API can answer with (for docs and tests). */
export function allErrorCodes(): ApiErrorCode[] {
  return [...HTTP_ERROR_CODES, ...ERROR_CODES];
}
