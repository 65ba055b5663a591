/**
 * Issue 16, over every dialect: the cap on active keys (also when two creations race for the last
 * slot), who made each key, revoking every key at once, the confirmed change of a user's address,
 * and which senders a workspace may use.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { assertSenderAllowed, isSenderAllowed } from '../settings/sender.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import {
  confirmEmailChange,
  countActiveApiKeys,
  createApiKey,
  createWorkspace,
  getOwner,
  listApiKeys,
  requestEmailChange,
  revokeAllApiKeys,
  verifyApiKey,
} from './index.js';

afterAll(() => dropTestSchemas());

const dialects = await testDialects();

describe.each(dialects.map((d) => [d.name, d] as const))('key and address guards on %s', (_name, dialect) => {
  it('caps the active keys of a workspace, records who made each, and revokes them all at once', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      const { apiKey: first } = await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      const { apiKey: globex } = await createWorkspace(db, { domain: 'globex.com', name: 'Globex', ownerEmail: 'hank@globex.com' });
      expect(first.createdBy).toBe('cli');

      const later = (s: number) => new Date(Date.now() + s * 1000);
      const second = await createApiKey(db, { workspaceId: 'acme.com', name: 'made by a key', createdBy: first.id, maxActive: 3, now: later(1) });
      const third = await createApiKey(db, { workspaceId: 'acme.com', name: 'made by the second', createdBy: second.id, maxActive: 3, now: later(2) });
      expect(await countActiveApiKeys(db, 'acme.com')).toBe(3);
      await expect(createApiKey(db, { workspaceId: 'acme.com', name: 'one too many', createdBy: third.id, maxActive: 3 })).rejects.toMatchObject({
        code: 'KEY_LIMIT_REACHED',
        details: { active: 3, maxActive: 3 },
      });
      expect((await listApiKeys(db, 'acme.com')).map((k) => [k.name, k.createdBy])).toEqual([
        ['Default key', 'cli'],
        ['made by a key', first.id],
        ['made by the second', second.id],
      ]);

      // The default cap is 20 active keys.
      for (let i = 0; i < 17; i++) await createApiKey(db, { workspaceId: 'acme.com', name: `k${i}` });
      await expect(createApiKey(db, { workspaceId: 'acme.com', name: 'twenty-first' })).rejects.toMatchObject({ code: 'KEY_LIMIT_REACHED' });

      // Revoke all: every key of acme.com is refused, stays listed inactive; globex.com is untouched.
      const revoked = await revokeAllApiKeys(db, 'acme.com');
      expect(revoked).toHaveLength(20);
      expect(revoked).toContain(first.id);
      for (const k of [first, second, third]) expect(await verifyApiKey(db, k.key)).toBeNull();
      expect((await verifyApiKey(db, globex.key))?.id).toBe(globex.id);
      const listed = await listApiKeys(db, 'acme.com');
      expect(listed).toHaveLength(20);
      expect(listed.every((k) => !k.isActive)).toBe(true);
      expect(await revokeAllApiKeys(db, 'acme.com')).toEqual([]);
      // Inactive keys do not count against the cap.
      expect((await createApiKey(db, { workspaceId: 'acme.com', name: 'fresh' })).isActive).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('lets exactly one of two creations racing for the last free slot through', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => createApiKey(db, { workspaceId: 'acme.com', name: `race ${i}`, maxActive: 3 })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'KEY_LIMIT_REACHED' });
      expect(await countActiveApiKeys(db, 'acme.com')).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('changes a user’s address only when the token sent to the new one comes back, once, before it expires', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      const { owner } = await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      await createWorkspace(db, { domain: 'globex.com', name: 'Globex', ownerEmail: 'hank@globex.com' });
      const t0 = new Date('2030-01-01T10:00:00.000Z');

      const req = await requestEmailChange(db, owner.id, 'Ana.New@Elsewhere.io', { now: t0 });
      if (req.status !== 'pending') throw new Error('expected a pending change');
      expect(req).toMatchObject({ email: 'ana.new@elsewhere.io', expiresAt: '2030-01-02T10:00:00.000Z' });
      expect(req.token).toMatch(/^ec_[A-Za-z0-9_-]{32}$/);
      // Until confirmed, the owner (where alerts go) keeps the confirmed address; only the hash is stored.
      expect(await getOwner(db, 'acme.com')).toMatchObject({ email: 'ana@acme.com', pendingEmail: 'ana.new@elsewhere.io' });
      const row = await db.selectFrom('users').selectAll().where('id', '=', owner.id).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(req.token);

      // A token of another workspace, a made-up one, an expired one: refused, nothing changes.
      await expect(confirmEmailChange(db, 'globex.com', req.token, t0)).rejects.toMatchObject({ code: 'CONFIRMATION_INVALID' });
      await expect(confirmEmailChange(db, 'acme.com', `ec_${'A'.repeat(32)}`, t0)).rejects.toMatchObject({ code: 'CONFIRMATION_INVALID' });
      await expect(confirmEmailChange(db, 'acme.com', 'garbage', t0)).rejects.toMatchObject({ code: 'CONFIRMATION_INVALID' });
      await expect(confirmEmailChange(db, 'acme.com', req.token, new Date('2030-01-02T10:00:00.000Z'))).rejects.toMatchObject({ code: 'CONFIRMATION_INVALID' });
      expect((await getOwner(db, 'acme.com'))?.email).toBe('ana@acme.com');

      // A newer request replaces the older token.
      const again = await requestEmailChange(db, owner.id, 'ana.new@elsewhere.io', { now: t0 });
      if (again.status !== 'pending') throw new Error('expected a pending change');
      await expect(confirmEmailChange(db, 'acme.com', req.token, t0)).rejects.toMatchObject({ code: 'CONFIRMATION_INVALID' });
      const confirmed = await confirmEmailChange(db, 'acme.com', again.token, new Date('2030-01-02T09:59:59.000Z'));
      expect(confirmed).toMatchObject({ email: 'ana.new@elsewhere.io', pendingEmail: null });
      expect(await getOwner(db, 'acme.com')).toMatchObject({ email: 'ana.new@elsewhere.io', pendingEmail: null, pendingEmailExpiresAt: null });
      // Single use.
      await expect(confirmEmailChange(db, 'acme.com', again.token, t0)).rejects.toMatchObject({ code: 'CONFIRMATION_INVALID' });

      // Asking for the confirmed address drops a pending change.
      await requestEmailChange(db, owner.id, 'third@elsewhere.io', { now: t0 });
      expect(await requestEmailChange(db, owner.id, 'ANA.NEW@elsewhere.io')).toEqual({ status: 'unchanged', email: 'ana.new@elsewhere.io' });
      expect((await getOwner(db, 'acme.com'))?.pendingEmail).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('refuses a pending address another user of the workspace has, at request and at confirmation', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      const { owner } = await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      const addBo = () =>
        db
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
      const req = await requestEmailChange(db, owner.id, 'bo@acme.com');
      if (req.status !== 'pending') throw new Error('expected a pending change');
      await addBo();
      await expect(confirmEmailChange(db, 'acme.com', req.token)).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(requestEmailChange(db, owner.id, 'bo@acme.com')).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(requestEmailChange(db, owner.id, 'not an address')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    } finally {
      await store.close();
    }
  });

  it('allows senders on the workspace’s own domains, their subdomains and the allow-list only', async () => {
    const store = await dialect.open();
    try {
      const db = store.db;
      await createWorkspace(db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      await db.insertInto('workspace_domains').values({ workspace_id: 'acme.com', domain: 'acme-mail.io' }).execute();
      for (const ok of ['notifications@acme.com', 'CS@Mail.Acme.com', 'x@acme-mail.io'])
        await expect(assertSenderAllowed(db, 'acme.com', ok)).resolves.toBeUndefined();
      for (const bad of ['ceo@bank.com', 'x@notacme.com', 'x@acme.com.evil.io', 'x@evil.io']) {
        await expect(assertSenderAllowed(db, 'acme.com', bad), bad).rejects.toMatchObject({ code: 'SENDER_NOT_ALLOWED' });
      }
      await expect(assertSenderAllowed(db, 'acme.com', 'alerts@vendor.io', ['vendor.io'])).resolves.toBeUndefined();
      await expect(assertSenderAllowed(db, 'acme.com', 'x@eu.vendor.io', ['vendor.io'])).resolves.toBeUndefined();
      await expect(assertSenderAllowed(db, 'acme.com', 'bot@relay.net', ['bot@relay.net'])).resolves.toBeUndefined();
      await expect(assertSenderAllowed(db, 'acme.com', 'other@relay.net', ['bot@relay.net'])).rejects.toMatchObject({ code: 'SENDER_NOT_ALLOWED' });
    } finally {
      await store.close();
    }
  });
});

describe('isSenderAllowed', () => {
  it('matches whole domain labels, never a suffix of a label', () => {
    expect(isSenderAllowed('a@acme.com', ['acme.com'])).toBe(true);
    expect(isSenderAllowed('a@evilacme.com', ['acme.com'])).toBe(false);
    expect(isSenderAllowed('a@acme.com.', ['acme.com'])).toBe(true);
    expect(isSenderAllowed('acme.com', ['acme.com'])).toBe(false);
    expect(isSenderAllowed('a@', ['acme.com'])).toBe(false);
  });
});
