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

function zoneParts(d: Date, tz: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number> {
  const parts = cached(
    `p|${tz}`,
    () =>
      new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      }),
  ).formatToParts(d);
  const get = (t: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour') % 24, minute: get('minute'), second: get('second') };
}

/** The day (YYYY-MM-DD) an instant falls on in the zone. */
export function dayInZone(d: Date, timeZone: string): string {
  const p = zoneParts(d, safeZone(timeZone));
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The instant a day (YYYY-MM-DD) starts in the zone (its midnight there). */
export function startOfDayInZone(day: string, timeZone: string): Date {
  const tz = safeZone(timeZone);
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  // The zone's offset at the guess, then once more at the corrected instant (a DST change that day).
  const offset = (at: number) => {
    const p = zoneParts(new Date(at), tz);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - at;
  };
  const first = guess - offset(guess);
  return new Date(guess - offset(first));
}

/** A count with the locale's digit grouping: 1,240. */
export function formatCount(n: number, l: Locale): string {
  return cached(`n|${l.lang}`, () => new Intl.NumberFormat(l.lang, { maximumFractionDigits: 0 })).format(n);
}

/** A speed in items per second: "52 per second", "1.5 per second", under one a second "24 per minute". */
export function formatRate(perSecond: number, l: Locale): string {
  if (perSecond >= 1 || perSecond === 0)
    return `${cached(`r|${l.lang}`, () => new Intl.NumberFormat(l.lang, { maximumFractionDigits: 1 })).format(perSecond >= 10 ? Math.round(perSecond) : perSecond)} per second`;
  const perMinute = perSecond * 60;
  return perMinute < 1 ? 'under 1 per minute' : `${formatCount(perMinute, l)} per minute`;
}

/**
 * An instant as a time of day in the workspace's zone ("14:32", or "2:32 PM" in English), with
 * its date when it falls on another day there than `now`.
 */
export function formatTime(iso: string | null | undefined, l: Locale, now: Date = new Date()): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const tz = safeZone(l.timeZone);
  if (dayInZone(d, tz) !== dayInZone(now, tz)) return formatDateTime(iso, l);
  return cached(`t|${l.lang}|${tz}`, () => new Intl.DateTimeFormat(l.lang, { timeZone: tz, timeStyle: 'short' })).format(d);
}

/**
 * How far ahead an instant is, roughly: "in about 40 s", "in about 3 min", "in about 2 h",
 * "in about 3 days"; "any moment now" when it is due or past.
 */
export function formatRelative(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return '—';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const s = Math.round((at - now.getTime()) / 1000);
  if (s < 1) return 'any moment now';
  if (s < 60) return `in about ${s} s`;
  const min = Math.round(s / 60);
  if (min < 90) return `in about ${min} min`;
  const h = Math.round(min / 60);
  if (h < 48) return `in about ${h} h`;
  return `in about ${Math.round(h / 24)} days`;
}
