import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { connectIntegration, markIntegrationSynced, markNeedsReauth } from '@chs/core';
import { startTestApp, type TestApp } from '../testing.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('GET /api/integrations/:provider/status', () => {
  it('reports a connected Google account with the documented fields, never a token', async () => {
    t = await startTestApp();
    const db = t.engine.store.db;
    await connectIntegration(db, randomBytes(32), {
      workspaceId: t.workspaceId,
      provider: 'google',
      credentials: { accessToken: 'ya29.secret', refreshToken: '1//r', clientId: 'c', clientSecret: 's' },
      accountEmail: 'rep@acme.com',
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
      expiresAt: '2024-05-20T01:00:00.000Z',
    });
    await markIntegrationSynced(db, t.workspaceId, 'google', new Date('2024-05-20T00:30:00.000Z'));
    const res = await t.request(`/api/integrations/google/status?workspaceId=${t.workspaceId}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('ya29');
    expect(JSON.parse(text)).toEqual({
      connected: true,
      provider: 'google',
      workspaceId: t.workspaceId,
      email: 'rep@acme.com',
      expiresAt: '2024-05-20T01:00:00.000Z',
      hasRefresh: true,
      lastSyncAt: '2024-05-20T00:30:00.000Z',
      scope: 'https://www.googleapis.com/auth/gmail.readonly',
      state: 'connected',
      accounts: [
        {
          account: 'rep@acme.com',
          email: 'rep@acme.com',
          state: 'connected',
          lastSyncAt: '2024-05-20T00:30:00.000Z',
          lastError: null,
          expiresAt: '2024-05-20T01:00:00.000Z',
          hasRefresh: true,
          connectedAt: expect.any(String),
        },
      ],
    });
    await markNeedsReauth(db, t.workspaceId, 'google', 'invalid_grant');
    const again = (await (await t.request(`/api/integrations/google/status?workspaceId=${t.workspaceId}`)).json()) as { connected: boolean; state: string };
    expect(again).toMatchObject({ connected: false, state: 'needs_reauth' });
  });

  it('a provider never connected reads as not connected; an unknown provider is a 400; no key is a 401', async () => {
    t = await startTestApp();
    const res = await t.request(`/api/integrations/intercom/status?workspaceId=${t.workspaceId}`);
    expect(await res.json()).toEqual({
      connected: false,
      provider: 'intercom',
      workspaceId: t.workspaceId,
      email: null,
      expiresAt: null,
      hasRefresh: false,
      lastSyncAt: null,
      scope: null,
      state: 'not_connected',
      accounts: [],
    });
    const bad = await t.request(`/api/integrations/slack/status?workspaceId=${t.workspaceId}`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ status: 400 });
    const anon = await t.request(`/api/integrations/google/status?workspaceId=${t.workspaceId}`, { key: null });
    expect(anon.status).toBe(401);
  });
});
