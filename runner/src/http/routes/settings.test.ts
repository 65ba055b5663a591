import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSettings } from '@chs/core';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { startTestApp, type TestApp } from '../testing.js';

afterAll(() => dropTestSchemas());

const dialects = await testDialects();

describe.each(dialects.map((d) => [d.name, d] as const))('settings on %s', (_name, dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp({ dialect });
  });
  afterEach(() => t.close());

  const q = () => `?workspaceId=${t.workspaceId}`;
  const put = (json: unknown) => t.request(`/api/settings${q()}`, { method: 'PUT', json });
  const get = async () =>
    (await (await t.request(`/api/settings${q()}`)).json()) as {
      profile: Record<string, unknown>;
      workspace: Record<string, unknown> & { notifications: Record<string, unknown> };
    };

  it('returns profile (the key’s user) and workspace settings with defaults', async () => {
    const s = await get();
    expect(s.profile).toEqual({ name: 'Ana Lima', email: 'ana@acme.com', title: '' });
    expect(s.workspace).toMatchObject({
      workspaceName: 'Acme',
      domain: 'acme.com',
      timezone: 'UTC',
      currency: 'USD',
      defaultWindowDays: 30,
      riskThreshold: 40,
      dataRetentionDays: 365,
    });
    expect(s.workspace.notifications).toEqual({
      channels: { email: true },
      dailyDigest: false,
      weeklyDigest: true,
      alertOnScoreDrop: true,
      alertOnRiskSignals: true,
      scoreDropPct: 15,
      alertOnRenewals: true,
      renewalsAheadDays: 30,
      emailFrom: 'notifications@acme.com',
    });
    expect(s.workspace.replySlaBusinessDays).toBe(2);
  });

  it('merges a partial PUT deeply and keeps everything else', async () => {
    const res = await put({
      profile: { title: 'Head of CS' },
      workspace: { timezone: 'europe/paris', currency: 'eur', riskThreshold: 55.5, notifications: { dailyDigest: true, channels: { email: false } } },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, message: 'Settings updated' });
    const s = await get();
    expect(s.profile).toEqual({ name: 'Ana Lima', email: 'ana@acme.com', title: 'Head of CS' });
    expect(s.workspace).toMatchObject({ timezone: 'Europe/Paris', currency: 'EUR', riskThreshold: 55.5, defaultWindowDays: 30, workspaceName: 'Acme' });
    expect(s.workspace.notifications).toMatchObject({ dailyDigest: true, weeklyDigest: true, channels: { email: false }, scoreDropPct: 15 });

    // Renaming the workspace shows in /settings/user too; the domain may be repeated, unchanged.
    expect((await put({ workspace: { workspaceName: 'Acme Corp', domain: 'ACME.com' }, profile: { name: 'Ana L.', email: 'ana.l@acme.com' } })).status).toBe(
      200,
    );
    const user = (await (await t.request(`/api/settings/user${q()}`)).json()) as { user: Record<string, unknown>; workspace: Record<string, unknown> };
    expect(user.workspace).toEqual({ domain: 'acme.com', name: 'Acme Corp', plan: 'self-hosted', billingStatus: 'active' });
    // A new address waits for its confirmation (settings-relay.test.ts); the rest applies at once.
    expect(user.user).toMatchObject({ name: 'Ana L.', email: 'ana@acme.com', title: 'Head of CS', hasCompletedOnboarding: false });
    expect((await get()).profile).toMatchObject({ email: 'ana@acme.com', pendingEmail: 'ana.l@acme.com' });
    expect((await get()).workspace.domain).toBe('acme.com');

    // An empty patch is a no-op.
    expect((await put({})).status).toBe(200);
  });

  // Every validation rule: each body must be refused with 400 VALIDATION_ERROR and change nothing.
  const invalid: Array<[string, unknown]> = [
    ['timezone not a zone', { workspace: { timezone: 'Mars/Phobos' } }],
    ['timezone an offset', { workspace: { timezone: '+05:00' } }],
    ['timezone empty', { workspace: { timezone: '' } }],
    ['timezone wrong type', { workspace: { timezone: 5 } }],
    ['currency unknown', { workspace: { currency: 'XYZ' } }],
    ['currency too long', { workspace: { currency: 'EURO' } }],
    ['currency number', { workspace: { currency: 978 } }],
    ['profile e-mail invalid', { profile: { email: 'ana-at-acme.com' } }],
    ['profile e-mail with space', { profile: { email: 'ana @acme.com' } }],
    ['emailFrom invalid', { workspace: { notifications: { emailFrom: 'notifications' } } }],
    ['riskThreshold above 100', { workspace: { riskThreshold: 101 } }],
    ['riskThreshold below 0', { workspace: { riskThreshold: -1 } }],
    ['riskThreshold as text', { workspace: { riskThreshold: '50' } }],
    ['scoreDropPct above 100', { workspace: { notifications: { scoreDropPct: 100.5 } } }],
    ['scoreDropPct below 0', { workspace: { notifications: { scoreDropPct: -5 } } }],
    ['defaultWindowDays 0', { workspace: { defaultWindowDays: 0 } }],
    ['defaultWindowDays fractional', { workspace: { defaultWindowDays: 1.5 } }],
    ['defaultWindowDays above 365', { workspace: { defaultWindowDays: 366 } }],
    ['dataRetentionDays 0', { workspace: { dataRetentionDays: 0 } }],
    ['renewalsAheadDays 0', { workspace: { notifications: { renewalsAheadDays: 0 } } }],
    ['syncIntervalMinutes below 5', { workspace: { syncIntervalMinutes: 1 } }],
    ['replySlaBusinessDays 0', { workspace: { replySlaBusinessDays: 0 } }],
    ['replySlaBusinessDays fractional', { workspace: { replySlaBusinessDays: 1.5 } }],
    ['alertOnRiskSignals as text', { workspace: { notifications: { alertOnRiskSignals: 'true' } } }],
    ['healthWeights negative', { workspace: { healthWeights: { sentiment: -1 } } }],
    ['healthWeights all zero', { workspace: { healthWeights: { sentiment: 0, engagement: 0, responsiveness: 0, recency: 0 } } }],
    ['boolean as text', { workspace: { notifications: { dailyDigest: 'yes' } } }],
    ['boolean as number', { workspace: { notifications: { channels: { email: 1 } } } }],
    ['unknown top-level field', { theme: 'dark' }],
    ['unknown profile field', { profile: { phone: '123' } }],
    ['unknown workspace field', { workspace: { color: 'blue' } }],
    ['unknown notifications field', { workspace: { notifications: { sms: true } } }],
    ['unknown channel', { workspace: { notifications: { channels: { slack: true } } } }],
    ['profile name empty', { profile: { name: '' } }],
    ['workspaceName blank', { workspace: { workspaceName: '   ' } }],
    ['domain changed', { workspace: { domain: 'globex.com' } }],
    ['profile not an object', { profile: 'Ana' }],
    ['body an array', [{ profile: {} }]],
    ['scoreChangeMinDelta below 0', { workspace: { events: { scoreChangeMinDelta: -1 } } }],
    ['scoreChangeMinDelta above 100', { workspace: { events: { scoreChangeMinDelta: 101 } } }],
    ['scoreChangeMinDelta as text', { workspace: { events: { scoreChangeMinDelta: '10' } } }],
    ['unknown events field', { workspace: { events: { minDelta: 5 } } }],
  ];

  it(`refuses each of ${invalid.length} invalid bodies with 400 VALIDATION_ERROR and changes nothing`, async () => {
    const before = await get();
    for (const [label, body] of invalid) {
      const res = await put(body);
      expect(res.status, label).toBe(400);
      const err = (await res.json()) as Record<string, unknown>;
      expect(err, label).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
      expect(Object.keys(err).sort(), label).toEqual(['code', 'error', 'status']);
    }
    expect(await get()).toEqual(before);
  });

  it('accepts the boundaries', async () => {
    const res = await put({
      workspace: { riskThreshold: 0, defaultWindowDays: 365, dataRetentionDays: 1, notifications: { scoreDropPct: 100, renewalsAheadDays: 1 } },
    });
    expect(res.status).toBe(200);
    expect((await get()).workspace).toMatchObject({ riskThreshold: 0, defaultWindowDays: 365, dataRetentionDays: 1 });
  });

  it('events.scoreChangeMinDelta: 10 by default, set by a PUT (0 and fractions allowed), and used by the engine', async () => {
    expect((await get()).workspace.events).toEqual({ scoreChangeMinDelta: 10 });
    for (const delta of [25, 0, 2.5]) {
      const res = await put({ workspace: { events: { scoreChangeMinDelta: delta } } });
      expect(res.status).toBe(200);
      expect((await get()).workspace.events).toEqual({ scoreChangeMinDelta: delta });
      expect((await getSettings(t.engine.store.db, t.workspaceId)).events.scoreChangeMinDelta).toBe(delta);
    }
  });

  it('refuses a missing or non-JSON body for PUT', async () => {
    expect((await t.request(`/api/settings${q()}`, { method: 'PUT' })).status).toBe(400);
    const bad = await t.request(`/api/settings${q()}`, { method: 'PUT', body: '{"workspace":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'INVALID_JSON', status: 400 });
  });

  it('refuses an e-mail another user of the workspace has (409)', async () => {
    await t.engine.store.db
      .insertInto('users')
      .values({
        id: 'usr_bo',
        workspace_id: 'acme.com',
        email: 'bo@acme.com',
        name: 'Bo',
        title: '',
        role: 'member',
        has_completed_onboarding: 0,
        created_at: new Date().toISOString(),
        last_login_at: null,
      })
      .execute();
    const res = await put({ profile: { email: 'bo@acme.com', title: 'should not stick' } });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'CONFLICT' });
    expect((await get()).profile.title).toBe('');
  });

  it('completes onboarding and reports the user', async () => {
    const before = (await (await t.request(`/api/settings/user${q()}`)).json()) as { user: Record<string, unknown> };
    expect(before.user.hasCompletedOnboarding).toBe(false);
    expect(before.user.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // lastLoginAt: the last use of the user's keys, known before any flush.
    expect(before.user.lastLoginAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    // Clients often send a JSON content type with no body: that is no body, not bad JSON.
    const res = await t.request(`/api/settings/complete-onboarding${q()}`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, hasCompletedOnboarding: true });
    const after = (await (await t.request(`/api/settings/user${q()}`)).json()) as { user: Record<string, unknown> };
    expect(after.user.hasCompletedOnboarding).toBe(true);
  });
});
