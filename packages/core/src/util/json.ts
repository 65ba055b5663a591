/**
 * Stored JSON columns are read through one typed guard: a value that does not have the shape the
 * code relies on is a named error (INTERNAL, naming the column), never a silent `as T`.
 */
import { ChsError } from '../errors.js';

export type Guard<T> = (value: unknown) => value is T;

/** Parses `text` and checks it with `guard`; `what` names the column in the error. */
export function readJson<T>(text: string, guard: Guard<T>, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ChsError('INTERNAL', `${what} is not valid JSON`, { cause: err });
  }
  if (!guard(value)) throw new ChsError('INTERNAL', `${what} does not have the expected shape`);
  return value;
}

export const isRecord: Guard<Record<string, unknown>> = (v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function arrayOf<T>(item: Guard<T>): Guard<T[]> {
  return (v): v is T[] => Array.isArray(v) && v.every(item);
}

export function recordOf<T>(item: Guard<T>): Guard<Record<string, T>> {
  return (v): v is Record<string, T> => isRecord(v) && Object.values(v).every(item);
}

/** An object whose listed members have the given primitive types (a type ending in `?` may be absent). */
export function shape<T>(members: Record<string, 'string' | 'number' | 'boolean' | 'object' | 'string?' | 'number?' | 'boolean?' | 'object?'>): Guard<T> {
  return (v): v is T => {
    if (!isRecord(v)) return false;
    for (const [k, t] of Object.entries(members)) {
      const optional = t.endsWith('?');
      const type = optional ? t.slice(0, -1) : t;
      const x = v[k];
      if (x === undefined && optional) continue;
      if (x === null || typeof x !== type) return false;
    }
    return true;
  };
}
