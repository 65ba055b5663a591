import { describe, expect, it } from 'vitest';
import { newId } from './ids.js';
import { chunks } from './lists.js';
import { round, round1, round2 } from './numbers.js';
import { addDays, DAY_MS, daysBetween, localTime, msUntilLocalMidnight, utcDay } from './time.js';

describe('time', () => {
  it('counts days in UTC', () => {
    expect(DAY_MS).toBe(24 * 60 * 60 * 1000);
    expect(utcDay(addDays(new Date('2024-02-28T23:00:00Z'), 2))).toBe('2024-03-01');
    expect(daysBetween('2024-02-28', '2024-03-01')).toBe(2);
    expect(daysBetween('2024-03-01', '2024-02-28')).toBe(-2);
  });

  it('gives the calendar day in a zone; an unknown zone is UTC', () => {
    const at = new Date('2024-05-20T03:30:00Z');
    expect(localTime(at, 'America/New_York').day).toBe('2024-05-19');
    expect(localTime(at, 'Asia/Tokyo').day).toBe('2024-05-20');
    expect(localTime(at, 'UTC').day).toBe('2024-05-20');
    expect(localTime(at, 'Not/AZone').day).toBe('2024-05-20');
  });

  it('measures the time to the next local midnight, across a DST offset too', () => {
    // 23:30 in Los Angeles (PDT, UTC-7) is 06:30 UTC the next day: 30 minutes to midnight.
    expect(msUntilLocalMidnight(new Date('2024-05-21T06:30:00Z'), 'America/Los_Angeles')).toBe(30 * 60_000);
    // In winter (PST, UTC-8) the same UTC instant is 22:30: 90 minutes.
    expect(msUntilLocalMidnight(new Date('2024-01-16T06:30:00Z'), 'America/Los_Angeles')).toBe(90 * 60_000);
    expect(msUntilLocalMidnight(new Date('2024-05-20T00:00:00Z'), 'UTC')).toBe(DAY_MS);
    expect(msUntilLocalMidnight(new Date('2024-05-20T23:59:59Z'), 'UTC')).toBe(1000);
  });
});

describe('numbers and lists', () => {
  it('rounds to one, two or n decimals', () => {
    expect(round1(87.14285)).toBe(87.1);
    expect(round1(-2.25)).toBe(-2.2);
    expect(round2(0.125)).toBe(0.13);
    expect(round(0.123456, 4)).toBe(0.1235);
  });

  it('splits a list into chunks of at most n', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 3)).toEqual([]);
  });
});

describe('ids', () => {
  it('gives 96 random bits per id, never the same bytes twice, across many refills of its byte pool', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('cl'));
    for (const id of ids) expect(id).toMatch(/^cl_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Each byte value turns up about equally often (a stuck or repeated pool would not).
    const counts = new Map<string, number>();
    for (const id of ids) for (const ch of id.slice(3)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(64);
    for (const n of counts.values()) expect(n).toBeGreaterThan(900);
  });
});
