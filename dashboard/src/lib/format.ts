/** Dates in the workspace's time zone, money in its currency, scores with one decimal. */
export interface Locale {
  timeZone: string;
  currency: string;
  /** BCP 47 tag; default the browser's. */
  lang?: string | undefined;
}

const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let f = cache.get(key) as T | undefined;
  if (!f) cache.set(key, (f = make()));
  return f;
}

function safeZone(tz: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC';
  }
}

/** A timestamp as a date and time in the workspace's zone. */
export function formatDateTime(iso: string | null | undefined, l: Locale): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const tz = safeZone(l.timeZone);
  return cached(`dt|${l.lang}|${tz}`, () => new Intl.DateTimeFormat(l.lang, { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' })).format(d);
}

/** A timestamp as a day in the workspace's zone; a plain YYYY-MM-DD day as that day. */
export function formatDate(value: string | null | undefined, l: Locale): string {
  if (!value) return '—';
  const plainDay = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const d = new Date(plainDay ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(d.getTime())) return value;
  const tz = plainDay ? 'UTC' : safeZone(l.timeZone);
  return cached(`d|${l.lang}|${tz}`, () => new Intl.DateTimeFormat(l.lang, { timeZone: tz, dateStyle: 'medium' })).format(d);
}

export function formatMoney(amount: number | null | undefined, l: Locale): string {
  if (amount === null || amount === undefined) return '—';
  try {
    return cached(
      `m|${l.lang}|${l.currency}`,
      () => new Intl.NumberFormat(l.lang, { style: 'currency', currency: l.currency, maximumFractionDigits: 0 }),
    ).format(amount);
  } catch {
    return `${Math.round(amount).toLocaleString(l.lang)} ${l.currency}`;
  }
}

/** A signed change: +3.2, −1.0, ±0.0. */
export function formatChange(change: number | null | undefined): string {
  if (change === null || change === undefined) return '—';
  const sign = change > 0 ? '+' : change < 0 ? '−' : '±';
  return `${sign}${Math.abs(change).toFixed(1)}`;
}

export function formatPercent(fraction: number, digits = 0): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}
