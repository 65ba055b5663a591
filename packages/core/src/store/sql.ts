/**
 * The few SQL fragments that differ between SQLite and PostgreSQL. Everything else is written
 * once with Kysely builders or portable SQL.
 */
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Db } from './database.js';
import { dialectOf } from './dialect.js';

/** Hours from ISO timestamp `from` to ISO timestamp `to` (text columns), as a double. */
export function hoursBetween(db: Db, from: Expression<unknown>, to: Expression<unknown>): RawBuilder<number> {
  if (dialectOf(db) === 'postgres') {
    return sql<number>`(extract(epoch from (cast(${to} as timestamptz) - cast(${from} as timestamptz))) / 3600.0)`;
  }
  return sql<number>`((julianday(${to}) - julianday(${from})) * 24.0)`;
}
