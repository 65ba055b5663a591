/**
 * Request validation from TypeBox schemas.
 *
 * Query strings, path parameters and headers arrive as text, so their numbers and booleans are
 * converted first — strictly: `limit=abc`, `limit=1.5` for an integer, `limit=true` for a number
 * are left as text and fail validation (400), never coerced or clamped. JSON bodies are not
 * converted at all: `"riskThreshold": "50"` is a wrong type, 400. Defaults from the schema are
 * filled in; unknown properties are kept (so `additionalProperties: false` rejects them rather
 * than silently dropping them).
 *
 * No text may hold U+0000 (see `nulPath`).
 *
 * TypeBox's own `Value.Convert` is not used for the conversion because it truncates `1.5` to an
 * integer and turns `true` into 1.
 */
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { isValidEmail } from '@chs/core';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** The string formats the schemas use, and how each is checked (requests here; responses in tests). */
export const FORMATS: Readonly<Record<string, (v: string) => boolean>> = {
  email: isValidEmail,
  date: (v) => ISO_DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
  'date-time': (v) => ISO_DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)),
  uri: (v) => URL.canParse(v),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
};

function registerFormats(): void {
  for (const [name, fn] of Object.entries(FORMATS)) if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, fn);
}
registerFormats();

const NUMBER_TEXT = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function typesOf(schema: Json): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  if (schema.const !== undefined) return [typeof schema.const];
  return [];
}

/** Converts text to the schema's scalar type when it is exactly such a value; otherwise returns it unchanged. */
function convertText(schema: Json, text: string): unknown {
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf.filter(isObject) : [schema];
  for (const alt of alternatives) {
    const types = typesOf(alt);
    if (types.includes('string')) return text;
    if ((types.includes('number') || types.includes('integer')) && NUMBER_TEXT.test(text)) return Number(text);
    if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
    if (types.includes('null') && text === 'null') return null;
  }
  return text;
}

/** Converts the text values of a query/params/headers object by its schema. */
function convertTextValues(schema: unknown, value: unknown): unknown {
  if (!isObject(schema)) return value;
  if (typeof value === 'string') {
    if (typesOf(schema).includes('array') && isObject(schema.items)) return [convertText(schema.items, value)];
    return convertText(schema, value);
  }
  if (Array.isArray(value)) {
    const items = isObject(schema.items) ? schema.items : undefined;
    return items ? value.map((v) => convertTextValues(items, v)) : value;
  }
  if (isObject(value) && isObject(schema.properties)) {
    const props = schema.properties;
    // Null prototype, like the query parser's own objects: a `__proto__` parameter stays a plain key.
    const out: Json = Object.create(null) as Json;
    for (const [k, v] of Object.entries(value)) out[k] = isObject(props[k]) && Object.hasOwn(props, k) ? convertTextValues(props[k], v) : v;
    return out;
  }
  return value;
}

/** `querystring/limit: Expected number to be less or equal to 100`. */
export function formatValidationErrors(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const first = errors[0];
  const where = first?.instancePath ? `${dataVar}${first.instancePath.replace(/\//g, '.')}` : dataVar;
  return new Error(`${where}: ${first?.message ?? 'invalid'}`);
}

/** Whether a `default` appears anywhere in the schema. */
export function hasDefaults(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasDefaults);
  if (!isObject(schema)) return false;
  return Object.hasOwn(schema, 'default') || Object.values(schema).some(hasDefaults);
}

/**
 * Where the first text holding U+0000 is in a validated value (`/profile/name`), or undefined.
 * PostgreSQL text cannot store it (a 500 there, while SQLite takes it) and no parameter needs it,
 * so it is refused on both. Iterative; bodies are at most MAX_JSON_DEPTH deep anyway.
 */
function nulPath(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [v, at] = next;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return at;
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return `${at}/${k}`;
        stack.push([child, `${at}/${k}`]);
      }
    }
  }
  return undefined;
}

/** Fastify validator compiler for TypeBox schemas (see the module comment). */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart, url, method }) => {
  let check: ReturnType<typeof TypeCompiler.Compile>;
  try {
    check = TypeCompiler.Compile(schema);
  } catch (err) {
    // Fail at start-up, naming the route, rather than at the first request.
    throw new Error(
      `${method} ${url}: the ${httpPart ?? 'request'} schema must be built with TypeBox (Type.Object(…)), not plain JSON Schema: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const convert = httpPart !== 'body';
  // Filling defaults walks the schema and the value on every request: only when there are some.
  const fillDefaults = hasDefaults(schema);
  return (input: unknown) => {
    let value = convert ? convertTextValues(schema, input) : input;
    if (fillDefaults && value !== undefined) value = Value.Default(schema, value);
    if (check.Check(value)) {
      const nul = nulPath(value);
      if (nul === undefined) return { value };
      return {
        error: [
          { keyword: 'nul', instancePath: nul, schemaPath: '', params: {}, message: 'Expected text without the NUL character (U+0000)' },
        ] as unknown as Error,
      };
    }
    const errors: FastifySchemaValidationError[] = [];
    for (const e of check.Errors(value)) {
      errors.push({ keyword: String(e.type), instancePath: e.path, schemaPath: '', params: {}, message: e.message });
      if (errors.length >= 5) break;
    }
    return { error: errors as unknown as Error };
  };
};
