/**
 * Smoke test: the webhooks scenario with a small burst, through the real child process
 * (bench/dist, built by `npm test`). Checks the result's shape and that every event arrived once,
 * never its speed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { webhooksScenario } from './scenarios/webhooks.js';
import { CHILD_FILE } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'chs-bench-webhooks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('webhooks scenario (a burst of 100)', () => {
  it('delivers every event once on both dialects and reports the ratios and targets', { timeout: 120_000 }, async () => {
    expect(existsSync(CHILD_FILE)).toBe(true);
    const r = await webhooksScenario({ events: 100, readMs: 200, ingests: 2, dir });
    expect(r.scenario).toBe('webhooks');
    // PostgreSQL answers here and always in CI.
    for (const d of ['sqlite', 'postgres']) {
      for (const name of ['deliverSec', 'recordMs']) expect(r.metrics[`webhooks.${d}.${name}`]?.value, `${d} ${name}`).toBeGreaterThanOrEqual(0);
      for (const name of [
        'deliveriesPerSec',
        'deliveriesPerSecBesideIngest',
        'read.p50Ms',
        'read.p99Ms',
        'read.p50Slowdown',
        'read.p99Slowdown',
        'read.maxMs',
        'ingest.meanMs',
        'ingest.slowdown',
        'loopDelayP99Ms',
      ])
        expect(r.metrics[`webhooks.${d}.${name}`]?.value, `${d} ${name}`).toBeGreaterThan(0);
      expect(r.metrics[`ratio.webhooks.${d}.vsBarePosts`]?.value).toBeGreaterThan(0);
      expect(r.metrics[`ratio.webhooks.${d}.readRate`]?.value).toBeGreaterThan(0);
      expect(r.metrics[`webhooks.${d}.lost`]?.value).toBe(0);
      expect(r.metrics[`webhooks.${d}.duplicates`]?.value).toBe(0);
      expect(r.targets.filter((t) => t.name.startsWith(`${d}:`))).toHaveLength(4);
    }
  });
});
