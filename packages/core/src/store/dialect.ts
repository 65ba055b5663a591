import { PostgresAdapter } from 'kysely';

/** Which SQL dialect a Kysely instance talks to. */
export type DialectName = 'sqlite' | 'postgres';

/** Takes any Kysely instance or transaction, whatever its table types. */
export function dialectOf(db: { getExecutor(): { readonly adapter: object } }): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
