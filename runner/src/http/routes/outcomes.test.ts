import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '@chs/core';
import { dropTestSchemas, testDialects, type TestDialect } from '@chs/core/testing';
import { insertClient } from '../../../../packages/core/src/health/test-fixtures.js';
import { startTestApp, type TestApp } from '../testing.js';

/**
 * A CS lead records how renewals ended (POST /clients/{id}/outcomes, an extension) so the score's
 * history can later be checked against them, and reads them back (GET).
 */
afterAll(() => dropTestSchemas());
const dialects = await testDialects();
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   response bodies are walked as Json (any) in assertions; contract-check.ts validates every answer against its schema. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies in assertions

const TODAY = '2024-06-30';

interface Ctx {
  t: TestApp;
  post: (clientId: string, body: unknown) => Promise<{ status: number; body: Json }>;
  list: (clientId: string) => Promise<{ status: number; body: Json }>;
}

async function start(dialect: TestDialect): Promise<Ctx> {
  const t = await startTestApp({ dialect, workspace: 'ourco.com', now: `${TODAY}T12:00:00.000Z` });
  await insertClient(t.engine.store.db, t.workspaceId, { id: 'c1', domain: 'globex.com', name: 'Globex', mrr: 4200 });
  const q = `workspaceId=${t.workspaceId}`;
  return {
    t,
    post: async (clientId, body) => {
      const res = await t.request(`/api/clients/${clientId}/outcomes?${q}`, { method: 'POST', json: body });
      return { status: res.status, body: (await res.json()) as Json };
    },
    list: async (clientId) => {
      const res = await t.request(`/api/clients/${clientId}/outcomes?${q}`);
      return { status: res.status, body: (await res.json()) as Json };
    },
  };
}

async function withApp(dialect: TestDialect, fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  const ctx = await start(dialect);
  try {
    await fn(ctx);
  } finally {
    await ctx.t.close();
  }
}

