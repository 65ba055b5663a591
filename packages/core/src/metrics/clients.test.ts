import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { insertClient, insertInteractions, insertWorkspace } from '../health/test-fixtures.js';
import { getClientDetails, readClientDetails } from './clients.js';

afterAll(() => dropTestSchemas());
const dialects = await testDialects();
const NOW = new Date('2024-06-30T12:00:00.000Z');
const at = (iso: string) => new Date(iso);
const before = (d: Date) => new Date(d.getTime() - 1);

describe.each(dialects.map((d) => [d.name, d] as const))('readClientDetails.validUntil on %s', (_name, dialect) => {
  it('is the first instant at which time alone changes the figures', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await insertWorkspace(db, 'w');
      for (const [id, domain] of [
        ['c1', 'one.com'],
        ['c2', 'two.com'],
        ['c3', 'three.com'],
        ['c4', 'four.com'],
      ] as const)
        await insertClient(db, 'w', { id, domain });
      await insertInteractions(db, 'w', [
        // c1: the 60-day window starts 05-01T12:00, the 30-day one 05-31T12:00.
        { id: 'a', clientId: 'c1', at: '2024-05-15T10:00:00.000Z', direction: 'inbound', sentiment: 0.5, thread: 'T0' },
        { id: 'b', clientId: 'c1', at: '2024-06-20T10:00:00.000Z', direction: 'inbound', sentiment: -0.5, thread: 'T1' },
        { id: 'c', clientId: 'c1', at: '2024-06-21T10:00:00.000Z', direction: 'outbound', sentiment: 0, thread: 'T1' },
        // c2: one in the last 30 days and one dated after now (counted from 06-30T13:00 on).
        { id: 'd', clientId: 'c2', at: '2024-06-25T10:00:00.000Z', direction: 'inbound', sentiment: 0.2 },
        { id: 'e', clientId: 'c2', at: '2024-06-30T13:00:00.000Z', direction: 'inbound', sentiment: 0.2 },
        // c4: older than both windows: nothing moves with time any more.
        { id: 'f', clientId: 'c4', at: '2024-01-10T10:00:00.000Z', direction: 'inbound', sentiment: 0.2 },
      ]);

      // c1: 'a' leaves the 60-day window after 05-15T10:00 + 60 days = 07-14T10:00:00.000 (before
      // 'b' leaves the 30-day one after 07-20T10:00). Until then: 3 interactions, 2 this month, a
      // 24 h reply, their mood −0.5 against 0.5 before → declining; after: nothing before → stable.
      const c1 = await readClientDetails(db, 'w', 'c1', NOW);
      expect(c1.validUntil?.toISOString()).toBe('2024-07-14T10:00:00.001Z');
      expect(c1.details.metrics).toEqual({ totalInteractions: 3, avgResponseTime: 24, lastMonthInteractions: 2, sentimentTrend: 'declining' });
      expect(await getClientDetails(db, 'w', 'c1', before(c1.validUntil!))).toEqual(c1.details);
      expect((await getClientDetails(db, 'w', 'c1', c1.validUntil!)).metrics.sentimentTrend).toBe('stable');

      // c2: the future-dated one comes into view at its own time.
      const c2 = await readClientDetails(db, 'w', 'c2', NOW);
      expect(c2.validUntil?.toISOString()).toBe('2024-06-30T13:00:00.000Z');
      expect(c2.details.metrics.lastMonthInteractions).toBe(1);
      expect(await getClientDetails(db, 'w', 'c2', before(c2.validUntil!))).toEqual(c2.details);
      expect((await getClientDetails(db, 'w', 'c2', c2.validUntil!)).metrics.lastMonthInteractions).toBe(2);
      // Once it is in view, the next change is 'd' leaving the month (06-25T10:00 + 30 days).
      expect((await readClientDetails(db, 'w', 'c2', at('2024-07-01T00:00:00.000Z'))).validUntil?.toISOString()).toBe('2024-07-25T10:00:00.001Z');

      // No interactions, or only ones older than 60 days: time changes nothing.
      expect((await readClientDetails(db, 'w', 'c3', NOW)).validUntil).toBeNull();
      expect((await readClientDetails(db, 'w', 'c4', NOW)).validUntil).toBeNull();
    } finally {
      await store.close();
    }
  });
});
