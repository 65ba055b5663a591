import { afterEach, describe, expect, it } from 'vitest';
import { isChsError } from '../../errors.js';
import { fixedClock, DAY_MS } from '../../util/time.js';
import type { RawMessage } from '../../interfaces.js';
import type { GoogleCredentials, SyncBatch } from '../types.js';
import { createGoogleConnector } from './google-connector.js';
import { startFakeGmailServer, type FakeGmailMessage, type FakeGmailServer } from './fake-gmail-server.js';

const NOW = Date.parse('2024-05-20T00:00:00.000Z');

function message(i: number, ageDays: number): FakeGmailMessage {
  const date = new Date(NOW - ageDays * DAY_MS - (i + 1) * 1000);
  return {
    id: `m${String(i).padStart(5, '0')}`,
    internalDate: date.getTime(),
    raw: `From: bob@globex.test\r\nTo: alice@acme.test\r\nSubject: message ${i}\r\nDate: ${date.toUTCString()}\r\nMessage-ID: <m${i}@globex.test>\r\n\r\nBody ${i}\r\n`,
  };
}

async function collect(it: AsyncIterable<SyncBatch<RawMessage>>): Promise<SyncBatch<RawMessage>[]> {
  const out: SyncBatch<RawMessage>[] = [];
  for await (const b of it) out.push(b);
  return out;
}

let server: FakeGmailServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('fake Gmail server (real socket) with the Google connector', () => {
  it('full read with a token refresh, then incremental by history, then a 404 resync', async () => {
    // 120 messages over 100 days: several windows and several pages.
    const msgs = Array.from({ length: 120 }, (_, i) => message(i, (i * 100) / 120));
    server = await startFakeGmailServer({ messages: msgs, accessTokens: [], emailAddress: 'rep@acme.test' });
    const saved: GoogleCredentials[] = [];
    const connector = () =>
      createGoogleConnector({
        credentials: saved.at(-1) ?? {
          accessToken: 'stale',
          refreshToken: 'fake-refresh-token',
          clientId: 'c',
          clientSecret: 's',
          expiresAt: '2000-01-01T00:00:00.000Z',
        },
        apiUrl: server!.apiUrl,
        tokenUrl: server!.tokenUrl,
        onTokens: (c) => void saved.push(c),
        clock: fixedClock('2024-05-20T00:00:00.000Z'),
        pageSize: 25,
        retry: { sleep: async () => undefined },
      });
    const full = await collect(connector().sync({ mode: 'full', since: new Date(NOW - 365 * DAY_MS) }));
    const ids = full.flatMap((b) => b.items.map((m) => m.providerId));
    expect(new Set(ids).size).toBe(120);
    expect(ids).toHaveLength(120);
    // Newest first.
    expect(ids[0]).toBe('m00000');
    expect(full.every((b) => b.unreconciled.length === 0)).toBe(true);
    expect(server.stats.tokenRefreshes).toBe(1);
    expect(saved[0]?.accessToken).toMatch(/^fake-access-1-/);
    const cursor = full.at(-1)!.cursor;
    expect(cursor).toMatchObject({ phase: 'incremental' });

    server.addMessage(message(500, 0));
    server.addMessage(message(501, 0));
    const inc = await collect(connector().sync({ mode: 'quick', cursor }));
    expect(inc.flatMap((b) => b.items.map((m) => m.providerId))).toEqual(['m00500', 'm00501']);
    expect(inc.at(-1)!.items[0]!.raw.toString()).toContain('Subject: message 500');

    server.expireHistory();
    const resync = await collect(connector().sync({ mode: 'quick', cursor, since: new Date(NOW - 10 * DAY_MS) }));
    expect(resync[0]!.resync?.reason).toMatch(/404/);
    expect(resync.flatMap((b) => b.items).length).toBeGreaterThan(10);
  });

  it('enforces a per-user quota with 429 + Retry-After, which the connector waits out', async () => {
    const msgs = Array.from({ length: 30 }, (_, i) => message(i, i / 10));
    server = await startFakeGmailServer({ messages: msgs, quota: { units: 60, windowMs: 300 } });
    const c = createGoogleConnector({
      credentials: { accessToken: 'fake-access-token' },
      apiUrl: server.apiUrl,
      tokenUrl: server.tokenUrl,
      clock: fixedClock('2024-05-20T00:00:00.000Z'),
      concurrency: 4,
      retry: { maxRetries: 20, baseDelayMs: 50 },
    });
    const batches = await collect(c.sync({ mode: 'full', since: new Date(NOW - 7 * DAY_MS) }));
    expect(batches.flatMap((b) => b.items)).toHaveLength(30);
    expect(batches.every((b) => b.unreconciled.length === 0)).toBe(true);
    expect(server.stats.throttled).toBeGreaterThan(0);
  });

  it('a revoked refresh token → INTEGRATION_NEEDS_REAUTH', async () => {
    server = await startFakeGmailServer({ messages: [message(1, 1)], accessTokens: [] });
    server.revokeRefreshToken();
    const c = createGoogleConnector({
      credentials: { accessToken: 'stale', refreshToken: 'fake-refresh-token', expiresAt: '2000-01-01T00:00:00.000Z' },
      apiUrl: server.apiUrl,
      tokenUrl: server.tokenUrl,
    });
    const err = await collect(c.sync({ mode: 'full' })).catch((e: unknown) => e);
    expect(isChsError(err, 'INTEGRATION_NEEDS_REAUTH')).toBe(true);
  });
});