describe.each(dialects.map((d) => [d.name, d] as const))('renewal outcomes of a client on %s', (_name, dialect) => {
  it('a churn recorded is read back as it was given', () =>
    withApp(dialect, async ({ post, list }) => {
      expect((await list('c1')).body).toEqual({ outcomes: [] });
      const churn = await post('c1', { date: '2024-06-28', outcome: 'churned' });
      expect(churn.status).toBe(201);
      expect(churn.body).toMatchObject({ clientId: 'c1', date: '2024-06-28', outcome: 'churned', mrrBefore: null, mrrAfter: null, source: 'api' });
      expect(churn.body.id).toMatch(/^out_/);
      expect(churn.body.createdAt).toBe(`${TODAY}T12:00:00.000Z`);

      const read = await list('c1');
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ outcomes: [churn.body] });
    }));

  it('the same day again replaces that day’s outcome (200), and the outcomes come oldest first', () =>
    withApp(dialect, async ({ post, list }) => {
      const renewed = await post('c1', { date: '2024-06-01', outcome: 'renewed', mrrBefore: 4200, mrrAfter: 4200 });
      expect(renewed.status).toBe(201);
      const first = await post('c1', { date: '2024-06-20', outcome: 'churned' });
      expect(first.status).toBe(201);
      // Not a churn after all: they stayed on a smaller plan.
      const fixed = await post('c1', { date: '2024-06-20', outcome: 'downgraded', mrrBefore: 4200, mrrAfter: 2500 });
      expect(fixed.status).toBe(200);
      expect(fixed.body).toMatchObject({ id: first.body.id, outcome: 'downgraded', mrrBefore: 4200, mrrAfter: 2500, createdAt: first.body.createdAt });

      const { body } = await list('c1');
      expect(body.outcomes.map((o: Json) => [o.date, o.outcome])).toEqual([
        ['2024-06-01', 'renewed'],
        ['2024-06-20', 'downgraded'],
      ]);
      expect(body.outcomes[1]).toEqual(fixed.body);
    }));

  it('refuses a downgrade without mrrAfter (400 INVALID_INPUT) and stores nothing', () =>
    withApp(dialect, async ({ post, list }) => {
      const res = await post('c1', { date: '2024-06-28', outcome: 'downgraded', mrrBefore: 4200 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining('mrrAfter'), code: 'INVALID_INPUT', status: 400 });
      expect(Object.keys(res.body as object).sort()).toEqual(['code', 'error', 'status']);
      // A downgrade that does not lower the MRR is refused too.
      const up = await post('c1', { date: '2024-06-28', outcome: 'downgraded', mrrBefore: 4200, mrrAfter: 5000 });
      expect(up.status).toBe(400);
      expect(up.body.code).toBe('INVALID_INPUT');
      expect((await list('c1')).body).toEqual({ outcomes: [] });
    }));

  it('refuses an outcome dated after today, and accepts today', () =>
    withApp(dialect, async ({ post, list }) => {
      const res = await post('c1', { date: '2024-07-01', outcome: 'renewed' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining('future'), code: 'INVALID_INPUT', status: 400 });
      expect((await list('c1')).body).toEqual({ outcomes: [] });
      expect((await post('c1', { date: TODAY, outcome: 'renewed' })).status).toBe(201);
    }));

  it('answers 404 CLIENT_NOT_FOUND for a client the workspace does not have', () =>
    withApp(dialect, async ({ post, list }) => {
      const write = await post('nope', { date: '2024-06-28', outcome: 'churned' });
      expect(write.status).toBe(404);
      expect(write.body).toEqual({ error: expect.any(String), code: 'CLIENT_NOT_FOUND', status: 404 });
      const read = await list('nope');
      expect(read.status).toBe(404);
      expect(read.body.code).toBe('CLIENT_NOT_FOUND');
    }));

  it('never shows nor writes another workspace’s client', () =>
    withApp(dialect, async ({ t, post, list }) => {
      const db = t.engine.store.db;
      await createWorkspace(db, { domain: 'rival.com', name: 'Rival', ownerEmail: 'bo@rival.com' });
      await insertClient(db, 'rival.com', { id: 'r1', domain: 'initech.com', name: 'Initech' });
      await db
        .insertInto('client_outcomes')
        .values({
          id: 'out_rival',
          workspace_id: 'rival.com',
          client_id: 'r1',
          date: '2024-06-10',
          outcome: 'churned',
          mrr_before: null,
          mrr_after: null,
          source: 'csv',
          created_at: '2024-06-10T00:00:00.000Z',
          updated_at: '2024-06-10T00:00:00.000Z',
        })
        .execute();

      const read = await list('r1');
      expect(read.status).toBe(404);
      expect(read.body.code).toBe('CLIENT_NOT_FOUND');
      expect(JSON.stringify(read.body)).not.toContain('out_rival');
      const write = await post('r1', { date: '2024-06-10', outcome: 'renewed' });
      expect(write.status).toBe(404);
      expect(write.body.code).toBe('CLIENT_NOT_FOUND');
      const stored = await db.selectFrom('client_outcomes').select(['outcome']).where('client_id', '=', 'r1').execute();
      expect(stored).toEqual([{ outcome: 'churned' }]);
      // And the key of one workspace cannot name the other.
      expect((await t.request('/api/clients/r1/outcomes?workspaceId=rival.com')).status).toBe(403);
    }));

  it('refuses a body with a field it does not know (400) and stores nothing', () =>
    withApp(dialect, async ({ post, list }) => {
      const res = await post('c1', { date: '2024-06-28', outcome: 'churned', reason: 'price' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String), code: 'VALIDATION_ERROR', status: 400 });
      const bad = await post('c1', { date: '2024-06-28', outcome: 'paused' });
      expect(bad.status).toBe(400);
      expect((await list('c1')).body).toEqual({ outcomes: [] });
    }));
});
