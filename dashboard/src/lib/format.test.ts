import { describe, expect, it } from 'vitest';
import {
  dayInZone,
  formatChange,
  formatCount,
  formatDate,
  formatDateTime,
  formatMoney,
  formatRate,
  formatRelative,
  formatTime,
  startOfDayInZone,
} from './format.js';

describe('dates in the workspace time zone, money in its currency', () => {
  it('dates a timestamp in the workspace zone, and a plain day as that day', () => {
    const late = '2025-06-29T22:30:00.000Z';
    expect(formatDate(late, { timeZone: 'Europe/Paris', currency: 'EUR', lang: 'en-US' })).toBe('Jun 30, 2025');
    expect(formatDate(late, { timeZone: 'America/New_York', currency: 'USD', lang: 'en-US' })).toBe('Jun 29, 2025');
    expect(formatDateTime(late, { timeZone: 'Europe/Paris', currency: 'EUR', lang: 'en-GB' })).toBe('30 Jun 2025, 00:30');
    // A renewal day is a day wherever the workspace is.
    expect(formatDate('2025-07-01', { timeZone: 'Pacific/Honolulu', currency: 'USD', lang: 'en-US' })).toBe('Jul 1, 2025');
    expect(formatDate(null, { timeZone: 'UTC', currency: 'USD' })).toBe('—');
    // An unknown zone falls back to UTC instead of throwing.
    expect(formatDate(late, { timeZone: 'Mars/Olympus', currency: 'USD', lang: 'en-US' })).toBe('Jun 29, 2025');
  });

  it('formats money in the currency, and a signed change', () => {
    expect(formatMoney(12345, { timeZone: 'UTC', currency: 'EUR', lang: 'de-DE' })).toBe('12.345\u00a0€');
    expect(formatMoney(12345.4, { timeZone: 'UTC', currency: 'USD', lang: 'en-US' })).toBe('$12,345');
    expect(formatMoney(null, { timeZone: 'UTC', currency: 'USD' })).toBe('—');
    expect(formatChange(3.21)).toBe('+3.2');
    expect(formatChange(-1)).toBe('−1.0');
    expect(formatChange(0)).toBe('±0.0');
  });

  it("turns a day into its midnight in the workspace's zone, and an instant into its day there", () => {
    expect(startOfDayInZone('2025-06-30', 'Europe/Paris').toISOString()).toBe('2025-06-29T22:00:00.000Z');
    expect(startOfDayInZone('2025-01-15', 'America/New_York').toISOString()).toBe('2025-01-15T05:00:00.000Z');
    // The day clocks go forward in Paris: midnight is still at +01:00.
    expect(startOfDayInZone('2025-03-30', 'Europe/Paris').toISOString()).toBe('2025-03-29T23:00:00.000Z');
    expect(startOfDayInZone('2025-06-30', 'Mars/Olympus').toISOString()).toBe('2025-06-30T00:00:00.000Z');
    expect(dayInZone(new Date('2025-06-29T22:30:00.000Z'), 'Europe/Paris')).toBe('2025-06-30');
    expect(dayInZone(new Date('2025-06-29T22:30:00.000Z'), 'UTC')).toBe('2025-06-29');
  });

  it('counts with the locale, a speed per second (per minute under one a second)', () => {
    const en = { timeZone: 'UTC', currency: 'USD', lang: 'en-US' };
    const de = { timeZone: 'UTC', currency: 'EUR', lang: 'de-DE' };
    expect(formatCount(1240, en)).toBe('1,240');
    expect(formatCount(1240, de)).toBe('1.240');
    expect(formatCount(0, en)).toBe('0');
    expect(formatRate(52.4, en)).toBe('52 per second');
    expect(formatRate(1.25, en)).toBe('1.3 per second');
    expect(formatRate(1.5, de)).toBe('1,5 per second');
    expect(formatRate(0.4, en)).toBe('24 per minute');
    expect(formatRate(0.001, en)).toBe('under 1 per minute');
    expect(formatRate(0, en)).toBe('0 per second');
  });

  it("says a time of day in the workspace's zone (with its date on another day), and how far ahead it is", () => {
    const paris = { timeZone: 'Europe/Paris', currency: 'EUR', lang: 'en-GB' };
    const now = new Date('2025-06-30T12:31:20.000Z');
    expect(formatTime('2025-06-30T12:32:00.000Z', paris, now)).toBe('14:32');
    // 22:30 UTC is already the next day in Paris.
    expect(formatTime('2025-06-30T22:30:00.000Z', paris, now)).toBe('1 Jul 2025, 00:30');
    expect(formatTime(null, paris, now)).toBe('—');
    expect(formatRelative('2025-06-30T12:32:00.000Z', now)).toBe('in about 40 s');
    expect(formatRelative('2025-06-30T12:35:00.000Z', now)).toBe('in about 4 min');
    expect(formatRelative('2025-06-30T15:00:00.000Z', now)).toBe('in about 2 h');
    expect(formatRelative('2025-07-03T12:00:00.000Z', now)).toBe('in about 3 days');
    expect(formatRelative('2025-06-30T12:31:00.000Z', now)).toBe('any moment now');
  });
});
