import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { isChsError } from '../errors.js';
import { getSettings } from '../settings/settings.js';
import { sha256Hex } from '../util/ids.js';
import {
  completeOnboarding,
  createApiKey,
  createWorkspace,
  deleteApiKey,
  getOwner,
  getWorkspace,
  KeyUsageTracker,
  listApiKeys,
  listWorkspaceAdmins,
  maskApiKey,
  normaliseWorkspaceDomain,
  setApiKeyActive,
  updateUserProfile,
  verifyApiKey,
} from './index.js';

afterAll(() => dropTestSchemas());

describe('normaliseWorkspaceDomain', () => {
  it('lower-cases and accepts registrable domains', () => {
    expect(normaliseWorkspaceDomain(' ACME.com ')).toBe('acme.com');
    expect(normaliseWorkspaceDomain('acme.co.uk')).toBe('acme.co.uk');
  });
  it.each(['mail.acme.com', 'com', 'co.uk', 'localhost', '1.2.3.4', 'not a domain', 'acme..com', '', 'acme'])('refuses %j', (d) => {
    let err: unknown;
    try {
      normaliseWorkspaceDomain(d);
    } catch (e) {
      err = e;
    }
    expect(isChsError(err, 'INVALID_DOMAIN')).toBe(true);
  });
  it('names the registrable domain of a subdomain', () => {
    expect(() => normaliseWorkspaceDomain('mail.eu.acme.co.uk')).toThrow(/acme\.co\.uk/);
  });
});

const dialects = await testDialects();

