import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey, createEngine, createWorkspace, setApiKeyActive } from '@chs/core';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { buildApp } from './app.js';
import { createLogger } from './logging.js';
import { startTestApp, testConfig } from './testing.js';

afterAll(() => dropTestSchemas());

const dialects = await testDialects();

async function expectError(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'error', 'status']);
  expect(body).toMatchObject({ code, status });
  expect(typeof body.error).toBe('string');
}

describe.each(dialects.map((d) => [d.name, d] as const))('auth on %s', (_name, dialect) => {
  it('accepts Bearer and X-API-Key, refuses missing and invalid keys with 401 AUTH_INVALID_KEY', async () => {
    const t = await startTestApp({ dialect });
    try {
      const path = `/api/settings?workspaceId=${t.workspaceId}`;
      expect((await t.request(path)).status).toBe(200);
      expect((await t.request(path, { key: null, headers: { 'x-api-key': t.apiKey } })).status).toBe(200);
      // Scheme is case-insensitive.
      expect((await t.request(path, { key: null, headers: { authorization: `bearer ${t.apiKey}` } })).status).toBe(200);

      await expectError(await t.request(path, { key: null }), 401, 'AUTH_INVALID_KEY');
      await expectError(await t.request(path, { key: 'sk-' + 'x'.repeat(43) }), 401, 'AUTH_INVALID_KEY');
      await expectError(await t.request(path, { key: 'not-a-key' }), 401, 'AUTH_INVALID_KEY');
      await expectError(
        await t.request(path, { key: null, headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } }),
        401,
        'AUTH_INVALID_KEY',
      );
      await expectError(await t.request(path, { key: null, headers: { 'x-api-key': t.apiKey.slice(0, -1) } }), 401, 'AUTH_INVALID_KEY');
      // Auth comes before parameter validation: no key and no workspaceId is still 401.
      await expectError(await t.request('/api/settings', { key: null }), 401, 'AUTH_INVALID_KEY');
    } finally {
      await t.close();
    }
  });

  it('requires workspaceId (400) and refuses another workspace (403)', async () => {
    const t = await startTestApp({ dialect });
    try {
      const other = await createWorkspace(t.engine.store.db, { domain: 'globex.com', name: 'Globex', ownerEmail: 'hank@globex.com' });
      await expectError(await t.request('/api/settings'), 400, 'VALIDATION_ERROR');
      await expectError(await t.request('/api/settings?workspaceId='), 400, 'VALIDATION_ERROR');
      await expectError(await t.request('/api/settings?workspaceId=globex.com'), 403, 'FORBIDDEN_WORKSPACE');
      await expectError(await t.request(`/api/settings?workspaceId=${t.workspaceId}`, { key: other.apiKey.key }), 403, 'FORBIDDEN_WORKSPACE');
      // A workspace that does not exist is not the key's either.
      await expectError(await t.request('/api/settings?workspaceId=nope.com'), 403, 'FORBIDDEN_WORKSPACE');
      // Case does not matter: the id is the lower-cased domain.
      expect((await t.request('/api/settings?workspaceId=ACME.com')).status).toBe(200);
      // workspaceId in a JSON body is checked too.
      await expectError(
        await t.request(`/api/settings/api-keys?workspaceId=${t.workspaceId}`, { method: 'POST', json: { name: 'x', workspaceId: 'globex.com' } }),
        403,
        'FORBIDDEN_WORKSPACE',
      );
      // Repeated workspaceId is not one string.
      await expectError(await t.request(`/api/settings?workspaceId=${t.workspaceId}&workspaceId=globex.com`), 400, 'VALIDATION_ERROR');
    } finally {
      await t.close();
    }
  });

  it('refuses a deleted key at once, and an inactive one', async () => {
    const t = await startTestApp({ dialect });
    try {
      const path = `/api/settings?workspaceId=${t.workspaceId}`;
      const second = await createApiKey(t.engine.store.db, { workspaceId: t.workspaceId, name: 'CI' });
      expect((await t.request(path, { key: second.key })).status).toBe(200);

      await setApiKeyActive(t.engine.store.db, t.workspaceId, second.id, false);
      await expectError(await t.request(path, { key: second.key }), 401, 'AUTH_INVALID_KEY');
      await setApiKeyActive(t.engine.store.db, t.workspaceId, second.id, true);
      expect((await t.request(path, { key: second.key })).status).toBe(200);

      const del = await t.request(`/api/settings/api-keys/${second.id}?workspaceId=${t.workspaceId}`, { method: 'DELETE' });
      expect(del.status).toBe(200);
      expect(await del.json()).toEqual({ success: true, message: 'API key deleted' });
      await expectError(await t.request(path, { key: second.key }), 401, 'AUTH_INVALID_KEY');
      // Deleting it again, or a key of nobody: 404.
      await expectError(await t.request(`/api/settings/api-keys/${second.id}?workspaceId=${t.workspaceId}`, { method: 'DELETE' }), 404, 'KEY_NOT_FOUND');
      // A key may delete itself; its next request is refused.
      expect((await t.request(`/api/settings/api-keys/${t.apiKeyId}?workspaceId=${t.workspaceId}`, { method: 'DELETE' })).status).toBe(200);
      await expectError(await t.request(path), 401, 'AUTH_INVALID_KEY');
    } finally {
      await t.close();
    }
  });

  it('refuses at once a key deleted by another runner sharing the database', async () => {
    const { url, schema } = await dialect.url();
    const open = () => createEngine({ database: url, ...(schema ? { schema } : {}) });
    const engineA = await open();
    const engineB = await open();
    const config = testConfig();
    const logger = createLogger({ level: 'silent' });
    const appA = await buildApp({ engine: engineA, config, logger });
    const appB = await buildApp({ engine: engineB, config, logger });
    try {
      const { apiKey } = await createWorkspace(engineA.store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      const spare = await createApiKey(engineA.store.db, { workspaceId: 'acme.com', name: 'spare' });
      const get = (app: typeof appA, key: string) => app.inject({ url: '/api/settings?workspaceId=acme.com', headers: { authorization: `Bearer ${key}` } });
      expect((await get(appA, apiKey.key)).statusCode).toBe(200);
      expect((await get(appB, apiKey.key)).statusCode).toBe(200);
      // Runner B deletes the key; runner A's very next request with it fails.
      const del = await appB.inject({
        method: 'DELETE',
        url: `/api/settings/api-keys/${apiKey.id}?workspaceId=acme.com`,
        headers: { authorization: `Bearer ${spare.key}` },
      });
      expect(del.statusCode).toBe(200);
      const res = await get(appA, apiKey.key);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'AUTH_INVALID_KEY', status: 401 });
    } finally {
      await appA.close();
      await appB.close();
      await engineA.close();
      await engineB.close();
    }
  });

  it('lists keys masked, shows the full key once, and reports lastUsedAt before any flush', async () => {
    const t = await startTestApp({ dialect });
    try {
      const created = await t.request(`/api/settings/api-keys?workspaceId=${t.workspaceId}`, {
        method: 'POST',
        json: { name: 'Zapier', workspaceId: t.workspaceId },
      });
      expect(created.status).toBe(200);
      const body = (await created.json()) as { success: boolean; apiKey: { id: string; name: string; key: string; isActive: boolean; createdAt: string } };
      expect(body.success).toBe(true);
      expect(body.apiKey).toMatchObject({ name: 'Zapier', isActive: true });
      expect(body.apiKey.key).toMatch(/^sk-[A-Za-z0-9_-]{43}$/);
      expect(Object.keys(body.apiKey).sort()).toEqual(['createdAt', 'id', 'isActive', 'key', 'name']);
      // The new key works.
      expect((await t.request(`/api/settings?workspaceId=${t.workspaceId}`, { key: body.apiKey.key })).status).toBe(200);

      const list = await t.request(`/api/settings/api-keys?workspaceId=${t.workspaceId}`);
      const { apiKeys } = (await list.json()) as {
        apiKeys: Array<{ id: string; name: string; key: string; lastUsedAt: string | null; isActive: boolean; createdAt: string }>;
      };
      expect(apiKeys.map((k) => k.name)).toEqual(['Default key', 'Zapier']);
      const text = JSON.stringify(apiKeys);
      expect(text).not.toContain(t.apiKey);
      expect(text).not.toContain(body.apiKey.key);
      for (const k of apiKeys) {
        expect(Object.keys(k).sort()).toEqual(['createdAt', 'createdBy', 'id', 'isActive', 'key', 'lastUsedAt', 'name']);
        expect(k.key).toMatch(/^sk-.{4}….{4}$/);
        // Both keys were used by now (this listing used the first).
        expect(Date.parse(k.lastUsedAt ?? '')).not.toBeNaN();
      }
      expect(apiKeys[1]?.key).toBe(`sk-${body.apiKey.key.slice(3, 7)}…${body.apiKey.key.slice(-4)}`);
      // Who made each: the workspace's first key came from the CLI (chs init), Zapier's from that key's request.
      expect(apiKeys.map((k) => (k as { createdBy?: string | null }).createdBy)).toEqual(['cli', t.apiKeyId]);
      // Nothing was written per request: the stored lastUsedAt is still empty until the flush on close.
      const stored = await t.engine.store.db.selectFrom('api_keys').select('last_used_at').execute();
      expect(stored.every((r) => r.last_used_at === null)).toBe(true);

      await expectError(await t.request(`/api/settings/api-keys?workspaceId=${t.workspaceId}`, { method: 'POST', json: {} }), 400, 'VALIDATION_ERROR');
      await expectError(
        await t.request(`/api/settings/api-keys?workspaceId=${t.workspaceId}`, { method: 'POST', json: { name: '' } }),
        400,
        'VALIDATION_ERROR',
      );
      await expectError(
        await t.request(`/api/settings/api-keys?workspaceId=${t.workspaceId}`, { method: 'POST', json: { name: '   ' } }),
        400,
        'INVALID_INPUT',
      );
      await expectError(
        await t.request(`/api/settings/api-keys?workspaceId=${t.workspaceId}`, { method: 'POST', json: { name: 'x'.repeat(101) } }),
        400,
        'VALIDATION_ERROR',
      );
    } finally {
      await t.app.close(); // flushes lastUsedAt
      const stored = await t.engine.store.db.selectFrom('api_keys').select('last_used_at').execute();
      expect(stored.every((r) => r.last_used_at !== null)).toBe(true);
      await t.engine.close();
    }
  });
});
