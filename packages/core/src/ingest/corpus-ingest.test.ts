/**
 * Every file of the shared real-world corpus through the whole pipeline (worker threads,
 * resolve, store): the run completes and every failure is counted with a reason, none thrown.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteDialect } from '../store/testing.js';
import { createEngine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { emlDirSource, mboxSource } from '../source/index.js';
import type { RawMessage, Source } from '../interfaces.js';
import { corpusDir, CORPUS_HELPER_FILE, CORPUS_MBOXES } from '../test-support/corpus.js';

const CORPUS = corpusDir();

/** The corpus as one source: every message file, then every message of every mbox. */
function corpusSource(dir: string): Source<RawMessage> & { files: () => number } {
  let files = 0;
  return {
    kind: 'eml',
    key: `corpus:${dir}`,
    files: () => files,
    async *items() {
      for await (const m of emlDirSource(dir).items()) {
        const rel = String(m.cursor['after']);
        if (CORPUS_HELPER_FILE.test(rel) || (CORPUS_MBOXES as readonly string[]).includes(rel)) continue;
        files += 1;
        yield m;
      }
      for (const rel of CORPUS_MBOXES) {
        for await (const m of mboxSource(join(dir, rel)).items()) {
          files += 1;
          yield m;
        }
      }
    },
  };
}

describe.runIf(CORPUS !== null)('the real-world corpus through the whole pipeline', () => {
  it('completes, with every message processed once and every failure recorded with a reason', async () => {
    const engine = await createEngine({ database: await sqliteDialect.open() });
    try {
      await createWorkspace(engine.store.db, { domain: 'enron.com', name: 'Enron', ownerEmail: 'ops@enron.com' });
      const source = corpusSource(CORPUS!);
      const s = await engine.ingest({ workspaceId: 'enron.com', source, workers: 2 });
      expect(s.status).toBe('completed');
      expect(s.itemsProcessed).toBe(source.files());
      expect(s.itemsProcessed).toBe(s.itemsAdded + s.itemsUpdated + s.itemsSkipped + s.itemsFiltered + s.errorsCount);
      const errors = await engine.store.db.selectFrom('ingestion_errors').select(['kind', 'reason', 'location']).where('run_id', '=', s.runId).execute();
      expect(errors).toHaveLength(s.errorsCount);
      for (const e of errors) {
        expect(e.reason.trim().length, e.location).toBeGreaterThan(0);
        expect(['parse', 'charset', 'attachment', 'sentiment']).toContain(e.kind);
      }
      // Most of the corpus is real mail that is stored: for clients (Enron's business threads above
      // all), or kept for suggested ones (lists, friends, co-recipients: resolve/discovery.ts).
      console.log(`[corpus] ${s.itemsAdded} stored for clients, ${s.skipped.suggested} kept for suggested clients, ${s.itemsFiltered} filtered`);
      expect(s.itemsAdded).toBeGreaterThan(200);
      expect(s.itemsAdded + (s.skipped.suggested ?? 0)).toBeGreaterThan(500);
      expect(s.errorsCount).toBeLessThan(s.itemsProcessed * 0.05);
      const run = await engine.store.db.selectFrom('ingestion_runs').selectAll().where('id', '=', s.runId).executeTakeFirstOrThrow();
      expect([run.status, run.items_processed, run.errors_count]).toEqual(['completed', s.itemsProcessed, s.errorsCount]);
    } finally {
      await engine.close();
    }
  }, 120_000);
});
