/**
 * A CS team's mailboxes: two CSMs of one workspace connect their own Google accounts. Gmail is one
 * host where each token sees its own mailbox (here: a front door on a real socket routing each
 * bearer token to its own fake mailbox). Every connected mailbox syncs with its own cursor, status
 * and errors; a message both received (same Message-ID, different Gmail ids) is stored once; a
 * mailbox whose grant dies is marked needs_reauth while the other keeps syncing; one mailbox can
 * be disconnected alone.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGmailServer, type FakeGmailServer } from '../connectors/google/fake-gmail-server.js';
import { connectIntegration, disconnectIntegration, integrationStatus } from '../integrations/repository.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';

const NOW = Date.parse('2025-06-30T12:00:00Z');

/** Message i as mailbox `box` holds it: its own Gmail id, the same RFC 5322 bytes (and Message-ID) in every mailbox. */
function message(box: 'a' | 'b', i: number) {
  const domain = ['globex.com', 'initech.com', 'hooli.com'][i % 3]!;
  const at = NOW - (i + 1) * 3_600_000;
  return {
    id: `${box}${String(i).padStart(5, '0')}`,
    internalDate: at,
    raw: [
      `From: Contact <c${i}@${domain}>`,
      'To: Dana <dana@acme.com>, Eli <eli@acme.com>',
      `Subject: Note ${i}`,
      `Date: ${new Date(at).toUTCString()}`,
      `Message-ID: <m${i}@${domain}>`,
      '',
      `Thanks for the invoice for order ${i}, all good with the delivery.`,
      '',
    ].join('\r\n'),
  };
}

/** Gmail's one host: a request goes to the mailbox its bearer token belongs to. */
async function frontDoor(byToken: Map<string, FakeGmailServer>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const target = byToken.get(token) ?? byToken.values().next().value!;
    fetch(`${target.url}${req.url ?? '/'}`, { headers: { authorization: req.headers.authorization ?? '' } }).then(
      async (r) => {
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await r.arrayBuffer()));
      },
      () => res.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const dialects = await testDialects();
afterAll(dropTestSchemas);

