/**
 * The ingestion engine over the committed small mailbox, whose truth was worked out by hand
 * (fixtures/mailboxes/small.truth.json, rules in fixtures/README.md): 34 messages, 4 clients,
 * 23 conversational messages giving 24 client interactions (one message To Initech, Cc Globex).
 */
import { readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturePath, SMALL_FIXTURE } from '@chs/fixtures';
import { defaultTestDialect, dropTestSchemas, testDialects, type TestDialect } from '../store/testing.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { emlDirSource, maildirSource, mboxSource } from '../source/index.js';
import type { RawMessage, Source } from '../interfaces.js';
import type { IngestProgress } from './ingest.js';

interface Truth {
  messages: number;
  interactions: number;
  clientInteractions: number;
  clients: Record<string, { interactions: number; inbound: number; outbound: number; contacts: Record<string, string> }>;
  perMessage: Array<{ messageId: string; outcome: string; clients?: string[]; sentiment?: string; note?: string }>;
}
const truth = JSON.parse(readFileSync(fixturePath(SMALL_FIXTURE.truth), 'utf8')) as Truth;

const formats: Record<string, () => Source<RawMessage>> = {
  mbox: () => mboxSource(fixturePath(SMALL_FIXTURE.mbox)),
  eml: () => emlDirSource(fixturePath(SMALL_FIXTURE.emlDir)),
  maildir: () => maildirSource(fixturePath(SMALL_FIXTURE.maildir)),
};

async function freshEngine(dialect: TestDialect): Promise<Engine> {
  const engine = await createEngine({ database: await dialect.open(), clock: () => new Date('2025-04-01T00:00:00Z') });
  await createWorkspace(engine.store.db, { domain: 'ourco.com', name: 'Our Co', ownerEmail: 'lead@ourco.com' });
  return engine;
}

async function perClient(engine: Engine) {
  const rows = await engine.store.db
    .selectFrom('interactions as i')
    .innerJoin('clients as c', 'c.id', 'i.client_id')
    .select(['c.primary_domain as domain', 'i.direction'])
    .execute();
  const out: Record<string, { interactions: number; inbound: number; outbound: number }> = {};
  for (const r of rows) {
    const c = (out[r.domain] ??= { interactions: 0, inbound: 0, outbound: 0 });
    c.interactions += 1;
    c[r.direction as 'inbound' | 'outbound'] += 1;
  }
  return out;
}

const dialects = await testDialects();
afterAll(dropTestSchemas);

const cases = [
  ...Object.keys(formats).map((format) => ({ format, dialect: defaultTestDialect() })),
  ...dialects.filter((d) => d.name !== defaultTestDialect().name).map((dialect) => ({ format: 'mbox', dialect })),
];

