import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/database.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { ApiKeyVerifier, createApiKey, createWorkspace, deleteApiKey, setApiKeyActive } from './index.js';

afterAll(() => dropTestSchemas());
const dialects = await testDialects();

/** The store with its data version under the test's control, and the lookups it serves counted. */
function controlled(store: Store): { store: Pick<Store, 'db' | 'dataVersion'>; lookups: () => number; setVersion(v: string | undefined): void } {
  let version: string | undefined = 'v1';
  let lookups = 0;
  const db = store.db.withPlugin({
    transformQuery: (args) => {
      if (args.node.kind === 'SelectQueryNode') lookups += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { store: { db, dataVersion: () => version }, lookups: () => lookups, setVersion: (v) => (version = v) };
}

describe.each(dialects.map((d) => [d.name, d] as const))('ApiKeyVerifier on %s', (_name, dialect) => {
  it('remembers an active key while the data version holds, looks again once it moves', async () => {
    const store = await dialect.open();
    try {
      const { apiKey } = await createWorkspace(store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      const c = controlled(store);
      const verifier = new ApiKeyVerifier(c.store);
      expect((await verifier.verify(apiKey.key))?.id).toBe(apiKey.id);
      expect((await verifier.verify(apiKey.key))?.id).toBe(apiKey.id);
      expect(c.lookups()).toBe(1);
      // Deleted behind the verifier's back with the version held still: the kept answer shows.
      await deleteApiKey(store.db, 'acme.com', apiKey.id);
      expect((await verifier.verify(apiKey.key))?.id).toBe(apiKey.id);
      // The version moves (what any write does): looked up again, refused.
      c.setVersion('v2');
      expect(await verifier.verify(apiKey.key)).toBeNull();
      expect(c.lookups()).toBe(2);
      // Unknown keys are looked up every time, never kept; malformed ones never reach the store.
      expect(await verifier.verify(apiKey.key)).toBeNull();
      expect(c.lookups()).toBe(3);
      expect(await verifier.verify('not-a-key')).toBeNull();
      expect(c.lookups()).toBe(3);
      // No data version (PostgreSQL): every call is a lookup.
      const other = await createApiKey(store.db, { workspaceId: 'acme.com', name: 'second' });
      c.setVersion(undefined);
      await verifier.verify(other.key);
      await verifier.verify(other.key);
      expect(c.lookups()).toBe(5);
    } finally {
      await store.close();
    }
  });

  it('does not keep an answer read while the version moved', async () => {
    const store = await dialect.open();
    try {
      const { apiKey } = await createWorkspace(store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      const c = controlled(store);
      const verifier = new ApiKeyVerifier(c.store);
      // Two verifications in flight: the second sees a newer version before the first's lookup ends.
      const first = verifier.verify(apiKey.key);
      c.setVersion('v2');
      const second = verifier.verify(apiKey.key);
      expect((await first)?.id).toBe(apiKey.id);
      expect((await second)?.id).toBe(apiKey.id);
      expect(c.lookups()).toBe(2);
      await verifier.verify(apiKey.key);
      expect(c.lookups()).toBe(2);
    } finally {
      await store.close();
    }
  });
});

describe('ApiKeyVerifier on a SQLite file shared by two runners', () => {
  it('refuses a key at once when another connection deletes or deactivates it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-verifier-'));
    const url = join(dir, 'chs.db');
    const a = await openStore({ url });
    const b = await openStore({ url });
    try {
      const { apiKey } = await createWorkspace(a.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
      const second = await createApiKey(a.db, { workspaceId: 'acme.com', name: 'second' });
      const verifier = new ApiKeyVerifier(a);
      expect((await verifier.verify(apiKey.key))?.id).toBe(apiKey.id);
      expect((await verifier.verify(second.key))?.id).toBe(second.id);
      await setApiKeyActive(b.db, 'acme.com', second.id, false);
      expect(await verifier.verify(second.key)).toBeNull();
      await deleteApiKey(b.db, 'acme.com', apiKey.id);
      expect(await verifier.verify(apiKey.key)).toBeNull();
      await setApiKeyActive(b.db, 'acme.com', second.id, true);
      expect((await verifier.verify(second.key))?.id).toBe(second.id);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
