/**
 * The few SQL fragments that differ between SQLite and PostgreSQL. Everything else is written
 * once with Kysely builders or portable SQL.
 */
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Db } from '../store/database.js';
import { dialectOf } from '../store/dialect.js';

/** Hours from ISO timestamp `from` to ISO timestamp `to` (text columns), as a double. */
export function hoursBetween(db: Db, from: Expression<unknown>, to: Expression<unknown>): RawBuilder<number> {
  if (dialectOf(db) === 'postgres') {
    return sql<number>`(extract(epoch from (cast(${to} as timestamptz) - cast(${from} as timestamptz))) / 3600.0)`;
  }
  return sql<number>`((julianday(${to}) - julianday(${from})) * 24.0)`;
}

/** Splits a list into chunks, to keep IN lists and multi-row inserts under parameter limits. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
