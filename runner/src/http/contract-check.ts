/**
 * Test support: every answer of an app is checked against the response schema its route
 * documents (ajv), so drift between what the code sends and the OpenAPI document fails the test
 * that sees it. A mismatch is collected and turns the answer into a 500 `CONTRACT_VIOLATION`
 * naming it. Checks are stricter than the document in one way: an object may carry no member
 * its schema does not list (unless the schema says otherwise), so a new field must be documented.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorBodySchema } from './schemas.js';
import { FORMATS } from './validation.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A plain copy of a schema in which every object schema without a word on it refuses unknown members. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'examples' || k === 'default' || k === 'enum' || k === 'const' ? v : closed(v);
  if (out.type === 'object' && isObject(out.properties) && !('additionalProperties' in out) && !('patternProperties' in out)) out.additionalProperties = false;
  return out;
}

// One validator per schema object for the whole test file: compiling takes tens of milliseconds,
// and the route modules' schemas are the same objects in every app a file starts.
const ajv = new Ajv({ allErrors: true, strict: false });
for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, check);
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(closed(schema) as object);
    compiled.set(schema, v);
  }
  return v;
}

/** The schema documented for `status`: exact code, then `4xx`-style range, then the shared error body. */
function schemaFor(responses: Json | undefined, status: number): unknown {
  const range = `${Math.floor(status / 100)}xx`;
  const found = responses?.[status] ?? responses?.[String(status)] ?? responses?.[range] ?? responses?.default;
  if (found !== undefined) return found;
  return status >= 400 ? ErrorBodySchema : undefined;
}

export interface ContractCheck {
  /** One line per answer that did not match its schema (or had none), in order. */
  readonly violations: string[];
}

/** Adds the check to `app` (before it is ready). */
export function checkResponsesAgainstSchemas(app: FastifyInstance): ContractCheck {
  const violations: string[] = [];

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const schema = request.routeOptions.schema as (Json & { hide?: boolean; response?: Json }) | undefined;
    // Outside the documented API: the hidden document itself and Prometheus' /metrics.
    if (schema?.hide || !request.url.startsWith('/api/')) return payload;
    const status = reply.statusCode;
    const where = `${request.method} ${request.routeOptions.url ?? request.url} → ${status}`;
    const fail = (problem: string): string => {
      violations.push(`${where}: ${problem}`);
      void reply.code(500);
      return JSON.stringify({ error: `response does not match the OpenAPI document: ${where}: ${problem}`, code: 'CONTRACT_VIOLATION', status: 500 });
    };
    const responseSchema = schemaFor(schema?.response, status);
    // A route of a test's own with no response schema at all; the API's routes all have one
    // (redocly's operation-2xx-response, in openapi.test.ts).
    if (responseSchema === undefined && schema?.response === undefined) return payload;
    if (!isObject(responseSchema)) return fail('no response schema documents this status');
    const type = String(reply.getHeader('content-type') ?? '');
    // A redirect documented as having no body (`type: 'null'`): a Location and nothing else.
    if (status >= 300 && status < 400 && responseSchema.type === 'null') {
      if (!reply.getHeader('location')) return fail('a redirect without a Location header');
      const size = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload.length : payload == null ? 0 : -1;
      return size === 0 ? payload : fail('a redirect documented without a body has one');
    }
    // Several media types documented (`content: {'text/html': …, 'application/json': …}`): the one
    // sent must be among them; a page is text, JSON is checked against its own schema below.
    let jsonSchema: unknown = responseSchema;
    if (isObject(responseSchema.content)) {
      const media = type.split(';')[0]?.trim() ?? '';
      const entry = responseSchema.content[media];
      if (!isObject(entry)) return fail(`content-type ${type || '(none)'} is not one documented (${Object.keys(responseSchema.content).join(', ')})`);
      if (media !== 'application/json') return typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : fail('the body is not text');
      jsonSchema = entry.schema;
    }
    if (!isObject(jsonSchema)) return fail('no JSON schema documents this answer');
    if (!type.startsWith('application/json')) return fail(`content-type ${type || '(none)'} instead of application/json`);
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return fail('the body is not JSON text');
    let body: unknown;
    try {
      body = JSON.parse(payload.toString());
    } catch {
      return fail('the body is not valid JSON');
    }
    const validate = validatorOf(jsonSchema);
    if (validate(body)) return payload;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${e.instancePath || '/'} ${e.message ?? 'invalid'}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})` : ''}`,
      );
    return fail(errors.join('; '));
  });
  return { violations };
}
