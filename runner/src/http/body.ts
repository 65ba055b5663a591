/**
 * Request bodies, bounded before anything walks them: Fastify refuses a body over BODY_LIMIT while
 * reading it (413), then the JSON text is scanned once, iteratively, for its nesting depth, and
 * only then parsed (by Fastify's own parser, which also refuses `__proto__`/`constructor`
 * poisoning) and validated. Validation (TypeBox), the auth hook and the routes recurse over the
 * value, so a body nested 5,000 deep would otherwise end in `RangeError: Maximum call stack
 * size exceeded` (a 500); here it is a 400 before it is even parsed.
 *
 * JSON (`application/json`, any parameters) is the only body type: everything else is 415.
 */
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';

/** Largest JSON body accepted (bytes). */
export const BODY_LIMIT = 1024 * 1024;
/** Deepest nesting of objects and arrays accepted in a JSON body (the deepest schema needs 4). */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether JSON text nests objects/arrays deeper than `limit`. One linear pass with a counter, no
 * recursion; brackets inside strings do not count. Invalid JSON is left for the parser to refuse.
 */
export function jsonDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Replaces Fastify's body parsers by the one JSON parser: an empty body with a JSON content type is
 * no body (clients often send the header on body-less POSTs), too deep is 400 VALIDATION_ERROR,
 * bad JSON is 400 INVALID_JSON, and any other content type (text/plain included) is 415.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (jsonDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(new HttpError('VALIDATION_ERROR', `body: objects and arrays nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    // Fastify's default JSON parser answers through `done`; it returns nothing to wait for.
    void parseJson(req, text, done);
  });
}
