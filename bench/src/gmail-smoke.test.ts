/**
 * Smoke test: the gmail scenario on 300 generated messages against a tiny quota (750 units per
 * 2 s window), through a real `chs serve` child (runner/bin, built by `npm test`). Checks the
 * result's fields and that every message was stored, never the speed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gmailScenario } from './scenarios/gmail.js';
import { CHS_BIN } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'chs-bench-gmail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gmail scenario (300 messages, tiny quota)', () => {
  it('ingests every message through the v2 job and reports throughput against the scaled ceiling', { timeout: 180_000 }, async () => {
    expect(existsSync(CHS_BIN)).toBe(true);
    const r = await gmailScenario({ messages: 300, quotaScale: 0.05, windowMs: 2000, batchSize: 100, dir });
    expect(r.scenario).toBe('gmail');
    // 15,000 × 0.05 = 750 units per 2 s = 22,500 units/min, 75 messages/s.
    expect(r.config).toMatchObject({
      messages: 300,
      quotaScale: 0.05,
      quotaUnitsPerWindow: 750,
      windowMs: 2000,
      ceilingUnitsPerMin: 22_500,
      clientLimit: true,
      batchSize: 100,
    });
    expect(Object.keys(r.metrics).sort()).toEqual([
      'activeFractionOfCeiling',
      'fractionOfCeiling',
      'http429',
      'input.meanKB',
      'input.messages',
      'lost',
      'msgsFractionOfCeiling',
      'msgsPerSec',
      'progress.backwards',
      'progress.etaErrorAtMid',
      'progress.firstTotalSec',
      'progress.shareBetween',
      'quota.ceilingMsgsPerSec',
      'quota.unitsPerMin',
      'requests',
      'runner.peakRssMB',
      'stored.interactions',
      'stored.messages',
      'stored.processed',
      'totalSec',
      'unitsPerMin',
      'unitsUsed',
    ]);
    for (const [name, m] of Object.entries(r.metrics)) {
      expect(Number.isFinite(m.value), name).toBe(true);
      expect(m.value, name).toBeGreaterThanOrEqual(0);
    }
    const m = (k: string) => r.metrics[k]!.value;
    expect(m('input.messages')).toBe(300);
    expect(m('quota.ceilingMsgsPerSec')).toBe(75);
    // Nothing lost: the job processed all 300 and every one it added is an interaction row.
    expect(m('stored.processed')).toBe(300);
    expect(m('lost')).toBe(0);
    // As watched on /ingest/v2/status: a total within 5 s, never back.
    expect(m('progress.firstTotalSec')).toBeLessThanOrEqual(5);
    expect(m('progress.backwards')).toBe(0);
    const d = r.details as {
      allStored: boolean;
      gets: number;
      counts: { interactions: number; keptForSuggestions: number; job: Record<string, number> };
      fakeServer: { unitsUsed: number; throttled: number };
    };
    expect(d.allStored).toBe(true);
    expect(d.counts.job.added! + d.counts.keptForSuggestions).toBe(m('stored.messages'));
    expect(m('stored.interactions')).toBeGreaterThanOrEqual(m('stored.messages'));
    expect(d.counts.job.added! + d.counts.job.updated! + d.counts.job.skipped! + d.counts.job.filtered! + d.counts.job.errors!).toBe(300);
    // Each message fetched at least once (5 units each), plus the list pages and the profile.
    expect(d.gets).toBeGreaterThanOrEqual(300);
    expect(m('unitsUsed')).toBeGreaterThanOrEqual(300 * 5 + 5 + 1);
    expect(m('unitsUsed')).toBe(d.fakeServer.unitsUsed);
    expect(m('http429')).toBe(d.fakeServer.throttled);
    // The fraction is units/min over the ceiling, as reported.
    expect(m('fractionOfCeiling')).toBeCloseTo(m('unitsPerMin') / 22_500, 2);
    expect(r.targets.map((t) => t.metric)).toEqual([
      'fractionOfCeiling',
      'progress.firstTotalSec',
      'progress.shareBetween',
      'progress.backwards',
      'progress.etaErrorAtMid',
      'http429',
      'lost',
    ]);
    expect(r.targets.find((t) => t.metric === 'lost')!.met).toBe(true);
  });
});