describe.each(dialects)('several mailboxes of one workspace on $name', (dialect) => {
  let dana: FakeGmailServer;
  let eli: FakeGmailServer;
  let door: Awaited<ReturnType<typeof frontDoor>>;
  let engine: Engine;

  beforeEach(async () => {
    // Dana has messages 0-9, Eli 5-14: 5-9 reached both.
    dana = await startFakeGmailServer({
      emailAddress: 'dana@acme.com',
      accessTokens: ['tok-dana'],
      messages: Array.from({ length: 10 }, (_, i) => message('a', i)),
    });
    eli = await startFakeGmailServer({
      emailAddress: 'eli@acme.com',
      accessTokens: ['tok-eli'],
      messages: Array.from({ length: 10 }, (_, i) => message('b', i + 5)),
    });
    door = await frontDoor(
      new Map([
        ['tok-dana', dana],
        ['tok-eli', eli],
      ]),
    );
    const key = randomBytes(32);
    engine = await createEngine({
      database: await dialect.open(),
      clock: () => new Date(NOW),
      secretKey: key,
      providerUrls: { googleApi: door.url, googleToken: dana.tokenUrl, googleQuotaPerMinute: 0 },
    });
    await createWorkspace(engine.store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'dana@acme.com' });
    await connectIntegration(engine.store.db, key, {
      workspaceId: 'acme.com',
      provider: 'google',
      credentials: { accessToken: 'tok-dana' },
      accountEmail: 'Dana@acme.com',
    });
    await connectIntegration(engine.store.db, key, {
      workspaceId: 'acme.com',
      provider: 'google',
      credentials: { accessToken: 'tok-eli' },
      accountEmail: 'eli@acme.com',
    });
  });
  afterEach(async () => {
    await engine.close();
    await door.close();
    await dana.close();
    await eli.close();
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
  const since = new Date(NOW - 30 * 86_400_000);

  it('each mailbox syncs with its own cursor; a message both received is stored once; the status lists both', async () => {
    const s = await engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'full', since });
    expect(s.status).toBe('completed');
    expect(s.accounts).toEqual([
      { account: 'dana@acme.com', status: 'completed', itemsProcessed: 10, itemsAdded: 10, error: null },
      { account: 'eli@acme.com', status: 'completed', itemsProcessed: 10, itemsAdded: 5, error: null },
    ]);
    expect([s.itemsProcessed, s.itemsAdded, s.itemsSkipped]).toEqual([20, 15, 5]);
    expect(await count()).toBe(15);
    expect(dana.stats.byPath['/gmail/v1/users/me/messages/{id}']).toBe(10);
    expect(eli.stats.byPath['/gmail/v1/users/me/messages/{id}']).toBe(10);

    const cursors = await engine.store.db.selectFrom('source_cursors').select(['source_key', 'cursor_json']).orderBy('source_key').execute();
    expect(cursors.map((c) => c.source_key)).toEqual(['google:dana@acme.com', 'google:eli@acme.com']);
    for (const c of cursors) expect(JSON.parse(c.cursor_json)).toMatchObject({ phase: 'incremental' });

    const status = await integrationStatus(engine.store.db, 'acme.com', 'google');
    expect(status).toMatchObject({ connected: true, state: 'connected', email: 'Dana@acme.com' }); // the address as given; the account key is lower-cased
    expect(status.accounts.map((a) => [a.account, a.state, a.lastError])).toEqual([
      ['dana@acme.com', 'connected', null],
      ['eli@acme.com', 'connected', null],
    ]);
    expect(status.accounts.every((a) => a.lastSyncAt !== null)).toBe(true);
    expect(status.lastSyncAt).toBe(status.accounts.map((a) => a.lastSyncAt!).sort()[0]);

    // A new message reaches Eli only: the next quick sync reads Eli's history, nothing of Dana's again.
    eli.addMessage(message('b', 100));
    const next = await engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'quick' });
    expect(next.accounts?.map((a) => [a.account, a.itemsProcessed])).toEqual([
      ['dana@acme.com', 0],
      ['eli@acme.com', 1],
    ]);
    expect(await count()).toBe(16);
  });

  it("a caller's checkpoint and progress count the whole sync, not one mailbox at a time", async () => {
    const checkpoints: number[] = [];
    const progress: number[] = [];
    const s = await engine.sync({
      workspaceId: 'acme.com',
      provider: 'google',
      mode: 'full',
      since,
      batchSize: 4,
      workers: 0,
      checkpoint: async (_trx, counts) => void checkpoints.push(counts.processed),
      onProgress: (p) => void progress.push(p.processed),
    });
    expect(s.itemsProcessed).toBe(20);
    // Eli's batches come after Dana's 10: the counts go on from there instead of starting again
    // (one account at a time, the last checkpoint would say 10).
    expect(checkpoints.at(-1)).toBe(20);
    expect(checkpoints).toEqual([...checkpoints].sort((a, b) => a - b));
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(20);
  });

  it('a mailbox whose grant dies is marked needs_reauth, with its error; the other keeps syncing; one mailbox is disconnected alone', async () => {
    await engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'full', since });
    eli.expireAccessTokens(); // and Eli's row has no refresh token: nothing can cure it
    dana.addMessage(message('a', 200));
    const s = await engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'quick' });
    expect(s.status).toBe('completed');
    expect(s.accounts?.map((a) => [a.account, a.status, a.itemsAdded])).toEqual([
      ['dana@acme.com', 'completed', 1],
      ['eli@acme.com', 'needs_reauth', 0],
    ]);
    expect(s.accounts?.[1]?.error).toMatch(/reconnect the account/);
    const status = await integrationStatus(engine.store.db, 'acme.com', 'google');
    expect(status.connected).toBe(true);
    expect(status.accounts.map((a) => [a.account, a.state])).toEqual([
      ['dana@acme.com', 'connected'],
      ['eli@acme.com', 'needs_reauth'],
    ]);
    expect(status.accounts[1]?.lastError).toMatch(/401|reconnect/);

    // Only Eli's is left out from now on; when Dana's dies too, the sync fails with it.
    dana.expireAccessTokens();
    await expect(engine.sync({ workspaceId: 'acme.com', provider: 'google', mode: 'quick' })).rejects.toMatchObject({ code: 'INTEGRATION_NEEDS_REAUTH' });

    expect(await disconnectIntegration(engine.store.db, 'acme.com', 'google', 'ELI@acme.com')).toBe(true);
    expect((await integrationStatus(engine.store.db, 'acme.com', 'google')).accounts.map((a) => a.account)).toEqual(['dana@acme.com']);
  });
});