describe.each(cases)('ingest small $format on $dialect.name', ({ format, dialect }) => {
  it('finds exactly the hand-worked clients, contacts and interactions', async () => {
    const engine = await freshEngine(dialect);
    try {
      const s = await engine.ingest({ workspaceId: 'ourco.com', source: formats[format]!(), workers: 0 });
      // 34 = 23 added + 6 filtered (2 bulk/list, 2 auto-replies, 1 bounce, 1 no-reply)
      //    + 4 skipped (2 internal, 1 gmail-only, 1 duplicate Message-ID) + 1 error (no header block)
      expect(s.itemsProcessed).toBe(truth.messages);
      expect([s.itemsAdded, s.itemsFiltered, s.itemsSkipped, s.errorsCount, s.itemsUpdated]).toEqual([23, 6, 4, 1, 0]);
      expect(s.skipped).toEqual({ duplicate: 1, internal: 2, no_client: 1, suggested: 0 });
      expect(s.filtered.auto_reply).toBe(2);
      expect(s.filtered.bounce).toBe(1);
      expect(s.filtered.no_reply).toBe(1);
      expect((s.filtered.bulk ?? 0) + (s.filtered.list ?? 0)).toBe(2);
      expect(s.interactionsCreated).toBe(truth.clientInteractions);
      expect(s.clientsCreated).toBe(4);

      const expected = Object.fromEntries(
        Object.entries(truth.clients).map(([d, c]) => [d, { interactions: c.interactions, inbound: c.inbound, outbound: c.outbound }]),
      );
      expect(await perClient(engine)).toEqual(expected);

      const contacts = await engine.store.db
        .selectFrom('contact_emails as e')
        .innerJoin('contacts as c', 'c.id', 'e.contact_id')
        .innerJoin('clients as cl', 'cl.id', 'c.client_id')
        .select(['e.email', 'c.name', 'cl.primary_domain as domain'])
        .execute();
      const got = Object.fromEntries(contacts.map((c) => [c.email, `${c.domain}|${c.name}`]));
      const want = Object.fromEntries(Object.entries(truth.clients).flatMap(([d, c]) => Object.entries(c.contacts).map(([e, n]) => [e, `${d}|${n}`])));
      expect(got).toEqual(want);

      // The parse failure is recorded with its reason and where it was.
      const errors = await engine.store.db.selectFrom('ingestion_errors').select(['kind', 'reason', 'location']).execute();
      expect(errors).toHaveLength(1);
      expect(errors[0]?.kind).toBe('parse');
      expect(errors[0]?.reason.length).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
  });

  it('scores a reply on its own new text, not on the angry message it quotes', async () => {
    const engine = await freshEngine(dialect);
    try {
      await engine.ingest({ workspaceId: 'ourco.com', source: formats[format]!(), workers: 0 });
      const quoting = truth.perMessage.filter((m) => m.note?.includes('quoting'));
      expect(quoting.length).toBeGreaterThanOrEqual(2);
      for (const m of quoting) {
        const rows = await engine.store.db.selectFrom('interactions').select(['sentiment_label', 'summary']).where('dedupe_key', '=', m.messageId).execute();
        expect(rows.length, m.messageId).toBeGreaterThan(0);
        for (const r of rows) {
          expect(r.sentiment_label, `${m.messageId}: ${r.summary}`).toBe('positive');
          expect(r.summary).not.toMatch(/^>/m);
        }
      }
    } finally {
      await engine.close();
    }
  });

  it('stores the same Message-ID once and a two-client message for each client; a second run adds nothing', async () => {
    const engine = await freshEngine(dialect);
    try {
      await engine.ingest({ workspaceId: 'ourco.com', source: formats[format]!(), workers: 0 });
      const again = await engine.ingest({ workspaceId: 'ourco.com', source: formats[format]!(), workers: 0 });
      expect([again.itemsProcessed, again.itemsAdded, again.itemsUpdated, again.clientsCreated, again.contactsCreated]).toEqual([34, 0, 0, 0, 0]);
      expect(again.skipped.duplicate).toBe(24); // the 23 conversational messages and the in-mailbox duplicate
      const n = await engine.store.db
        .selectFrom('interactions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(n.n)).toBe(truth.clientInteractions);
      const multi = truth.perMessage.filter((m) => (m.clients?.length ?? 0) > 1);
      expect(multi).toHaveLength(1);
      const rows = await engine.store.db
        .selectFrom('interactions as i')
        .innerJoin('clients as c', 'c.id', 'i.client_id')
        .select('c.primary_domain as d')
        .where('i.dedupe_key', '=', multi[0]!.messageId)
        .execute();
      expect(rows.map((r) => r.d).sort()).toEqual([...multi[0]!.clients!].sort());
    } finally {
      await engine.close();
    }
  });
});

describe('ingest resumes after an interruption without loss or duplicates', () => {
  it('a cancelled run keeps its cursor; the next run continues from it and the totals are exact', async () => {
    const engine = await freshEngine(defaultTestDialect());
    try {
      const stop = new AbortController();
      let seen = 0;
      const source = formats.mbox!();
      const interrupted: Source<RawMessage> = {
        kind: source.kind,
        key: source.key,
        async *items(from) {
          for await (const m of source.items(from)) {
            seen += 1;
            if (seen === 15) stop.abort();
            yield m;
          }
        },
      };
      const first = await engine.ingest({ workspaceId: 'ourco.com', source: interrupted, workers: 0, batchSize: 5, signal: stop.signal });
      expect(first.status).toBe('cancelled');
      expect(first.itemsProcessed).toBe(15);
      const second = await engine.ingest({ workspaceId: 'ourco.com', source: formats.mbox!(), workers: 0 });
      expect(second.resumedFrom).not.toBeNull();
      expect(first.itemsProcessed + second.itemsProcessed).toBe(34);
      expect(first.itemsAdded + second.itemsAdded).toBe(23);
      const n = await engine.store.db
        .selectFrom('interactions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(n.n)).toBe(24);
      // Completed: the cursor is gone, so the next run reads the whole mailbox again.
      const third = await engine.ingest({ workspaceId: 'ourco.com', source: formats.mbox!(), workers: 0 });
      expect([third.resumedFrom, third.itemsProcessed, third.itemsAdded]).toEqual([null, 34, 0]);
    } finally {
      await engine.close();
    }
  });

  it('progress moves as messages are read, before their batch is stored, and an mbox says how many of its bytes are read', async () => {
    const engine = await freshEngine(defaultTestDialect());
    try {
      const source = formats.mbox!();
      const size = statSync(fixturePath(SMALL_FIXTURE.mbox)).size;
      // A slow disk: 60 ms a message, one batch for the whole mailbox.
      const slow: Source<RawMessage> = {
        ...source,
        async *items(from, o) {
          for await (const m of source.items(from, o)) {
            await new Promise((r) => setTimeout(r, 60));
            yield m;
          }
        },
      };
      const seen: IngestProgress[] = [];
      const s = await engine.ingest({ workspaceId: 'ourco.com', source: slow, workers: 0, batchSize: 100, onProgress: (p) => seen.push(p) });
      expect(s.itemsProcessed).toBe(34);
      const before = seen.filter((p) => p.processed === 0 && p.read > 0);
      // Every ~250 ms over ~2 s of reading, before anything is stored.
      expect(before.length).toBeGreaterThanOrEqual(2);
      expect(before.every((p) => p.bytesTotal === size && p.bytesRead! > 0 && p.bytesRead! <= size)).toBe(true);
      expect(before.some((p) => p.bytesRead! < size)).toBe(true);
      expect(seen.at(-1)).toMatchObject({ read: 34, processed: 34, total: 34, bytesRead: size, bytesTotal: size });
      expect(seen.every((p, i) => i === 0 || (p.read >= seen[i - 1]!.read && (p.bytesRead ?? 0) >= (seen[i - 1]!.bytesRead ?? 0)))).toBe(true);
    } finally {
      await engine.close();
    }
  });

  it('a run nobody follows does not read its mailbox a second time to count it; one followed does', async () => {
    const engine = await freshEngine(defaultTestDialect());
    try {
      let counted = 0;
      const source = formats.mbox!();
      const counting = (): Source<RawMessage> => ({
        ...source,
        total: () => {
          counted += 1;
          return source.total!();
        },
      });
      const quiet = await engine.ingest({ workspaceId: 'ourco.com', source: counting(), workers: 0 });
      expect([quiet.itemsProcessed, counted]).toEqual([34, 0]);
      const seen: IngestProgress[] = [];
      await engine.ingest({ workspaceId: 'ourco.com', source: counting(), workers: 0, onProgress: (p) => seen.push(p) });
      expect(counted).toBe(1);
      expect(seen.at(-1)).toMatchObject({ processed: 34, total: 34 });
    } finally {
      await engine.close();
    }
  });

  it('worker threads give the same result as in-process processing', async () => {
    const engine = await freshEngine(defaultTestDialect());
    try {
      const s = await engine.ingest({ workspaceId: 'ourco.com', source: formats.mbox!(), workers: 2 });
      expect([s.itemsProcessed, s.itemsAdded, s.itemsFiltered, s.itemsSkipped, s.errorsCount]).toEqual([34, 23, 6, 4, 1]);
      expect(await perClient(engine)).toEqual(
        Object.fromEntries(Object.entries(truth.clients).map(([d, c]) => [d, { interactions: c.interactions, inbound: c.inbound, outbound: c.outbound }])),
      );
    } finally {
      await engine.close();
    }
  });
});
