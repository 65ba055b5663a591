/**
 * Requests Node's HTTP parser refuses before Fastify sees them — headers (URL included) over
 * 16 KiB, a request not received within the request or headers timeout, bytes that are not
 * HTTP — answered like every other error: the `{error, code, status}` body, an `X-Request-Id`
 * and the `X-RateLimit-*` headers (counted per client IP, as for any request without a valid key).
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import { ERROR_TABLE, type ErrorBody, type HttpErrorCode } from './errors.js';
import { rateLimitHeaders, windowsFor, type RateLimitStore } from './rate-limit.js';

function codeOf(err: NodeJS.ErrnoException): HttpErrorCode {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE';
  return 'MALFORMED_REQUEST';
}

/** The raw HTTP/1.1 response for a refused request. */
function clientErrorResponse(code: HttpErrorCode, requestId: string, extra: Record<string, string>): string {
  const { status, publicMessage } = ERROR_TABLE[code];
  const body = JSON.stringify({ error: publicMessage, code, status } satisfies ErrorBody);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    ...extra,
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Fastify's `clientErrorHandler`: the documented answer, then the connection is closed. */
export function clientErrorHandler(options: { store: RateLimitStore; limits: RateLimitConfig; log: FastifyBaseLogger }) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    // A response already under way on this connection cannot be followed by another status line.
    const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (current?.headersSent) {
      socket.destroy();
      return;
    }
    const code = codeOf(err);
    const requestId = randomUUID();
    options.log.debug({ reqId: requestId, code, err: err.code }, 'client error');
    const now = Date.now();
    void options.store
      .consume(windowsFor({ ip: socket.remoteAddress ?? 'unknown' }, options.limits), now)
      .then((result) => rateLimitHeaders(result, now))
      // Counters unreachable: the answer still goes out, without the headers it cannot know.
      .catch((): Record<string, string> => ({}))
      .then((headers) => {
        if (socket.writable) socket.end(clientErrorResponse(code, requestId, headers), () => socket.destroy());
        else socket.destroy();
      });
  };
}
