/**
 * Provider sync against a real local fake Gmail server (a socket, not nock): the cursor after a
 * full read moves to incremental reading even when the last windows are empty, a quick sync then
 * brings exactly the new mail, and an interrupted full read resumes where it stopped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGmailServer, type FakeGmailServer } from '../connectors/google/fake-gmail-server.js';
import { connectIntegration } from '../integrations/repository.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { DAY_MS } from '../util/time.js';

const NOW = Date.parse('2025-06-30T12:00:00Z');

function message(i: number, at: number) {
  const domain = ['globex.com', 'initech.com', 'hooli.com'][i % 3]!;
  return {
    id: `g${String(i).padStart(5, '0')}`,
    internalDate: at,
    raw: [
      `From: Contact <c${i}@${domain}>`,
      'To: Rep <rep@acme.com>',
      `Subject: Note ${i}`,
      `Date: ${new Date(at).toUTCString()}`,
      `Message-ID: <m${i}@${domain}>`,
      '',
      `Thanks for item ${i}, all good.`,
      '',
    ].join('\r\n'),
  };
}

const dialects = await testDialects();
afterAll(dropTestSchemas);

describe.each(dialects)('Google sync through the fake server on $name', (dialect) => {
  let server: FakeGmailServer;
  let engine: Engine;
  /** An engine on a fresh database with acme.com's mailbox connected to `server`. */
  const connectedEngine = async (): Promise<Engine> => {
    const key = randomBytes(32);
    const e = await createEngine({
      database: await dialect.open(),
      clock: () => new Date(NOW),
      secretKey: key,
      providerUrls: { googleApi: server.apiUrl, googleToken: server.tokenUrl, googleQuotaPerMinute: 0 },
    });
    await createWorkspace(e.store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'rep@acme.com' });
    await connectIntegration(e.store.db, key, {
      workspaceId: 'acme.com',
      provider: 'google',
      credentials: { accessToken: 'fake-access-token' },
      accountEmail: 'rep@acme.com',
    });
    return e;
  };
  beforeEach(async () => {
    // 400 messages over the 200 days before NOW, one every 12 hours.
    server = await startFakeGmailServer({ messages: Array.from({ length: 400 }, (_, i) => message(i, NOW - (i + 1) * 43_200_000)) });
    engine = await connectedEngine();
  });
  afterEach(async () => {
    await engine.close();
    await server.close();
  });

  const count = async () =>
    Number(
      (
        await engine.store.db
          .selectFrom('interactions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('a full read leaves an incremental cursor; the next quick sync brings exactly the new message', async () => {
    const first = await engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'quick', since: new Date(NOW - 365 * DAY_MS) });
    expect([first.status, first.itemsProcessed, first.itemsAdded]).toEqual(['completed', 400, 400]);
    const cursor = await engine.store.db
      .selectFrom('source_cursors')
      .select('cursor_json')
      .where('source_key', '=', 'google:rep@acme.com')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(cursor.cursor_json)).toMatchObject({ phase: 'incremental' });

    server.addMessage(message(1000, NOW - 3_600_000));
    const second = await engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'quick' });
    expect([second.itemsProcessed, second.itemsAdded]).toEqual([1, 1]);
    expect(await count()).toBe(401);
  });

  it('an interrupted full read resumes from its cursor instead of starting over', async () => {
    const stop = new AbortController();
    const first = await engine.sync({
      workspaceId: 'acme.com',
      provider: 'google',
      mode: 'full',
      since: new Date(NOW - 365 * DAY_MS),
      batchSize: 25,
      workers: 0,
      signal: stop.signal,
      onProgress: (p) => {
        if (p.processed >= 50) stop.abort();
      },
    });
    expect(first.status).toBe('cancelled');
    expect(first.itemsProcessed).toBeGreaterThanOrEqual(50);
    expect(first.itemsProcessed).toBeLessThan(400);
    const second = await engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'full', since: new Date(NOW - 365 * DAY_MS) });
    expect(second.status).toBe('completed');
    // It resumed: it did not read all 400 again, and together nothing is missing or doubled.
    expect(second.itemsProcessed).toBeLessThan(400 - 25);
    expect(first.itemsAdded + second.itemsAdded).toBe(400);
    expect(await count()).toBe(400);
  });
  it('progress while it reads: the total before anything is stored, the read counter ahead of the stored one, and a wait Gmail asks for, with its end', async () => {
    // Gmail's per-user quota, small: 600 units per 1.5 s (120 messages), and no client-side limiter: 429s with Retry-After.
    await server.close();
    server = await startFakeGmailServer({
      messages: Array.from({ length: 400 }, (_, i) => message(i, NOW - (i + 1) * 43_200_000)),
      quota: { units: 600, windowMs: 1500 },
    });
    await engine.close();
    engine = await connectedEngine();
    const seen: Array<{ read: number; processed: number; total: number | undefined; waiting?: { reason: string; until: Date }; at: number }> = [];
    const s = await engine.sync({
      workspaceId: 'acme.com',
      provider: 'google',
      mode: 'full',
      since: new Date(NOW - 365 * DAY_MS),
      onProgress: (p) => seen.push({ read: p.read, processed: p.processed, total: p.total, ...(p.waiting ? { waiting: p.waiting } : {}), at: Date.now() }),
    });
    expect([s.status, s.itemsProcessed]).toEqual(['completed', 400]);
    expect(seen.find((p) => p.total !== undefined)).toMatchObject({ total: 400, processed: 0 });
    expect(seen.some((p) => p.read > p.processed + 50)).toBe(true);
    const waits = seen.filter((p) => p.waiting);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]!.waiting!.reason).toMatch(/429/);
    expect(waits[0]!.waiting!.until.getTime()).toBeGreaterThan(waits[0]!.at);
    // The read counter never goes back.
    expect(seen.every((p, i) => i === 0 || p.read >= seen[i - 1]!.read)).toBe(true);
  }, 60_000);

  it('a malformed message in the middle is counted with its reason and the rest is kept', async () => {
    // Not a message at all (no header block), placed among the others by date.
    server.addMessage({ id: 'gbad', internalDate: NOW - 100 * 43_200_000 - 1000, raw: '\u0000\u0001 binary junk, not RFC 5322\r\n' });
    const s = await engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'full', since: new Date(NOW - 365 * DAY_MS) });
    expect([s.status, s.itemsProcessed, s.itemsAdded, s.errorsCount]).toEqual(['completed', 401, 400, 1]);
    const errors = await engine.store.db.selectFrom('ingestion_errors').select(['kind', 'reason', 'location']).execute();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ kind: 'parse', location: 'gmail:gbad' });
    expect(errors[0]!.reason.length).toBeGreaterThan(0);
    expect(await count()).toBe(400);
  });

  it("a message in Gmail's Promotions tab is machine mail: counted as filtered, never a client's voice", async () => {
    server.addMessage({ ...message(2000, NOW - 3_600_000), id: 'gpromo', labelIds: ['INBOX', 'CATEGORY_PROMOTIONS'] });
    const s = await engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'full', since: new Date(NOW - 365 * DAY_MS) });
    expect([s.status, s.itemsProcessed, s.itemsAdded, s.itemsFiltered]).toEqual(['completed', 401, 400, 1]);
    expect(await count()).toBe(400);
  });
});
