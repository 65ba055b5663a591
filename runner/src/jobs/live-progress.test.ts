/**
 * Progress as a user watching a long job sees it (docs/jobs.md#live-progress), through the built
 * `chs serve` (run `npx tsc -b` first) and real HTTP, on a SQLite file (a fresh PostgreSQL
 * database when CHS_TEST_DATABASE=postgres, the second pass of `.ci/run`):
 * - a Gmail full sync of 3,000 messages through POST /ingest/run, the fake Gmail enforcing its
 *   per-user quota (scaled: the same shape, ~250 messages/s instead of 50, so the run lasts
 *   ~15 s rather than a minute) and the runner's own limiter set to it;
 * - the same mailbox through POST /ingest/v2/start.
 * Within 5 s a total shows; for most of the run the progress sits strictly between 0 and 100 and
 * it never goes back; by the middle of the run the ETA is within 30 % of the real end; items read
 * show before the first batch of 1,000 is stored.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, judgeProgress, startFakeGmailServer, type FakeGmailServer, type TestDatabase } from '@chs/core/testing';
import { chsEnv, initAndConnect, makeMailbox, serve, tearDown, watchStatus, type Serve } from './testing.js';

const SLOW = 240_000;
const N = 3000;
/** Gmail's quota shape, scaled: 15,000 units per minute becomes 6,250 units per 5 s (250 messages/s at 5 units each). */
const QUOTA = { units: 6250, windowMs: 5000 };

const serves: Serve[] = [];
let fake: FakeGmailServer | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  const opened = [fake, database] as const;
  [fake, database] = [undefined, undefined];
  await tearDown(serves, ...opened);
}, 120_000);

async function setting(): Promise<{ base: string; key: string }> {
  const box = makeMailbox(N, { spacingMs: 30_000 });
  fake = await startFakeGmailServer({ messages: box.messages, accessTokens: [], emailAddress: 'rep@acme.com', quota: QUOTA });
  database = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'chs-live-'));
  const env = chsEnv(database.url, dir, `${fake.url}/`, fake.tokenUrl, {
    // The runner spends the scaled quota steadily, as it spends Gmail's real one (config.ts).
    CHS_GOOGLE_QUOTA_UNITS_PER_MINUTE: String((QUOTA.units * 60_000) / QUOTA.windowMs),
  });
  const key = await initAndConnect(env);
  const s = await serve(serves, env, 'runner', 20_000);
  return { base: s.base, key };
}

describe('live progress through chs serve, Gmail at its quota', () => {
  it(
    'POST /ingest/run of 3,000 messages: a total within 5 s, progress between 0 and 100 that never goes back, an ETA within 30 % by the middle',
    async () => {
      const { base, key } = await setting();
      const start = Date.now();
      const res = await fetch(`${base}/api/ingest/run?workspaceId=acme.com`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ sources: ['google'], syncType: 'full' }),
      });
      expect(res.status).toBe(200);
      const { samples, endAt, last } = await watchStatus('run', () => base, key, start);
      const j = judgeProgress(samples, endAt);
      console.info(`[live] /ingest/run ${N} msgs: ${JSON.stringify(j)} in ${(endAt / 1000).toFixed(1)} s`);
      if (process.env.CHS_DEBUG_SAMPLES)
        console.info(samples.map((s) => `${s.at} ${s.status} ${s.progress} r${s.read} s${s.stored} t${s.total} eta${s.eta}`).join('\n'));
      expect(last.status).toBe('completed');
      expect(last.stored).toBe(N);
      expect(j.firstTotalMs).not.toBeNull();
      expect(j.firstTotalMs!).toBeLessThanOrEqual(5000);
      expect(samples.find((s) => s.total !== null)!.total).toBe(N);
      expect(j.shareBetween).toBeGreaterThanOrEqual(0.8);
      expect(j.backwards).toBe(0);
      expect(j.distinct).toBeGreaterThanOrEqual(10);
      expect(j.etaErrorAtMid).not.toBeNull();
      expect(j.etaErrorAtMid!).toBeLessThanOrEqual(0.3);
      // The first batch holds 1,000 messages: what was read shows before it is stored.
      expect(j.readBeforeStored).toBe(true);
    },
    SLOW,
  );

  it(
    'POST /ingest/v2/start of the same mailbox: the same, in the session status',
    async () => {
      const { base, key } = await setting();
      const start = Date.now();
      const res = await fetch(`${base}/api/ingest/v2/start`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workspaceId: 'acme.com', sinceDays: 90, batchSize: 1000 }),
      });
      expect(res.status).toBe(200);
      const { samples, endAt, last } = await watchStatus('v2', () => base, key, start);
      const j = judgeProgress(samples, endAt);
      console.info(`[live] /ingest/v2 ${N} msgs: ${JSON.stringify(j)} in ${(endAt / 1000).toFixed(1)} s`);
      expect(last.status).toBe('completed');
      expect(last.stored).toBe(N);
      expect(j.firstTotalMs!).toBeLessThanOrEqual(5000);
      expect(j.shareBetween).toBeGreaterThanOrEqual(0.8);
      expect(j.backwards).toBe(0);
      expect(j.etaErrorAtMid!).toBeLessThanOrEqual(0.3);
      expect(j.readBeforeStored).toBe(true);
    },
    SLOW,
  );
});
