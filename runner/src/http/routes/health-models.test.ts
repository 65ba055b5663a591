import { afterAll, describe, expect, it } from 'vitest';
import { recordOutcome, type HealthModelView } from '@chs/core';
import { dropTestSchemas, testDialects, type TestDialect } from '@chs/core/testing';
import { insertClient, insertSnapshot, readSnapshots } from '../../../../packages/core/src/health/test-fixtures.js';
import { startTestApp, type TestApp } from '../testing.js';

/**
 * Learned health weights over HTTP (extensions, issue 27): a CS lead who recorded forty renewals
 * asks the engine to learn weights from them. Where the clients that churned had gone quiet while
 * their other components looked fine, the learned weights (recency first) beat the hand-written
 * ones on the later renewals and are offered; applied, they score today's snapshots, and a revert
 * brings the hand-written weights back. Where the hand-written weights already ranked every churn
 * lowest, the fit is rejected and cannot be applied. Too few outcomes, an unknown model, a revert
 * with nothing to revert and a missing key are refused with the documented error body.
 */
afterAll(() => dropTestSchemas());
const dialects = await testDialects();
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   response bodies are walked as Json (any) in assertions; contract-check.ts validates every answer against its schema. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies in assertions

const TODAY = '2024-06-30';
const CLIENTS = 40;
const DAY_MS = 86_400_000;
const day = (from: string, days: number) => new Date(Date.parse(`${from}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Component values (0-100) of a client 60 days before its renewal: sentiment, engagement, responsiveness, recency. */
type Values = [number, number, number, number];

/**
 * Forty renewals, one every two days from March 1st, every third a churn, each with the score the
 * client had 60 days before it (a small wobble so no two are alike).
 */
async function seed(t: TestApp, valuesOf: (churned: boolean, wobble: number) => Values): Promise<void> {
  const db = t.engine.store.db;
  for (let i = 0; i < CLIENTS; i++) {
    const id = `c${String(i).padStart(2, '0')}`;
    const churned = i % 3 === 1;
    const renewal = day('2024-03-01', 2 * i);
    await insertClient(db, t.workspaceId, { id, domain: `${id}.com` });
    const v = valuesOf(churned, (i * 37) % 11);
    await insertSnapshot(db, t.workspaceId, id, day(renewal, -60), v.map((x) => x / 4) as Values);
    await recordOutcome(db, t.workspaceId, id, { date: renewal, outcome: churned ? 'churned' : 'renewed' }, 'api', new Date(`${TODAY}T12:00:00.000Z`));
  }
}

/** The churned had gone quiet (recency low) while the rest looked better than the renewed clients': equal weights miss it. */
const goneQuiet = (churned: boolean, w: number): Values => (churned ? [80 + w, 78 - w, 82, 15 + w] : [50 + w, 52 - w, 48, 85 - w]);
/** The churned were low on everything: the hand-written weights already rank every churn lowest. */
const lowOnEverything = (churned: boolean, w: number): Values => (churned ? [25 + w, 20, 30 - w, 20] : [75 - w, 80, 70 + w, 80]);

interface Ctx {
  t: TestApp;
  call: (method: 'GET' | 'POST', path: string, json?: unknown) => Promise<{ status: number; body: Json }>;
}

async function withApp(dialect: TestDialect, fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  const t = await startTestApp({ dialect, workspace: 'ourco.com', now: `${TODAY}T12:00:00.000Z` });
  const q = `workspaceId=${t.workspaceId}`;
  const call: Ctx['call'] = async (method, path, json) => {
    const res = await t.request(`/api${path}${path.includes('?') ? '&' : '?'}${q}`, { method, ...(json !== undefined ? { json } : {}) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  try {
    await fn({ t, call });
  } finally {
    await t.close();
  }
}

describe.each(dialects.map((d) => [d.name, d] as const))('learned health models on %s', (_name, dialect) => {
  it('weights that beat the hand-written ones are offered, applied to today’s scores, and reverted', () =>
    withApp(dialect, async ({ t, call }) => {
      await seed(t, goneQuiet);
      expect(await call('GET', '/health/models')).toEqual({ status: 200, body: { active: null, models: [] } });

      // No body: the default horizon, 60 days.
      const learned = await call('POST', '/health/models');
      expect(learned.status).toBe(201);
      const m = learned.body.model as HealthModelView;
      expect(m).toMatchObject({ version: 1, status: 'offered', horizonDays: 60, outcomes: 40, churned: 13, from: '2024-03-01', to: '2024-05-18' });
      expect(m.createdAt).toBe(`${TODAY}T12:00:00.000Z`);
      expect(m.appliedAt).toBeNull();
      // Recency told the churns apart: it weighs most, more than its hand-written 20 %.
      expect(m.baseline.weights).toEqual({ sentiment: 0.4, engagement: 0.2, responsiveness: 0.2, recency: 0.2 });
      expect(m.weights.recency).toBeGreaterThan(m.baseline.weights.recency);
      for (const c of ['sentiment', 'engagement', 'responsiveness'] as const) expect(m.weights.recency).toBeGreaterThan(m.weights[c]);
      expect(m.heldOut.aucLearned).toBeGreaterThanOrEqual(m.heldOut.aucDefault! + 0.01);
      expect(learned.body.summary).toMatch(/^Learned from 40 renewals \(13 churned\) between 2024-03-01 and 2024-05-18, 60 days before each/);

      // Listed, not in use until applied.
      expect((await call('GET', '/health/models')).body).toEqual({ active: null, models: [m] });

      const applied = await call('POST', '/health/models/1/apply');
      expect(applied.status).toBe(200);
      expect(applied.body.model).toMatchObject({ version: 1, status: 'active', appliedAt: `${TODAY}T12:00:00.000Z`, previousVersion: null });
      expect(applied.body.clientsRescored).toBe(CLIENTS);
      // Today's scores were rebuilt before the answer, and name the model that made them.
      const today = await readSnapshots(t.engine.store.db, { date: TODAY });
      expect(today).toHaveLength(CLIENTS);
      expect(today.every((s) => (s.components as { model?: number }).model === 1)).toBe(true);
      const list = (await call('GET', '/health/models')).body;
      expect(list.active).toBe(1);
      expect(list.models.map((x: Json) => [x.version, x.status])).toEqual([[1, 'active']]);
      // Applying the model in use again changes nothing.
      expect((await call('POST', '/health/models/1/apply')).body).toEqual({ model: applied.body.model, clientsRescored: 0 });

      const reverted = await call('POST', '/health/models/revert');
      expect(reverted).toEqual({ status: 200, body: { model: null, clientsRescored: CLIENTS } });
      const after = await readSnapshots(t.engine.store.db, { date: TODAY });
      expect(after.every((s) => (s.components as { model?: number }).model === undefined)).toBe(true);
      expect((await call('GET', '/health/models')).body).toMatchObject({ active: null, models: [{ version: 1, status: 'retired' }] });

      // Nothing left to revert; a retired model may be applied again.
      expect(await call('POST', '/health/models/revert')).toMatchObject({ status: 409, body: { code: 'INVALID_TRANSITION', status: 409 } });
      expect(await call('POST', '/health/models/1/apply')).toMatchObject({ status: 200, body: { model: { version: 1, status: 'active' } } });
    }));

  it('weights that do not beat the hand-written ones are rejected, kept for the record, and cannot be applied', () =>
    withApp(dialect, async ({ t, call }) => {
      await seed(t, lowOnEverything);
      const learned = await call('POST', '/health/models', { days: 60 });
      expect(learned.status).toBe(201);
      const m = learned.body.model as HealthModelView;
      expect(m).toMatchObject({ version: 1, status: 'rejected', outcomes: 40, churned: 13 });
      // The hand-written weights ranked every held-out churn lowest (AUC 1): no weights can beat them by 0.01.
      expect(m.heldOut.aucDefault).toBe(1);
      expect(learned.body.summary).toContain('against 1.000 for the hand-written weights');

      const refused = await call('POST', '/health/models/1/apply');
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ code: 'INVALID_TRANSITION', status: 409, error: expect.stringContaining('did not beat the hand-written model') });
      expect((await call('GET', '/health/models')).body).toMatchObject({ active: null, models: [{ version: 1, status: 'rejected' }] });
      expect(await readSnapshots(t.engine.store.db, { date: TODAY })).toEqual([]);
    }));

  it('refuses too few outcomes, a bad horizon, an unknown model, a revert with nothing applied, and a missing key', () =>
    withApp(dialect, async ({ t, call }) => {
      const few = await call('POST', '/health/models', {});
      expect(few.status).toBe(409);
      expect(few.body).toEqual({
        code: 'CONFLICT',
        status: 409,
        error: expect.stringMatching(
          /^learning weights needs at least 30 renewal outcomes with a score 60 days before them, 8 of them churns; this workspace has 0/,
        ),
      });
      expect((await call('GET', '/health/models')).body).toEqual({ active: null, models: [] });

      for (const days of [0, 366, 1.5, 'soon'])
        expect(await call('POST', '/health/models', { days })).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
      expect(await call('POST', '/health/models', { days: 30, extra: true })).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });

      expect(await call('POST', '/health/models/7/apply')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', status: 404 } });
      expect(await call('POST', '/health/models/latest/apply')).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
      expect(await call('POST', '/health/models/revert')).toMatchObject({
        status: 409,
        body: { code: 'INVALID_TRANSITION', error: 'the hand-written model is in use: there is no learned model to revert' },
      });

      for (const [method, path] of [
        ['GET', '/api/health/models'],
        ['POST', '/api/health/models'],
        ['POST', '/api/health/models/1/apply'],
        ['POST', '/api/health/models/revert'],
      ] as const) {
        const res = await t.request(`${path}?workspaceId=${t.workspaceId}`, { method, key: null });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(await res.json()).toMatchObject({ code: 'AUTH_INVALID_KEY', status: 401 });
      }
      const elsewhere = await t.request('/api/health/models?workspaceId=other.com');
      expect(elsewhere.status).toBe(403);
    }));
});
