/**
 * Many rows into one table, fast: INSERTs whose SQL text is built once per table, column list
 * and row count (SQLite: multi-row VALUES; PostgreSQL: one array per column, see pgInsert), and
 * run as compiled queries. Kysely's builder re-parses every value
 * of every row into an operation tree and compiles it again on each call (about a third of the
 * main thread's time when ingesting 50,000 messages and writing 180,000 health snapshots); here
 * the values go straight to the driver, and SQLite reuses the prepared statement for the text
 * (database.ts's statement cache), so a 50-row chunk costs one bind-and-step.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { dialectOf, type DialectName } from './dialect.js';

/**
 * Rows per statement. SQLite: 50 (~1,000 parameters with ~20 columns; the prepared statement is
 * reused, so more rows gain nothing). PostgreSQL: 500, each statement a round trip (an insert
 * sends one array per column; an update's VALUES list stays under 65,535 parameters).
 */
export const BULK_ROWS_PER_STATEMENT: Readonly<Record<DialectName, number>> = Object.freeze({ sqlite: 50, postgres: 500 });

type Value = string | number | bigint | null | Uint8Array;

const texts = new Map<string, string>();

function insertText(dialect: DialectName, table: string, columns: readonly string[], rows: number): string {
  const key = `${dialect}\u0000${table}\u0000${columns.join(',')}\u0000${rows}`;
  let text = texts.get(key);
  if (text === undefined) {
    let n = 0;
    const tuple = (): string => `(${columns.map(() => (dialect === 'postgres' ? `$${++n}` : '?')).join(', ')})`;
    const tuples: string[] = [];
    for (let r = 0; r < rows; r++) tuples.push(tuple());
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')}`;
    texts.set(key, text);
  }
  return text;
}

/**
 * PostgreSQL: the type of each column of a table, as `format_type` writes it (`text`, `double
 * precision`, `bytea`…), read from the catalog once per table and process (every schema a
 * process uses holds the same migrations).
 */
const pgColumnTypes = new Map<string, ReadonlyMap<string, string>>();

async function pgTypesOf(db: Kysely<Database>, table: string, columns: readonly string[]): Promise<ReadonlyMap<string, string>> {
  let types = pgColumnTypes.get(table);
  // Read again when a column is not known (a migration run since by this process added it).
  if (types === undefined || columns.some((c) => !types!.has(c))) {
    const r = await db.executeQuery<{ name: string; type: string }>(
      CompiledQuery.raw(
        'select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = to_regclass($1) and attnum > 0 and not attisdropped',
        [`"${table}"`],
      ),
    );
    types = new Map(r.rows.map((c) => [c.name, c.type]));
    pgColumnTypes.set(table, types);
  }
  return types;
}

/**
 * PostgreSQL's statement for `rows` rows: one array per column, unnested into rows
 * (`insert … select * from unnest($1::text[], …)`): a statement of one parameter per column,
 * where a multi-row VALUES list of ~10,000 parameters was parsed and planned for every 500 rows.
 * Measured beside the VALUES form (same rows, same indexes and foreign keys), the server's CPU
 * fell from 1.96-1.98 to 1.41-1.56 s for 42,000 interactions and from 2.08-2.58 to 1.65-2.04 s
 * for 183,000 health snapshots.
 */
