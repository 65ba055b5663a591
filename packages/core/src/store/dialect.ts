import { PostgresAdapter, type Kysely } from 'kysely';

/** Which SQL dialect a Kysely instance talks to. */
export type DialectName = 'sqlite' | 'postgres';

export function dialectOf(db: Kysely<unknown>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
