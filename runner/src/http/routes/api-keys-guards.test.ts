/**
 * Issue 16, keys, through HTTP: a key cannot mint keys without end, each key says which key made
 * it, every key of a workspace can be revoked at once, and new keys bring no new minute budget.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { startTestApp } from '../testing.js';

afterAll(() => dropTestSchemas());

const dialects = await testDialects();

interface KeyRow {
  id: string;
  name: string;
  isActive: boolean;
  createdBy: string | null;
}

describe.each(dialects.map((d) => [d.name, d] as const))('API key guards on %s', (_name, dialect) => {
  it('caps the active keys (409 KEY_LIMIT_REACHED), records who made each, and revokes them all at once, the caller’s too', async () => {
    const t = await startTestApp({ dialect, config: { maxApiKeys: 3 } });
    try {
      const q = `?workspaceId=${t.workspaceId}`;
      const mint = async (name: string, key: string) => {
        const res = await t.request(`/api/settings/api-keys${q}`, { method: 'POST', json: { name }, key });
        return { res, body: (await res.json()) as { apiKey: { id: string; key: string }; code?: string; error?: string } };
      };
      // The leaked key mints a key, which mints another.
      const second = await mint('second', t.apiKey);
      expect(second.res.status).toBe(200);
      const third = await mint('third', second.body.apiKey.key);
      expect(third.res.status).toBe(200);
      const fourth = await mint('fourth', third.body.apiKey.key);
      expect(fourth.res.status).toBe(409);
      expect(fourth.body).toMatchObject({ code: 'KEY_LIMIT_REACHED', status: 409 });
      expect(fourth.body.error).toContain('at most 3');
      expect(fourth.res.headers.get('x-ratelimit-limit')).not.toBeNull();

      const list = async () =>
        ((await (await t.request(`/api/settings/api-keys${q}`, { key: third.body.apiKey.key })).json()) as { apiKeys: KeyRow[] }).apiKeys;
      expect((await list()).map((k) => [k.name, k.createdBy])).toEqual([
        ['Default key', 'cli'],
        ['second', t.apiKeyId],
        ['third', second.body.apiKey.id],
      ]);

      // Deleting one frees a slot, and the answer names the keys it made, which outlive it.
      const del = await t.request(`/api/settings/api-keys/${second.body.apiKey.id}${q}`, { method: 'DELETE' });
      expect(del.status).toBe(200);
      expect(((await del.json()) as { message: string }).message).toBe(
        `API key deleted. Still active, made by it: ${third.body.apiKey.id}; delete them too, or revoke every key with POST /settings/api-keys/revoke-all`,
      );
      const fifth = await mint('fifth', t.apiKey);
      expect(fifth.res.status).toBe(200);

      // Revoke all, called with the third key: every key, that one included, is refused at once.
      const revoke = await t.request(`/api/settings/api-keys/revoke-all${q}`, { method: 'POST', key: third.body.apiKey.key });
      expect(revoke.status).toBe(200);
      const revoked = (await revoke.json()) as { success: boolean; message: string; revoked: string[] };
      expect(revoked.success).toBe(true);
      expect(revoked.revoked.sort()).toEqual([t.apiKeyId, third.body.apiKey.id, fifth.body.apiKey.id].sort());
      expect(revoked.message).toContain('chs keys create');
      for (const key of [t.apiKey, third.body.apiKey.key, fifth.body.apiKey.key]) {
        const res = await t.request(`/api/settings${q}`, { key });
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ code: 'AUTH_INVALID_KEY' });
      }
      // They stay on record, inactive.
      const rows = await t.engine.store.db.selectFrom('api_keys').select(['name', 'is_active']).orderBy('created_at').execute();
      expect(rows).toEqual([
        { name: 'Default key', is_active: 0 },
        { name: 'third', is_active: 0 },
        { name: 'fifth', is_active: 0 },
      ]);
    } finally {
      await t.close();
    }
  });

  it('counts all keys of a workspace in one minute window, and the headers show the tightest window', async () => {
    // Windows are aligned to the clock's minute: start clear of its end so all requests share one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_100 - intoMinute));
    const t = await startTestApp({ dialect, config: { rateLimits: { perKeyMinute: 5, perKeyHour: 1000, perWorkspaceMinute: 8, perWorkspaceDay: 10_000 } } });
    try {
      const q = `?workspaceId=${t.workspaceId}`;
      // Minting keys takes from the same budget (2 requests).
      const keys: string[] = [];
      for (const name of ['b', 'c']) {
        const res = await t.request(`/api/settings/api-keys${q}`, { method: 'POST', json: { name } });
        keys.push(((await res.json()) as { apiKey: { key: string } }).apiKey.key);
      }
      // The owner's key has used 2 of its 5 and the workspace 2 of its 8: the key's window is tighter.
      let res = await t.request(`/api/settings${q}`);
      expect(res.status).toBe(200);
      expect([res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining')]).toEqual(['5', '2']);
      // A fresh key: 4 of its 5 left, 4 of the workspace's 8 left.
      res = await t.request(`/api/settings${q}`, { key: keys[0]! });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
      res = await t.request(`/api/settings${q}`, { key: keys[1]! });
      expect([res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining')]).toEqual(['8', '3']);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await t.request(`/api/settings${q}`, { key: keys[i % 2]! })).status);
      // Three more fit in the workspace's 8; the fourth is refused though each key has used at most 3 of its 5.
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await t.request(`/api/settings${q}`, { key: keys[1]! });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
      expect([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')]).toEqual(['8', '0']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });
});
