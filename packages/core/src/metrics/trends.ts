/**
 * Trend series: health (daily / weekly / monthly buckets of snapshots), sentiment per day, and
 * the interaction mix. Windows are whole UTC days ending with today (the engine clock's day).
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { addDays, utcDay } from '../util/time.js';
import { includedClients } from './summary.js';

export const TREND_INTERVALS = ['daily', 'weekly', 'monthly'] as const;
export type TrendInterval = (typeof TREND_INTERVALS)[number];

export interface HealthTrendItem {
  /** The bucket's first day: the day, the ISO week's Monday, or the month's first day. */
  date: string;
  /** Mean score over the bucket's client-day snapshots. */
  avgScore: number;
  /** Clients scored on the bucket's last day with snapshots. */
  clientCount: number;
}

export interface SentimentTrendItem {
  date: string;
  /** Mean interaction sentiment mapped to [0, 1]: (score + 1) / 2; 0.5 is neutral. */
  avgSentiment: number;
  volume: number;
  positive: number;
  neutral: number;
  negative: number;
}

export interface InteractionMixItem {
  /** The interaction type (`email`, `meeting`, `call`, `note`, `support_ticket`, …). */
  source: string;
  count: number;
  /** Percent with one decimal; the items sum to exactly 100 (largest remainder). */
  percentage: number;
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** First day of the window that ends today and spans `windowDays` days. */
export function windowStartDay(now: Date, windowDays: number): string {
  return utcDay(addDays(now, -(windowDays - 1)));
}

function bucketStart(day: string, interval: TrendInterval): string {
  if (interval === 'daily') return day;
  if (interval === 'monthly') return `${day.slice(0, 7)}-01`;
  const d = new Date(`${day}T00:00:00Z`);
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  return utcDay(addDays(d, -sinceMonday));
}

interface DayTotal {
  date: string;
  total: number;
  n: number;
}

/**
 * Per day: sum (in thousandths of a point) and count of the snapshots of the workspace's
 * non-excluded clients, from `from` to `to`: each included client's range of the (client, date)
 * key, summed per day.
 */
async function includedDayTotals(db: Db, workspaceId: string, from: string, to: string): Promise<DayTotal[]> {
  const rows = await db
    .selectFrom('health_snapshots as s')
    .innerJoin('clients as k', 'k.id', 's.client_id')
    // In thousandths of a point, as integers: the sum is exact whatever order the database adds
    // the rows in (a float sum is not, and a mean ending in exactly 5 could round either way).
    .select(['s.date', sql<number>`sum(cast(round(s.score * 1000) as bigint))`.as('total'), sql<number>`count(*)`.as('n')])
    .where('k.workspace_id', '=', workspaceId)
    .where('k.is_excluded', '=', 0)
    .where('k.status', '=', 'active')
    .where('s.date', '>=', from)
    .where('s.date', '<=', to)
    .groupBy('s.date')
    .orderBy('s.date')
    .execute();
  return rows.map((r) => ({ date: r.date, total: Number(r.total), n: Number(r.n) }));
}

export async function healthTrend(
  db: Db,
  workspaceId: string,
  options: { windowDays?: number; interval?: TrendInterval; now: Date },
): Promise<HealthTrendItem[]> {
  const windowDays = options.windowDays ?? 30;
  const interval = options.interval ?? 'daily';
  const today = utcDay(options.now);
  const from = windowStartDay(options.now, windowDays);
  const rows = await includedDayTotals(db, workspaceId, from, today);
  const buckets: { date: string; first: string; lastDay: string; total: number; n: number; last: number }[] = [];
  for (const r of rows) {
    const key = bucketStart(r.date, interval);
    let cur = buckets[buckets.length - 1];
    if (!cur || cur.date !== key) {
      cur = { date: key, first: r.date, lastDay: r.date, total: 0, n: 0, last: 0 };
      buckets.push(cur);
    }
    cur.total += r.total;
    cur.n += r.n;
    cur.lastDay = r.date;
    // Every scored client has a snapshot every day from its first one on, so the count on the
    // bucket's last day is the number of clients scored in the bucket.
    cur.last = r.n;
  }
  // The mean in tenths, rounded half up from its exact value.
  return buckets.map((b) => ({ date: b.date, avgScore: Math.round(b.total / (100 * b.n)) / 10, clientCount: b.last }));
}

export async function sentimentTrendSeries(db: Db, workspaceId: string, options: { windowDays?: number; now: Date }): Promise<SentimentTrendItem[]> {
  const windowDays = options.windowDays ?? 30;
  const from = windowStartDay(options.now, windowDays);
  const end = utcDay(addDays(options.now, 1));
  const day = sql<string>`substr(occurred_at, 1, 10)`;
  const rows = await db
    .selectFrom('interactions')
    .select([
      day.as('day'),
      sql<number>`avg(sentiment_score)`.as('avg'),
      sql<number>`count(*)`.as('volume'),
      sql<number>`sum(case when sentiment_label = 'positive' then 1 else 0 end)`.as('pos'),
      sql<number>`sum(case when sentiment_label = 'neutral' then 1 else 0 end)`.as('neu'),
      sql<number>`sum(case when sentiment_label = 'negative' then 1 else 0 end)`.as('neg'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('occurred_at', '>=', from)
    .where('occurred_at', '<', end)
    .where('client_id', 'in', includedClients(db, workspaceId))
    .groupBy(day)
    .orderBy(day)
    .execute();
  return rows.map((r) => ({
    date: r.day,
    avgSentiment: round4((Number(r.avg) + 1) / 2),
    volume: Number(r.volume),
    positive: Number(r.pos),
    neutral: Number(r.neu),
    negative: Number(r.neg),
  }));
}

export async function interactionMix(db: Db, workspaceId: string, options: { windowDays?: number; now: Date }): Promise<InteractionMixItem[]> {
  const windowDays = options.windowDays ?? 30;
  const rows = await db
    .selectFrom('interactions')
    .select(['type', sql<number>`count(*)`.as('n')])
    .where('workspace_id', '=', workspaceId)
    .where('occurred_at', '>=', addDays(options.now, -windowDays).toISOString())
    .where('occurred_at', '<=', options.now.toISOString())
    .where('client_id', 'in', includedClients(db, workspaceId))
    .groupBy('type')
    .execute();
  const items = rows.map((r) => ({ source: r.type, count: Number(r.n) })).sort((a, b) => b.count - a.count || a.source.localeCompare(b.source));
  const tenths = largestRemainder(
    items.map((i) => i.count),
    1000,
  );
  return items.map((i, k) => ({ ...i, percentage: (tenths[k] ?? 0) / 10 }));
}

/** Splits `total` units in proportion to `counts` so the parts sum to exactly `total`. */
export function largestRemainder(counts: readonly number[], total: number): number[] {
  const sum = counts.reduce((a, b) => a + b, 0);
  if (sum === 0) return counts.map(() => 0);
  const exact = counts.map((c) => (c * total) / sum);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    parts[i] = (parts[i] ?? 0) + 1;
    left -= 1;
  }
  return parts;
}
