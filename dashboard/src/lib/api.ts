/**
 * The API client: openapi-fetch over the types generated from `/api/openapi.json`
 * (runner/src/http/openapi-types.ts, `npm run openapi:types -w runner`). Every call the
 * dashboard makes goes through it, so a request or an answer that drifts from the document is a
 * type error here. No response type is written by hand.
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../../runner/src/http/openapi-types.js';

export type ApiClient = ReturnType<typeof createClient<paths>>;

/** The JSON body of a GET operation's 200 answer. */
export type Answer<P extends keyof paths, M extends 'get' | 'post' | 'put' | 'patch' | 'delete' = 'get'> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

/** An API error in words: the body's `error` text, its `code` and the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface ErrorBody {
  error: string;
  code: string;
  status: number;
}

function isErrorBody(v: unknown): v is ErrorBody {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.error === 'string' && typeof o.code === 'string' && typeof o.status === 'number';
}

export function createApiClient(key: string, baseUrl: string = globalThis.location?.origin ?? 'http://localhost'): ApiClient {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
}

type Answered<T> = { data?: T; error?: unknown; response: Response };

async function settle<T>(call: Promise<Answered<T>>): Promise<Answered<T>> {
  let r: Answered<T>;
  try {
    r = await call;
  } catch (err) {
    throw new ApiError(0, 'NETWORK_ERROR', `The server could not be reached (${err instanceof Error ? err.message : String(err)}).`);
  }
  if (r.response.ok) return r;
  if (isErrorBody(r.error)) throw new ApiError(r.error.status, r.error.code, r.error.error);
  throw new ApiError(r.response.status, `HTTP_${r.response.status}`, `The server answered ${r.response.status} ${r.response.statusText}`.trim() + '.');
}

/** The data of an openapi-fetch answer, or an ApiError that says what went wrong. */
export async function unwrap<T>(call: Promise<Answered<T>>): Promise<T> {
  const r = await settle(call);
  if (r.data !== undefined) return r.data;
  throw new ApiError(r.response.status, `HTTP_${r.response.status}`, `The server answered ${r.response.status} with no body.`);
}

/** Success of a call whose answer has nothing to read (a 204, a DELETE), or an ApiError. */
export async function done(call: Promise<Answered<unknown>>): Promise<true> {
  await settle(call);
  return true;
}
