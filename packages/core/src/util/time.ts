/** A clock: "now for the data". The runner sets it from CHS_NOW; tests pin it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export function fixedClock(iso: string): Clock {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) throw new Error(`invalid date: ${iso}`);
  return () => new Date(t.getTime());
}

/** Milliseconds in a day (UTC days have no leap seconds here). */
export const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a date, in UTC. */
export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * DAY_MS);
}

/** Whole days from day `a` to day `b` (both `YYYY-MM-DD`), negative when b is earlier. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}

export interface LocalTime {
  /** `YYYY-MM-DD` in the zone. */
  day: string;
  hour: number;
  minute: number;
  /** ISO weekday: 1 Monday … 7 Sunday. */
  weekday: number;
}

/** The wall time of `at` in an IANA zone; UTC when the zone is unknown. */
export function localTime(at: Date, timeZone: string): LocalTime {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(at);
  } catch {
    return localTime(at, 'UTC');
  }
  const get = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? '0';
  const day = `${get('year')}-${get('month')}-${get('day')}`;
  const dow = new Date(`${day}T00:00:00Z`).getUTCDay();
  return { day, hour: Number(get('hour')) % 24, minute: Number(get('minute')), weekday: dow === 0 ? 7 : dow };
}

/** Milliseconds from `now` to the next midnight in an IANA zone (UTC when the zone is unknown). */
export function msUntilLocalMidnight(now: Date, timeZone: string): number {
  const local = now.getTime() + zoneOffsetMs(now.getTime(), timeZone);
  return DAY_MS - (((local % DAY_MS) + DAY_MS) % DAY_MS);
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** Offset of an IANA zone from UTC at an instant, in ms (UTC when the zone is unknown). */
function zoneOffsetMs(atMs: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  // Zones change offset on the hour or half hour at most: one lookup per zone and 15 minutes.
  const slot = Math.floor(atMs / 900_000);
  const key = `${timeZone}|${slot}`;
  const known = zoneOffsets.get(key);
  if (known !== undefined) return known;
  if (zoneOffsets.size > 100_000) zoneOffsets.clear();
  const offset = computeZoneOffset(slot * 900_000, timeZone);
  zoneOffsets.set(key, offset);
  return offset;
}

const zoneOffsets = new Map<string, number>();

function computeZoneOffset(atMs: number, timeZone: string): number {
  let f = zoneFormats.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      return 0;
    }
    zoneFormats.set(timeZone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(atMs))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const asUtc = Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, (p.hour ?? 0) % 24, p.minute ?? 0, p.second ?? 0);
  return asUtc - Math.floor(atMs / 1000) * 1000;
}

/**
 * When an answer to a message received at `atMs` is due under a service level of `days`
 * business days (Monday to Friday) in `timeZone`: the end of the `days`-th business day after the
 * local day it arrived (received Monday → due end of Wednesday for 2; Friday or Saturday → end of
 * Tuesday). Epoch ms.
 */
export function businessDueAt(atMs: number, days: number, timeZone: string): number {
  const offset = zoneOffsetMs(atMs, timeZone);
  const local = new Date(atMs + offset);
  let day = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
  for (let left = Math.max(0, Math.floor(days)); left > 0;) {
    day += DAY_MS;
    const dow = new Date(day).getUTCDay();
    if (dow !== 0 && dow !== 6) left -= 1;
  }
  // The local midnight that ends that day, as an instant (the zone's offset then, which may
  // differ from the offset at arrival across a DST change).
  const endLocal = day + DAY_MS;
  return endLocal - zoneOffsetMs(endLocal - offset, timeZone);
}
