import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { insertClient, insertInteractions } from '../../../../packages/core/src/health/test-fixtures.js';
import { startTestApp, type TestApp } from '../testing.js';

afterAll(() => dropTestSchemas());
const dialects = await testDialects();
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   response bodies are walked as Json (any) in assertions; contract-check.ts validates every answer against its schema. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies in assertions

describe.each(dialects.map((d) => [d.name, d] as const))('suggested clients over HTTP on %s', (_name, dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp({ dialect, workspace: 'ourco.com', now: '2024-06-30T12:00:00.000Z' });
    const db = t.engine.store.db;
    await insertClient(db, t.workspaceId, { id: 'c1', domain: 'acmeco.com', name: 'Acme' });
    await insertClient(db, t.workspaceId, { id: 's1', domain: 'initech.com', name: 'Initech', status: 'suggested', discovery: 'cc_only' });
    await insertClient(db, t.workspaceId, { id: 's2', domain: 'globex.com', name: 'Globex', status: 'suggested', discovery: 'co_recipient' });
    await insertInteractions(db, t.workspaceId, [
      { id: 'a1', clientId: 'c1', at: '2024-06-20T10:00:00.000Z', direction: 'inbound', sentiment: 0.2, from: 'bob@acmeco.com' },
      { id: 'i1', clientId: 's1', at: '2024-05-02T09:00:00.000Z', direction: 'inbound', sentiment: 0.6, from: 'peter@initech.com', addressed: 0 },
      { id: 'i2', clientId: 's1', at: '2024-06-10T09:00:00.000Z', direction: 'inbound', sentiment: 0.4, from: 'milton@initech.com', addressed: 0 },
      { id: 'i3', clientId: 's1', at: '2024-06-11T09:00:00.000Z', direction: 'outbound', sentiment: 0, from: 'ana@ourco.com' },
      { id: 'g1', clientId: 's2', at: '2024-06-01T09:00:00.000Z', direction: 'outbound', sentiment: 0, from: 'ana@ourco.com' },
    ]);
  });
  afterEach(() => t.close());

  const q = (extra = '') => `?workspaceId=${t.workspaceId}${extra}`;
  const get = async (path: string, extra = ''): Promise<Json> => {
    const res = await t.request(`/api${path}${q(extra)}`);
    expect(res.status, `${path}${extra}`).toBe(200);
    return res.json();
  };
  const post = (path: string) => t.request(`/api${path}${q()}`, { method: 'POST' });

  it('lists suggestions, those whose people wrote first, with why and the figures; not in GET /clients', async () => {
    const list = await get('/clients/suggested');
    expect(list.total).toBe(2);
    expect(list.suggestions).toEqual([
      {
        clientId: 's1',
        domain: 'initech.com',
        name: 'Initech',
        status: 'suggested',
        reason: 'cc_only',
        reasonText: expect.any(String),
        messages: 3,
        messagesFrom: 2,
        people: 2,
        firstAt: '2024-05-02T09:00:00.000Z',
        lastAt: '2024-06-11T09:00:00.000Z',
      },
      expect.objectContaining({ clientId: 's2', domain: 'globex.com', reason: 'co_recipient', messages: 1, messagesFrom: 0, people: 0 }),
    ]);
    expect(list.suggestions[0].reasonText.length).toBeGreaterThan(0);
    // Paging.
    const page = await get('/clients/suggested', '&limit=1&offset=1');
    expect(page).toMatchObject({ total: 2, suggestions: [{ domain: 'globex.com' }] });
    expect(await get('/clients/suggested', '&status=ignored')).toEqual({ suggestions: [], total: 0 });
    // The static path wins over /clients/:clientId; suggestions stay out of the client reads.
    expect((await get('/clients')).map((c: Json) => c.id)).toEqual(['c1']);
    expect((await t.request(`/api/clients/s1${q()}`)).status).toBe(404);
  });

  it('accepts a suggestion: a scored client over its whole history, in GET /clients', async () => {
    // Read once so the client list is in the read cache: the accept must still show.
    expect((await get('/clients')).length).toBe(1);
    const res = await post('/clients/suggested/INITECH.com/accept');
    expect(res.status).toBe(200);
    const body: Json = await res.json();
    expect(body.client).toMatchObject({ id: 's1', name: 'Initech', domain: 'initech.com', lastInteraction: '2024-06-11T09:00:00.000Z', isExcluded: false });
    expect(typeof body.client.sentimentScore).toBe('number');

    expect((await get('/clients')).map((c: Json) => c.id)).toEqual(['c1', 's1']);
    const details = await get('/clients/s1');
    expect(details.metrics.totalInteractions).toBe(3);
    expect(details.health.date).toBe('2024-06-30');
    expect(details.health.score).toBe(body.client.sentimentScore);
    const stored = await t.engine.store.db.selectFrom('clients').select(['health_score', 'status']).where('id', '=', 's1').executeTakeFirstOrThrow();
    expect(stored.status).toBe('active');
    expect(stored.health_score).not.toBeNull();

    const list = await get('/clients/suggested');
    expect(list).toMatchObject({ total: 1, suggestions: [{ domain: 'globex.com' }] });
    // Accepting again: no longer a suggestion.
    const again = await post('/clients/suggested/initech.com/accept');
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('ignores a suggestion (by domain or id): it leaves the list and shows with status=ignored; it can still be accepted', async () => {
    const res = await post('/clients/suggested/globex.com/ignore');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ suggestion: { clientId: 's2', domain: 'globex.com', status: 'ignored' } });
    expect(await get('/clients/suggested')).toMatchObject({ total: 1, suggestions: [{ domain: 'initech.com' }] });
    expect(await get('/clients/suggested', '&status=ignored')).toMatchObject({
      total: 1,
      suggestions: [{ clientId: 's2', domain: 'globex.com', status: 'ignored' }],
    });
    expect((await post('/clients/suggested/s1/ignore')).status).toBe(200);
    expect((await get('/clients/suggested')).total).toBe(0);
    expect((await get('/clients')).map((c: Json) => c.id)).toEqual(['c1']);
    // An ignored domain may be accepted later.
    expect((await post('/clients/suggested/globex.com/accept')).status).toBe(200);
    expect((await get('/clients')).map((c: Json) => c.id)).toEqual(['c1', 's2']);
  });

  it('answers 404 with the error body for a domain that is no suggestion, 400 for a bad query', async () => {
    for (const path of [
      '/clients/suggested/nowhere.com/accept',
      '/clients/suggested/nowhere.com/ignore',
      '/clients/suggested/acmeco.com/accept',
      '/clients/suggested/acmeco.com/ignore',
    ]) {
      const res = await post(path);
      expect(res.status, path).toBe(404);
      const err = (await res.json()) as Record<string, unknown>;
      expect(err, path).toMatchObject({ code: 'NOT_FOUND', status: 404 });
      expect(Object.keys(err).sort()).toEqual(['code', 'error', 'status']);
    }
    for (const extra of ['&status=active', '&status=', '&limit=0', '&limit=201', '&limit=abc', '&offset=-1']) {
      const res = await t.request(`/api/clients/suggested${q(extra)}`);
      expect(res.status, extra).toBe(400);
      expect(await res.json(), extra).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    }
    // Without a key: 401, as every route.
    expect((await t.request(`/api/clients/suggested${q()}`, { key: null })).status).toBe(401);
    expect((await t.request(`/api/clients/suggested/initech.com/accept${q()}`, { method: 'POST', key: null })).status).toBe(401);
  });

  it('keeps clientDiscovery in the workspace settings: the three policies, 400 otherwise', async () => {
    const settings = async () => ((await get('/settings')) as { workspace: { clientDiscovery: string } }).workspace.clientDiscovery;
    expect(await settings()).toBe('conversations');
    for (const policy of ['crm_only', 'every_sender', 'conversations']) {
      const res = await t.request(`/api/settings${q()}`, { method: 'PUT', json: { workspace: { clientDiscovery: policy } } });
      expect(res.status, policy).toBe(200);
      expect(await settings()).toBe(policy);
    }
    for (const bad of ['everyone', '', 3, null]) {
      const res = await t.request(`/api/settings${q()}`, { method: 'PUT', json: { workspace: { clientDiscovery: bad } } });
      expect(res.status, String(bad)).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    }
    expect(await settings()).toBe('conversations');
  });
});
