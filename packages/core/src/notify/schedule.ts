/** When digests are due, in the workspace's time zone, and the dedupe keys of every kind. */
import { addDays, localTime, utcDay } from '../util/time.js';
import { DIGEST_HOUR, type DigestKind } from './types.js';

/** The Monday of the ISO week of a local day. */
export function mondayOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const dow = d.getUTCDay() === 0 ? 7 : d.getUTCDay();
  return utcDay(addDays(d, 1 - dow));
}

export interface DueDigest {
  kind: DigestKind;
  /** The local day it belongs to (the Monday for weekly). */
  period: string;
}

/**
 * Digests due at `now`: daily from DIGEST_HOUR local time to the end of that local day, weekly
 * from DIGEST_HOUR on Monday to the end of Monday. A runner that was down the whole window skips
 * that period; the next digest still reports everything since the previous one sent.
 */
export function digestsDue(now: Date, timeZone: string, enabled: { daily: boolean; weekly: boolean }): DueDigest[] {
  const t = localTime(now, timeZone);
  if (t.hour < DIGEST_HOUR) return [];
  const due: DueDigest[] = [];
  if (enabled.daily) due.push({ kind: 'daily', period: t.day });
  if (enabled.weekly && t.weekday === 1) due.push({ kind: 'weekly', period: t.day });
  return due;
}

/** The period a digest of `kind` would have at `now` (for a preview outside its hour). */
export function currentPeriod(now: Date, timeZone: string, kind: DigestKind): string {
  const day = localTime(now, timeZone).day;
  return kind === 'daily' ? day : mondayOf(day);
}

export const dedupeKeys = {
  scoreDrop: (clientId: string, date: string) => `score_drop:${clientId}:${date}`,
  /** At most one alert per client, signal and day. */
  riskSignal: (signal: string, clientId: string, date: string) => `${signal}:${clientId}:${date}`,
  renewal: (clientId: string, renewalDate: string) => `renewal:${clientId}:${renewalDate}`,
  digest: (kind: DigestKind, period: string) => `digest_${kind}:${period}`,
};