describe.each(dialects.map((d) => [d.name, d] as const))('workspace store on %s', (_name, dialect) => {
  it('creates a workspace with owner, domain row, default settings and a first key', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      const now = new Date('2024-05-01T10:00:00.000Z');
      const created = await createWorkspace(db, { domain: 'Acme.com', name: 'Acme', ownerEmail: 'Ana@Acme.com', now });
      expect(created.workspace).toMatchObject({ id: 'acme.com', name: 'Acme', createdAt: now.toISOString() });
      expect(created.owner).toMatchObject({ email: 'ana@acme.com', name: 'ana', role: 'owner', hasCompletedOnboarding: false });
      expect(created.apiKey.key).toMatch(/^sk-[A-Za-z0-9_-]{43}$/);
      expect(created.apiKey.preview).toBe(`sk-${created.apiKey.key.slice(3, 7)}…${created.apiKey.key.slice(-4)}`);

      const domains = await db.selectFrom('workspace_domains').selectAll().execute();
      expect(domains).toEqual([{ workspace_id: 'acme.com', domain: 'acme.com' }]);
      const stored = await db.selectFrom('settings').select('data_json').where('workspace_id', '=', 'acme.com').executeTakeFirstOrThrow();
      expect(JSON.parse(stored.data_json)).toMatchObject({ timezone: 'UTC', currency: 'USD', riskThreshold: 40 });
      expect((await getSettings(db, 'acme.com')).workspaceName).toBe('Acme');

      // Only the hash and the preview are stored.
      const keyRow = await db.selectFrom('api_keys').selectAll().executeTakeFirstOrThrow();
      expect(keyRow.key_hash).toBe(sha256Hex(created.apiKey.key));
      expect(JSON.stringify(keyRow)).not.toContain(created.apiKey.key);

      expect((await getWorkspace(db, 'acme.com'))?.name).toBe('Acme');
      expect(await getWorkspace(db, 'nope.com')).toBeNull();

      await expect(createWorkspace(db, { domain: 'acme.com', name: 'Again', ownerEmail: 'b@acme.com' })).rejects.toMatchObject({ code: 'WORKSPACE_EXISTS' });
      await expect(createWorkspace(db, { domain: 'www.other.com', name: 'X', ownerEmail: 'b@other.com' })).rejects.toMatchObject({ code: 'INVALID_DOMAIN' });
      await expect(createWorkspace(db, { domain: 'other.com', name: 'X', ownerEmail: 'not-an-address' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(await getWorkspace(db, 'other.com')).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('verifies, lists masked, deactivates and deletes keys', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      const { apiKey: first, owner } = await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      const { apiKey: other } = await createWorkspace(db, { domain: 'globex.com', name: 'Globex', ownerEmail: 'hank@globex.com' });
      // A second later: two keys made in the same millisecond list in id order, which is random.
      const second = await createApiKey(db, { workspaceId: 'acme.com', name: 'CI', now: new Date(Date.now() + 1000) });
      expect(second.userId).toBe(owner.id);
      expect(second.key).not.toBe(first.key);

      expect((await verifyApiKey(db, first.key))?.id).toBe(first.id);
      expect((await verifyApiKey(db, other.key))?.workspaceId).toBe('globex.com');
      expect(await verifyApiKey(db, 'sk-' + 'A'.repeat(43))).toBeNull();
      expect(await verifyApiKey(db, 'garbage')).toBeNull();

      const listed = await listApiKeys(db, 'acme.com');
      expect(listed.map((k) => k.name)).toEqual(['Default key', 'CI']);
      for (const k of listed) {
        expect(k.preview).toMatch(/^sk-.{4}….{4}$/);
        expect(k).not.toHaveProperty('key');
      }

      await setApiKeyActive(db, 'acme.com', second.id, false);
      expect(await verifyApiKey(db, second.key)).toBeNull();
      await setApiKeyActive(db, 'acme.com', second.id, true);
      expect((await verifyApiKey(db, second.key))?.id).toBe(second.id);

      // Another workspace cannot delete it.
      await expect(deleteApiKey(db, 'globex.com', second.id)).rejects.toMatchObject({ code: 'KEY_NOT_FOUND' });
      await deleteApiKey(db, 'acme.com', second.id);
      expect(await verifyApiKey(db, second.key)).toBeNull();
      await expect(deleteApiKey(db, 'acme.com', second.id)).rejects.toMatchObject({ code: 'KEY_NOT_FOUND' });
      await expect(createApiKey(db, { workspaceId: 'acme.com', name: '  ' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(createApiKey(db, { workspaceId: 'nope.com', name: 'x' })).rejects.toMatchObject({ code: 'WORKSPACE_NOT_FOUND' });
    } finally {
      await store.close();
    }
  });

  it('records lastUsedAt in memory and flushes it forward only', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      const { apiKey } = await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      const tracker = new KeyUsageTracker(db);
      const t1 = new Date('2024-05-01T10:00:00.000Z');
      const t2 = new Date('2024-05-01T10:05:00.000Z');
      tracker.touch(apiKey, t2);
      tracker.touch(apiKey, t1); // older: ignored
      expect(tracker.pendingLastUsed(apiKey.id)).toBe(t2.toISOString());
      // Nothing written yet.
      expect((await listApiKeys(db, 'acme.com'))[0]?.lastUsedAt).toBeNull();

      expect(await tracker.flush()).toBe(1);
      expect(tracker.pendingCount).toBe(0);
      expect((await listApiKeys(db, 'acme.com'))[0]?.lastUsedAt).toBe(t2.toISOString());
      expect((await getOwner(db, 'acme.com'))?.lastLoginAt).toBe(t2.toISOString());

      // A second runner flushing an older time does not move it back.
      const other = new KeyUsageTracker(db);
      other.touch(apiKey, t1);
      await other.stop();
      expect((await listApiKeys(db, 'acme.com'))[0]?.lastUsedAt).toBe(t2.toISOString());
    } finally {
      await store.close();
    }
  });

  it('updates the profile and onboarding of a user', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      const { owner } = await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com', ownerName: 'Ana' });
      await db
        .insertInto('users')
        .values({
          id: 'usr_b',
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
      const u = await updateUserProfile(db, owner.id, { title: 'VP CS', email: 'Ana.Lima@acme.com' });
      expect(u).toMatchObject({ name: 'Ana', title: 'VP CS', email: 'ana.lima@acme.com' });
      await expect(updateUserProfile(db, owner.id, { email: 'bo@acme.com' })).rejects.toMatchObject({ code: 'CONFLICT' });
      expect((await completeOnboarding(db, owner.id)).hasCompletedOnboarding).toBe(true);
      expect((await completeOnboarding(db, owner.id)).hasCompletedOnboarding).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe.each(dialects.map((d) => [d.name, d] as const))('workspace admins on %s', (_name, dialect) => {
  it('lists the owner and admins of the workspace, earliest first, never members or another workspace’s', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      const { owner } = await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      await createWorkspace(db, { domain: 'globex.com', name: 'Globex', ownerEmail: 'gil@globex.com' });
      const user = (id: string, workspace_id: string, email: string, role: string, at: string) => ({
        id,
        workspace_id,
        email,
        name: id,
        title: '',
        role,
        has_completed_onboarding: 0,
        created_at: at,
        last_login_at: null,
      });
      await db
        .insertInto('users')
        .values([
          user('usr_member', 'acme.com', 'mo@acme.com', 'member', '2020-01-01T00:00:00.000Z'),
          user('usr_admin', 'acme.com', 'ada@acme.com', 'admin', '2020-01-02T00:00:00.000Z'),
          user('usr_other_admin', 'globex.com', 'oz@globex.com', 'admin', '2020-01-01T00:00:00.000Z'),
        ])
        .execute();
      expect((await listWorkspaceAdmins(db, 'acme.com')).map((u) => [u.email, u.role])).toEqual([
        ['ada@acme.com', 'admin'],
        [owner.email, 'owner'],
      ]);
      // A workspace whose users all lost their roles still has its earliest user to tell.
      await db.updateTable('users').set({ role: 'member' }).where('workspace_id', '=', 'acme.com').execute();
      expect((await listWorkspaceAdmins(db, 'acme.com')).map((u) => u.email)).toEqual(['mo@acme.com']);
      expect(await listWorkspaceAdmins(db, 'initech.com')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('maskApiKey', () => {
  it('keeps the prefix, 4 leading and 4 trailing characters', () => {
    expect(maskApiKey('sk-abcdefghijklmnopqrstuvwxyz')).toBe('sk-abcd…wxyz');
  });
});
