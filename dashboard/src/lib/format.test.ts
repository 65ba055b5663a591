import { describe, expect, it } from 'vitest';
import { dayInZone, formatChange, formatDate, formatDateTime, formatMoney, startOfDayInZone } from './format.js';

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
});
