/**
 * A run that stops after storing some batches (killed, or failed on a full disk) never rebuilds
 * the health of the clients it wrote; the run that resumes after it does.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fixturePath, SMALL_FIXTURE } from '@chs/fixtures';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { createEngine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { mboxSource } from '../source/index.js';

afterAll(dropTestSchemas);

describe.each(await testDialects())('resume after an unfinished run on $name', (dialect) => {
  it('rescores the clients the unfinished run stored', async () => {
    const engine = await createEngine({ database: await dialect.open(), clock: () => new Date('2025-04-01T00:00:00Z') });
    try {
      const db = engine.store.db;
      await createWorkspace(db, { domain: 'ourco.com', name: 'Our Co', ownerEmail: 'lead@ourco.com' });
      const source = () => mboxSource(fixturePath(SMALL_FIXTURE.mbox));
      // keepCursor: the cursor stays after the last batch, as it does when a process dies there.
      const first = await engine.ingest({ workspaceId: 'ourco.com', source: source(), workers: 0, batchSize: 10, keepCursor: true });
      expect(first.health.clientsScored).toBe(4);
      // The process was killed after its last batch committed, before the health rebuild.
      await db.updateTable('ingestion_runs').set({ status: 'running', completed_at: null }).execute();
      await db.deleteFrom('health_snapshots').execute();

      const resumed = await engine.ingest({ workspaceId: 'ourco.com', source: source(), workers: 0, batchSize: 10 });
      expect(resumed.resumedFrom).not.toBeNull();
      expect(resumed.itemsProcessed).toBe(0);
      expect(resumed.health.clientsScored).toBe(4);
      const scored = await db.selectFrom('health_snapshots').select('client_id').distinct().execute();
      expect(scored).toHaveLength(4);

      // Once a run has finished, nothing is carried over again.
      const again = await engine.ingest({ workspaceId: 'ourco.com', source: source(), workers: 0 });
      expect(again.resumedFrom).toBeNull();
      expect(again.health.clientsScored).toBe(0);
    } finally {
      await engine.close();
    }
  });
});