async function pgInsert(db: Kysely<Database>, table: string, columns: readonly string[], part: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  const types = await pgTypesOf(db, table, columns);
  const key = `unnest\u0000${table}\u0000${columns.join(',')}`;
  let text = texts.get(key);
  if (text === undefined) {
    const arrays = columns.map((c, j) => {
      const type = types.get(c);
      if (type === undefined) throw new Error(`insertRows: ${table} has no column ${c}`);
      return `$${j + 1}::${type}[]`;
    });
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) select * from unnest(${arrays.join(', ')})`;
    texts.set(key, text);
  }
  const params = columns.map((c) => part.map((row) => (row[c] ?? null) as Value));
  await db.executeQuery(CompiledQuery.raw(text, params));
}

/**
 * Inserts `rows` (all with the same keys, in the same order as the first row's) into `table`,
 * in statements of {@link BULK_ROWS_PER_STATEMENT} rows. Runs on `db` as given: pass the
 * transaction the rows belong to.
 */
export async function insertRows<T extends keyof Database>(db: Kysely<Database>, table: T, rows: ReadonlyArray<Insertable<Database[T]>>): Promise<void> {
  if (rows.length === 0) return;
  const dialect = dialectOf(db);
  // The first row's keys with a value: a key left undefined takes the column's default, as with
  // Kysely's builder (every row of one call has the same shape).
  const first = rows[0]!;
  const columns = (Object.keys(first) as Array<keyof Insertable<Database[T]> & string>).filter((c) => first[c] !== undefined);
  const perStatement = BULK_ROWS_PER_STATEMENT[dialect];
  let since = performance.now();
  for (let i = 0; i < rows.length; i += perStatement) {
    const part = rows.slice(i, i + perStatement);
    if (dialect === 'postgres') {
      await pgInsert(db, table, columns, part);
      continue;
    }
    const params: Value[] = [];
    for (const row of part) {
      for (const c of columns) {
        const v = row[c] as Value | undefined;
        params.push(v === undefined ? null : v);
      }
    }
    await db.executeQuery(CompiledQuery.raw(insertText(dialect, table, columns, part.length), params));
    if (dialect === 'sqlite' && performance.now() - since > SQLITE_TURN_MS && i + perStatement < rows.length) {
      await nextTurn();
      since = performance.now();
    }
  }
}

/**
 * SQLite runs each statement to its end when called, so a long bulk write holds this thread:
 * past this many milliseconds the event loop gets a turn between two statements. The ingest's
 * parser threads get their next task in that turn (a 1,000-message batch held them idle ~100 ms,
 * 5 s of a 50,000-message ingest), and a server answers its requests. The transaction stays open
 * meanwhile: the connection is not lent to anything else until it ends.
 */
const SQLITE_TURN_MS = 8;

/**
 * Sets text columns of many rows, each found by its key column, in statements of
 * {@link BULK_ROWS_PER_STATEMENT} rows: `UPDATE … FROM (VALUES …)`, one statement where a loop
 * of single-row UPDATEs made a round trip each (on PostgreSQL, most of an ingest's write time:
 * every batch moves the last-seen date of hundreds of contacts). Every row has the same keys.
 */
export async function updateTextColumns<T extends keyof Database>(
  db: Kysely<Database>,
  table: T,
  key: keyof Database[T] & string,
  rows: ReadonlyArray<Record<string, string | null>>,
): Promise<void> {
  if (rows.length === 0) return;
  const dialect = dialectOf(db);
  const columns = Object.keys(rows[0]!).filter((c) => c !== key);
  const all = [key, ...columns];
  const perStatement = BULK_ROWS_PER_STATEMENT[dialect];
  for (let i = 0; i < rows.length; i += perStatement) {
    const part = rows.slice(i, i + perStatement);
    const cacheKey = `update\u0000${dialect}\u0000${table}\u0000${all.join(',')}\u0000${part.length}`;
    let text = texts.get(cacheKey);
    if (text === undefined) {
      let n = 0;
      const tuples = part.map(() => `(${all.map(() => (dialect === 'postgres' ? `$${++n}` : '?')).join(', ')})`).join(', ');
      // SQLite names a VALUES list's columns column1, column2…; PostgreSQL takes an alias list.
      const col = (j: number): string => (dialect === 'postgres' ? `v."${all[j]}"` : `v.column${j + 1}`);
      const alias = dialect === 'postgres' ? `v(${all.map((c) => `"${c}"`).join(', ')})` : 'v';
      text = `update "${table}" set ${columns.map((c, j) => `"${c}" = ${col(j + 1)}`).join(', ')} from (values ${tuples}) as ${alias} where "${table}"."${key}" = ${col(0)}`;
      texts.set(cacheKey, text);
    }
    const params: Value[] = [];
    for (const row of part) for (const c of all) params.push(row[c] ?? null);
    await db.executeQuery(CompiledQuery.raw(text, params));
  }
}
