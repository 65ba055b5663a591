import { describe, expect, it } from 'vitest';
import { formatChange, formatDate, formatDateTime, formatMoney } from './format.js';

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
});
