/**
 * The single-use `state` of an HTTP sign-in, over SQLite and PostgreSQL: only its hash is stored,
 * the verifier only sealed; it is consumed once, bound to its workspace and provider, refused
 * after 10 minutes; two callbacks racing with it cannot both win; long-dead states are purged.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChsError } from '../errors.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Db } from '../store/database.js';
import { consumeOAuthState, createOAuthState, OAUTH_STATE_TTL_MS } from './oauth-states.js';

afterAll(() => dropTestSchemas());

async function addWorkspace(db: Db, id: string): Promise<void> {
  const at = new Date().toISOString();
  await db.insertInto('workspaces').values({ id, name: id, plan: 'free', billing_status: 'active', created_at: at, updated_at: at }).execute();
}

const refusal = async (p: Promise<unknown>): Promise<unknown> => {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as ChsError | undefined;
  expect(err?.code).toBe('OAUTH_FAILED');
  return err?.details?.reason;
};

describe('oauth states', async () => {
  for (const dialect of await testDialects()) {
    describe(dialect.name, () => {
      const key = randomBytes(32);
      const t0 = new Date('2026-01-10T12:00:00.000Z');
      const at = (ms: number) => new Date(t0.getTime() + ms);
      const input = {
        workspaceId: 'acme.test',
        provider: 'google',
        codeVerifier: 'verifier-123',
        redirectUri: 'https://h.example/api/integrations/google/callback',
        userId: 'usr_1',
        now: t0,
      };

      it('stores a hash and a sealed verifier; consumes once, within 10 minutes, for its provider only', async () => {
        const store = await dialect.open();
        try {
          const db = store.db;
          await addWorkspace(db, 'acme.test');
          const { state, expiresAt } = await createOAuthState(db, key, input);
          expect(expiresAt).toBe(at(OAUTH_STATE_TTL_MS).toISOString());
          const row = await db.selectFrom('oauth_states').selectAll().executeTakeFirstOrThrow();
          expect(JSON.stringify(row)).not.toContain(state);
          expect(JSON.stringify(row)).not.toContain('verifier-123');

          expect(await refusal(consumeOAuthState(db, key, { state, provider: 'hubspot', now: at(1000) }))).toBe('unknown');
          expect(await refusal(consumeOAuthState(db, key, { state: `${state}x`, provider: 'google', now: at(1000) }))).toBe('unknown');
          expect(await refusal(consumeOAuthState(db, key, { state: 'x'.repeat(5000), provider: 'google', now: at(1000) }))).toBe('unknown');
          expect(await consumeOAuthState(db, key, { state, provider: 'google', now: at(OAUTH_STATE_TTL_MS - 1) })).toEqual({
            workspaceId: 'acme.test',
            provider: 'google',
            codeVerifier: 'verifier-123',
            redirectUri: input.redirectUri,
            userId: 'usr_1',
          });
          expect(await refusal(consumeOAuthState(db, key, { state, provider: 'google', now: at(OAUTH_STATE_TTL_MS - 1) }))).toBe('used');

          const late = await createOAuthState(db, key, input);
          expect(await refusal(consumeOAuthState(db, key, { state: late.state, provider: 'google', now: at(OAUTH_STATE_TTL_MS) }))).toBe('expired');
        } finally {
          await store.close();
        }
      });

      it('two callbacks racing with one state: exactly one wins', async () => {
        const store = await dialect.open();
        try {
          const db = store.db;
          await addWorkspace(db, 'acme.test');
          const { state } = await createOAuthState(db, key, input);
          const results = await Promise.allSettled(Array.from({ length: 4 }, () => consumeOAuthState(db, key, { state, provider: 'google', now: at(1000) })));
          expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
          for (const r of results) if (r.status === 'rejected') expect((r.reason as ChsError).details?.reason).toBe('used');
        } finally {
          await store.close();
        }
      });

      it('a verifier sealed for one workspace does not open for another; states a day past expiry are purged; a deleted workspace takes its states', async () => {
        const store = await dialect.open();
        try {
          const db = store.db;
          await addWorkspace(db, 'acme.test');
          await addWorkspace(db, 'evil.test');
          const a = await createOAuthState(db, key, input);
          const b = await createOAuthState(db, key, { ...input, workspaceId: 'evil.test' });
          // A row's sealed verifier moved to another workspace's state fails to open.
          const sealed = await db.selectFrom('oauth_states').select('verifier_enc').where('workspace_id', '=', 'acme.test').executeTakeFirstOrThrow();
          await db.updateTable('oauth_states').set({ verifier_enc: sealed.verifier_enc }).where('workspace_id', '=', 'evil.test').execute();
          const err = (await consumeOAuthState(db, key, { state: b.state, provider: 'google', now: at(1000) }).catch((e: unknown) => e)) as ChsError;
          expect(err.code).toBe('CREDENTIALS_UNREADABLE');

          await createOAuthState(db, key, { ...input, now: at(OAUTH_STATE_TTL_MS + 24 * 3600_000 + 1) });
          const left = await db.selectFrom('oauth_states').select('workspace_id').execute();
          expect(left).toHaveLength(1); // a and b (expired a day ago) purged, the new one kept
          expect(await refusal(consumeOAuthState(db, key, { state: a.state, provider: 'google', now: at(1000) }))).toBe('unknown');

          await db.deleteFrom('workspaces').where('id', '=', 'acme.test').execute();
          expect(await db.selectFrom('oauth_states').select('workspace_id').execute()).toHaveLength(0);
        } finally {
          await store.close();
        }
      });
    });
  }
});
