/** A clock: "now for the data". The runner sets it from CHS_NOW; tests pin it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export function fixedClock(iso: string): Clock {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) throw new Error(`invalid date: ${iso}`);
  return () => new Date(t.getTime());
}

/** `YYYY-MM-DD` of a date, in UTC. */
export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * 86_400_000);
}

/** Whole days from day `a` to day `b` (both `YYYY-MM-DD`), negative when b is earlier. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}
