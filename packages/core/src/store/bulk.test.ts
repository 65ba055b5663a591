import type { Insertable } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { InteractionsTable } from './schema.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { BULK_ROWS_PER_STATEMENT, insertRows, updateTextColumns } from './bulk.js';
import { newClientRow } from './clients.js';
import { dropTestSchemas, testDialects } from './testing.js';

afterAll(() => dropTestSchemas());

describe.each(await testDialects())('insertRows on $name', (dialect) => {
  it('stores every row across statement boundaries, values intact, an undefined column taking its default', async () => {
    const store = await dialect.open();
    try {
      const { db } = store;
      await createWorkspace(db, { domain: 'ourco.com', name: 'Our Co', ownerEmail: 'lead@ourco.com' });
      const n = BULK_ROWS_PER_STATEMENT[store.dialect] * 2 + 7;
      const now = '2025-06-01T00:00:00.000Z';
      const clients = Array.from({ length: n }, (_, i) =>
        newClientRow({ id: `cl_${i}`, workspaceId: 'ourco.com', domain: `c${i}.com`, now, mrr: i % 3 === 0 ? null : i * 10 }),
      );
      await db.transaction().execute((trx) => insertRows(trx, 'clients', clients));
      const rows = await db
        .selectFrom('clients')
        .select(['id', 'primary_domain', 'mrr', 'name'])
        .where('workspace_id', '=', 'ourco.com')
        .orderBy('primary_domain')
        .execute();
      expect(rows).toHaveLength(n);
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const [i, c] of clients.entries())
        expect(byId.get(c.id), c.id).toEqual({ id: c.id, primary_domain: `c${i}.com`, mrr: i % 3 === 0 ? null : i * 10, name: c.name });
      // signals is left undefined: it takes the column's default (0), not NULL.
      const row = {
        id: 'in_1',
        workspace_id: 'ourco.com',
        client_id: 'cl_1',
        type: 'email',
        source: 'mbox',
        dedupe_key: 'm1',
        provider_id: null,
        thread_id: 'm1',
        subject: 's',
        summary: 'x',
        sentiment_label: 'neutral',
        sentiment_score: 0,
        occurred_at: now,
        from_email: 'a@c1.com',
        to_emails: '',
        direction: 'inbound',
        opened: null,
        content_hash: 'h',
        created_at: now,
        updated_at: now,
      };
      // The schema type requires signals; a caller's row may still carry an undefined value.
      await insertRows(db, 'interactions', [{ ...row, signals: undefined } as unknown as Insertable<InteractionsTable>]);
      expect(await db.selectFrom('interactions').select('signals').where('id', '=', 'in_1').executeTakeFirstOrThrow()).toEqual({ signals: 0 });
    } finally {
      await store.close();
    }
  });

  it('gives back exactly what mail put in: quotes, backslashes, braces, commas, the word NULL, empty text, bytes and floats', async () => {
    // PostgreSQL receives each column as one array literal (bulk.ts pgInsert): every character
    // an array literal treats specially must come back as it was, and so must numbers and bytes.
    const store = await dialect.open();
    try {
      const { db } = store;
      await createWorkspace(db, { domain: 'ourco.com', name: 'Our Co', ownerEmail: 'lead@ourco.com' });
      const now = '2025-06-01T00:00:00.000Z';
      const names = ['O\'Brien "Bob" & Co', 'back\\slash\\', '{braces}, commas', 'NULL', '', ' spaced ', 'Zürich — 東京 😀', 'a\nb\tc', '"', '\\"{,}'];
      const clients = names.map((name, i) => ({ ...newClientRow({ id: `cl_${i}`, workspaceId: 'ourco.com', domain: `c${i}.com`, now }), name }));
      const scores = [0.1 + 0.2, 1e-300, 5e-324, 2.5e-7, 72.35, 1 / 3, 100, 0, Number.MAX_VALUE, 50.5];
      const details = names.map((_, i) => Uint8Array.from({ length: 40 + i }, (_, k) => (k * 37 + i) % 256));
      await db.transaction().execute(async (trx) => {
        await insertRows(trx, 'clients', clients);
        await insertRows(
          trx,
          'health_snapshots',
          clients.map((c, i) => ({ client_id: c.id, date: '2025-05-31', score: scores[i]!, confidence: i % 2 ? null : scores[i]!, detail: details[i]! })),
        );
      });
      const back = await db.selectFrom('clients').select(['id', 'name']).orderBy('id').execute();
      expect(new Map(back.map((r) => [r.id, r.name]))).toEqual(new Map(clients.map((c) => [c.id, c.name])));
      const days = await db.selectFrom('health_snapshots').select(['client_id', 'score', 'confidence', 'detail']).execute();
      expect(days).toHaveLength(names.length);
      for (const d of days) {
        const i = Number(d.client_id.slice(3));
        expect(d.score, d.client_id).toBe(scores[i]);
        expect(d.confidence, d.client_id).toBe(i % 2 ? null : scores[i]);
        expect(Buffer.from(d.detail).equals(Buffer.from(details[i]!)), d.client_id).toBe(true);
      }
    } finally {
      await store.close();
    }
  });

  it('updates text columns of many rows by key across statement boundaries, leaving the others as they were', async () => {
    const store = await dialect.open();
    try {
      const { db } = store;
      await createWorkspace(db, { domain: 'ourco.com', name: 'Our Co', ownerEmail: 'lead@ourco.com' });
      const n = BULK_ROWS_PER_STATEMENT[store.dialect] * 2 + 3;
      const then = '2025-01-01T00:00:00.000Z';
      await insertRows(
        db,
        'contacts',
        Array.from({ length: n }, (_, i) => ({
          id: `ct_${i}`,
          workspace_id: 'ourco.com',
          client_id: null,
          name: `old ${i}`,
          title: 't',
          last_seen_at: then,
          created_at: then,
          updated_at: then,
        })),
      );
      const changed = Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === 0);
      await db.transaction().execute((trx) =>
        updateTextColumns(
          trx,
          'contacts',
          'id',
          changed.map((i) => ({
            id: `ct_${i}`,
            name: `new ${i}`,
            last_seen_at: i === 0 ? null : `2025-06-${String((i % 28) + 1).padStart(2, '0')}T00:00:00.000Z`,
          })),
        ),
      );
      const rows = await db.selectFrom('contacts').select(['id', 'name', 'last_seen_at', 'title']).execute();
      expect(rows).toHaveLength(n);
      for (const r of rows) {
        const i = Number(r.id.slice(3));
        if (i % 2 === 0) {
          expect(r, r.id).toEqual({
            id: r.id,
            name: `new ${i}`,
            last_seen_at: i === 0 ? null : `2025-06-${String((i % 28) + 1).padStart(2, '0')}T00:00:00.000Z`,
            title: 't',
          });
        } else {
          expect(r, r.id).toEqual({ id: r.id, name: `old ${i}`, last_seen_at: then, title: 't' });
        }
      }
    } finally {
      await store.close();
    }
  });
  it('a long insert lets the event loop turn between statements (SQLite runs them synchronously), and still stores every row', async () => {
    const store = await dialect.open();
    try {
      const { db } = store;
      await createWorkspace(db, { domain: 'ourco.com', name: 'Our Co', ownerEmail: 'lead@ourco.com' });
      const now = '2025-06-01T00:00:00.000Z';
      const clients = Array.from({ length: 20_000 }, (_, i) => newClientRow({ id: `cl_${i}`, workspaceId: 'ourco.com', domain: `c${i}.com`, now, mrr: i }));
      // What waits for a turn of the event loop (a worker thread's result, an HTTP request) gets one
      // while the insert runs on SQLite; on PostgreSQL every statement is a round trip anyway.
      let done = false;
      let turnedDuring = false;
      setImmediate(() => (turnedDuring = !done));
      await db.transaction().execute((trx) => insertRows(trx, 'clients', clients));
      done = true;
      expect(turnedDuring).toBe(true);
      const n = await db
        .selectFrom('clients')
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(n.n)).toBe(20_000);
    } finally {
      await store.close();
    }
  });
});
