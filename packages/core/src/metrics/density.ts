import type { Db } from '../store/database.js';
import { DAY_MS } from '../util/time.js';

/**
 * Items per day stored for a source: the count of its interactions over the span of days they
 * cover (at least one). Undefined when nothing of that source is stored yet. Estimates of a
 * window's size use it (docs/jobs.md#estimates).
 */
export async function storedItemsPerDay(db: Db, workspaceId: string, source: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('interactions')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('occurred_at').as('first'), eb.fn.max('occurred_at').as('last')])
    .where('workspace_id', '=', workspaceId)
    .where('source', '=', source)
    .executeTakeFirst();
  const n = Number(row?.n ?? 0);
  if (!row || n === 0 || !row.first || !row.last) return undefined;
  return n / Math.max(1, (Date.parse(row.last) - Date.parse(row.first)) / DAY_MS);
}
