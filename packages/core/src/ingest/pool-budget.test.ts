/**
 * The per-message time budget of the worker pool (issue 16): a message that keeps a worker
 * thread busy past the budget is abandoned (the thread terminated and replaced), counted as a
 * parse error naming its location and Message-ID, and the run goes on with every other message.
 *
 * No real message is slow any more (that is the point of the linear parsers), so the workers
 * here run a small entry file that spins forever on messages carrying `X-Test-Spin: forever`
 * and hands every other message to the real processBatch. The pool, its watchdog, the
 * termination, the re-run of the batch and the counting are the real ones.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { mboxSource } from '../source/index.js';
import { defaultTestDialect, dropTestSchemas } from '../store/testing.js';
import { createProcessPool, peekMessageId, workerFile } from './pool.js';

const dir = mkdtempSync(join(tmpdir(), 'chs-budget-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropTestSchemas();
});

function spinningWorker(): string {
  const file = join(dir, 'spinning-worker.mjs');
  const processJs = pathToFileURL(workerFile().replace(/worker\.js$/, 'process.js')).href;
  writeFileSync(
    file,
    `
import { processBatch } from ${JSON.stringify(processJs)};
export default async function (task) {
  const out = [];
  for (const [i, m] of task.messages.entries()) {
    Atomics.store(task.progress, 0, i);
    const raw = Buffer.from(m.raw.buffer, m.raw.byteOffset, m.raw.byteLength);
    // "Forever": longer than any budget here, but bounded, so that a thread the pool failed to
    // terminate ends the test with this error rather than a hang.
    if (raw.includes('X-Test-Spin: forever')) {
      for (const until = Date.now() + 60_000; Date.now() < until;) {}
      throw new Error('spun 60 s: the pool never terminated this thread');
    }
    if (raw.includes('X-Test-Spin: 100ms')) for (const until = Date.now() + 100; Date.now() < until;) {}
    out.push(...(await processBatch({ ...task, messages: [m], progress: undefined })));
  }
  Atomics.store(task.progress, 0, task.messages.length);
  return out;
}
`,
  );
  return file;
}

/**
 * Awaits a step of the test, failing with its name if it takes longer than `ms`: in 2 of ~6
 * whole-suite CI runs (11-27) the first test hung to its timeout, and a timeout does not say where.
 */
async function step<T>(name: string, p: Promise<T>, ms = 40_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`hung for ${ms} ms at: ${name}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const message = (n: number, spin: boolean | '100ms') =>
  `From a@b Mon Mar  3 10:00:00 2025\nFrom: ana@client.example\nTo: me@ourco.com\nDate: Mon, 3 Mar 2025 10:00:${String(n).padStart(2, '0')} +0000\n` +
  `Message-ID: <m${n}@budget.test>\nSubject: message ${n}\n${spin ? `X-Test-Spin: ${spin === true ? 'forever' : spin}\n` : ''}\nHello, number ${n}.\n\n`;

describe('parse time budget in the worker pool', () => {
  it(
    'abandons the messages over budget, counts each as a parse error with its id, and stores the rest',
    async () => {
      const spinning = new Set([2, 9]);
      const file = join(dir, 'budget.mbox');
      writeFileSync(file, Array.from({ length: 12 }, (_, n) => message(n, spinning.has(n))).join(''));
      const pool = createProcessPool(2, { parseBudgetMs: 3_000, filename: spinningWorker() });
      const engine = await step('opening the store', (async () => createEngine({ database: await defaultTestDialect().open() }))());
      try {
        await createWorkspace(engine.store.db, { domain: 'ourco.com', name: 'Our Co', ownerEmail: 'lead@ourco.com' });
        const t0 = performance.now();
        const s = await step('the ingest', engine.ingest({ workspaceId: 'ourco.com', source: mboxSource(file), pool }));
        expect(performance.now() - t0).toBeLessThan(40_000);
        expect(s.status).toBe('completed');
        expect([s.itemsProcessed, s.itemsAdded, s.errorsCount, s.processingErrors.parseErrors]).toEqual([12, 10, 2, 2]);

        const stored = await engine.store.db.selectFrom('interactions').select('dedupe_key').execute();
        expect(stored.map((r) => r.dedupe_key).sort()).toEqual(
          Array.from({ length: 12 }, (_, n) => n)
            .filter((n) => !spinning.has(n))
            .map((n) => `m${n}@budget.test`)
            .sort(),
        );
        const errors = await engine.store.db.selectFrom('ingestion_errors').select(['kind', 'reason', 'location']).where('run_id', '=', s.runId).execute();
        expect(errors.map((e) => e.reason).sort()).toEqual(
          [...spinning].map((n) => `parse time budget of 3000 ms exceeded: abandoned (Message-ID <m${n}@budget.test>)`).sort(),
        );
        expect(errors.every((e) => e.kind === 'parse' && e.location.startsWith(`${file}@`))).toBe(true);

        // The terminated threads were replaced: the same pool still processes messages.
        const after = await step(
          'a message after the overruns',
          pool.run({
            messages: [{ raw: Buffer.from(message(20, false).replace(/^From a@b.*\n/, '')), location: 'after' }],
            rules: { blocklist: [], ownDomains: ['ourco.com'] },
          }),
        );
        expect(after).toMatchObject([{ ok: true, outcome: 'kept', messageId: 'm20@budget.test' }]);
      } finally {
        await step('closing the pool', pool.close());
        await step('closing the engine', engine.close());
      }
      // Once more after a failure: in 2 of ~6 whole-suite CI runs (11-27) this test hung to its
      // timeout with the suite around it, while it has passed every time alone, with both cores
      // loaded too. Not understood yet (issue 30's note): two hangs in a row still fail, and now
      // say at which step (`step`), or that a spinning thread was never terminated.
    },
    { timeout: 90_000, retry: 1 },
  );

  it('the budget is per message: a batch of messages each within it is never abandoned, however long the batch takes', async () => {
    const file = join(dir, 'slow-batch.mbox');
    writeFileSync(file, Array.from({ length: 40 }, (_, n) => message(n, '100ms')).join(''));
    // 40 messages of 100 ms in one task: over 4 s for the batch, past the budget; 100 ms for each message.
    const pool = createProcessPool(1, { parseBudgetMs: 3_000, filename: spinningWorker() });
    const engine = await createEngine({ database: await defaultTestDialect().open() });
    try {
      await createWorkspace(engine.store.db, { domain: 'ourco.com', name: 'Our Co', ownerEmail: 'lead@ourco.com' });
      const s = await engine.ingest({ workspaceId: 'ourco.com', source: mboxSource(file), pool });
      expect([s.itemsProcessed, s.itemsAdded, s.errorsCount]).toEqual([40, 40, 0]);
    } finally {
      await pool.close();
      await engine.close();
    }
  }, 90_000);

  it('peekMessageId reads the id from the header block only', () => {
    expect(peekMessageId(Buffer.from('Subject: x\nMessage-Id: <a.b@c>\n\nMessage-ID: <body@x>'))).toBe('a.b@c');
    expect(peekMessageId(Buffer.from('Subject: x\n\nMessage-ID: <body@x>'))).toBeUndefined();
  });
});
