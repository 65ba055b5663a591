/**
 * In-process events (engine.events), as an embedding service relies on them: a listener hears what
 * was committed, typed, and never what rolled back; it hears what another process sharing the
 * database recorded; on PostgreSQL an event whose transaction took an earlier place but committed
 * later is heard, not skipped; one listener's failure does not silence the others. Both dialects.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../workspace/workspaces.js';
import { openStore } from '../store/database.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { until } from '../test-support/until.js';
import { createEngine } from '../engine/engine.js';
import { mboxSource } from '../source/mbox.js';
import { fixedClock } from '../util/time.js';
import { fileURLToPath } from 'node:url';
import type { AnyEngineEvent, EngineEvent } from './catalogue.js';
import { OutboxEmitter } from './emitter.js';
import { recordEvent } from './outbox.js';

afterAll(() => dropTestSchemas());

const WS = 'acme.com';
const job = (id: string) => ({
  job: {
    id,
    kind: 'sync',
    source: 'google',
    itemsProcessed: 1,
    itemsAdded: 1,
    itemsUpdated: 0,
    itemsSkipped: 0,
    errorsCount: 0,
    startedAt: null,
    completedAt: null,
  },
});

describe.each(await testDialects())('engine.events ($name)', (dialect) => {
  it('a listener hears committed events with their types, never a rolled-back one, and a throwing listener does not silence the others', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      const emitter = new OutboxEmitter(store.db, { pollMs: 20 });
      await emitter.begin();
      const heard: Array<EngineEvent<'job.completed'>> = [];
      const all: AnyEngineEvent[] = [];
      emitter.on('job.completed', (e) => {
        heard.push(e);
      });
      emitter.on('job.completed', () => {
        throw new Error('a listener with a bug');
      });
      emitter.on('*', (e) => {
        all.push(e);
      });
      await store.db.transaction().execute((trx) => recordEvent(trx, { workspaceId: WS, type: 'job.completed', occurredAt: new Date(), data: job('j1') }));
      await expect(
        store.db.transaction().execute(async (trx) => {
          await recordEvent(trx, { workspaceId: WS, type: 'job.completed', occurredAt: new Date(), data: job('rolled-back') });
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      await store.db
        .transaction()
        .execute((trx) => recordEvent(trx, { workspaceId: WS, type: 'job.failed', occurredAt: new Date(), data: { ...job('j2'), error: 'x' } }));
      await until(async () => all.length >= 2, 5000);
      await emitter.flush();
      expect(heard.map((e) => e.data.job.id)).toEqual(['j1']);
      expect(all.map((e) => e.type)).toEqual(['job.completed', 'job.failed']);
      emitter.close();
    } finally {
      await store.close();
    }
  });

  it('hears what another process sharing the database recorded, and only what came after it started', async () => {
    const { url, schema } = await dialect.url();
    const opts = { url, ...(schema ? { schema } : {}) };
    const mine = await openStore(opts);
    const theirs = await openStore(opts);
    try {
      await createWorkspace(mine.db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      await recordEvent(theirs.db, { workspaceId: WS, type: 'job.completed', occurredAt: new Date(), data: job('before') });
      const emitter = new OutboxEmitter(mine.db, { pollMs: 20 });
      await emitter.begin();
      const heard: string[] = [];
      emitter.on('job.completed', (e) => {
        heard.push(e.data.job.id);
      });
      await theirs.db.transaction().execute((trx) => recordEvent(trx, { workspaceId: WS, type: 'job.completed', occurredAt: new Date(), data: job('after') }));
      await until(async () => heard.length >= 1, 5000);
      expect(heard).toEqual(['after']);
      emitter.close();
    } finally {
      await theirs.close();
      await mine.close();
    }
  });

  it('an embedding service hears a new client at risk as soon as engine.ingest returns', async () => {
    const { url, schema } = await dialect.url();
    const engine = await createEngine({ database: url, ...(schema ? { schema } : {}), clock: fixedClock('2025-03-20T00:00:00Z') });
    try {
      await createWorkspace(engine.store.db, { domain: 'ourco.com', name: 'Our Co', ownerEmail: 'lead@ourco.com' });
      const atRisk: string[] = [];
      engine.events.on('client.risk_entered', (e) => {
        atRisk.push(e.data.client.domain);
      });
      await engine.ingest({
        workspaceId: 'ourco.com',
        source: mboxSource(fileURLToPath(new URL('../../../../fixtures/mailboxes/small.mbox', import.meta.url))),
      });
      // small.mbox's truth: Globex threatens to leave, Initech waits for an answer.
      expect(atRisk.sort()).toEqual(['globex.co.uk', 'initech.com']);
    } finally {
      await engine.close();
    }
  });
});

// PostgreSQL only: SQLite has one writer at a time, so there its order of recording is the order of commits.
describe.each((await testDialects()).filter((d) => d.name === 'postgres'))('engine.events with concurrent transactions ($name)', (dialect) => {
  it('an event whose transaction commits after a later one is heard, not skipped', async () => {
    const store = await dialect.open();
    try {
      await createWorkspace(store.db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      const emitter = new OutboxEmitter(store.db, { pollMs: 10_000 });
      await emitter.begin();
      const heard: string[] = [];
      emitter.on('job.completed', (e) => {
        heard.push(e.data.job.id);
      });
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let recorded!: () => void;
      const slowRecorded = new Promise<void>((r) => (recorded = r));
      // The slow transaction takes its place in the outbox first and commits last.
      const slow = store.db.transaction().execute(async (trx) => {
        await recordEvent(trx, { workspaceId: WS, type: 'job.completed', occurredAt: new Date(), data: job('slow') });
        recorded();
        await held;
      });
      await slowRecorded;
      await store.db.transaction().execute((trx) => recordEvent(trx, { workspaceId: WS, type: 'job.completed', occurredAt: new Date(), data: job('fast') }));
      await emitter.flush();
      release();
      await slow;
      await emitter.flush();
      expect(heard.sort()).toEqual(['fast', 'slow']);
      emitter.close();
    } finally {
      await store.close();
    }
  });
});
