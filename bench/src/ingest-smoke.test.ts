/**
 * Smoke test: the ingest scenario on tiny generated mailboxes of both shapes, through the real
 * child processes (bench/dist, built by `npm test`). Checks the result's shape and counts, never
 * its speed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BACKEND } from '@chs/core';
import { ingestScenario } from './scenarios/ingest.js';
import { writeLatest, writeResult, type BenchResult } from './results.js';
import { CHILD_FILE } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'chs-bench-smoke-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The metrics of one mailbox shape (the e2e rows aside). */
function shapeMetrics(prefix: string): string[] {
  const expected = [
    'input.messages',
    'input.fileMB',
    'input.meanKB',
    'input.medianKB',
    'input.withAttachmentsShare',
    'input.attachmentByteShare',
    'split.msgsPerSec',
    'split.MBps',
    'input.keptShare',
    'input.parsedShare',
    'input.filteredShare',
    'input.skippedOnHeadersShare',
    'baseline.mailparser.msgsPerSec',
    'baseline.mailparser.withSplit.msgsPerSec',
    'baseline.mailparser.withSplit.afterMsgsPerSec',
    'baseline.mailparser.withSplit.meanMsgsPerSec',
    'baseline.mailparser.cpuMsPerMsg',
    'baseline.mailparser.coresUsed',
    ...['split', 'head', 'filter', 'resolve', 'body', 'cut', 'mimePostalMime', 'mimeMailparser', 'strip', 'score'].map((s) => `stages.${s}.cpuMsPerMsg`),
    'stages.bodyParsedShare',
  ];
  // PostgreSQL answers here and always in CI: the whole command runs on both dialects.
  for (const d of ['sqlite', 'postgres']) {
    for (const s of [
      'wallSec',
      'msgsPerSec',
      'peakRssMB',
      'cpuSec',
      'coresUsed',
      'startupSec',
      'ingestSec',
      'healthSec',
      'main.readSec',
      'main.waitWorkersSec',
      'main.writeSec',
      'snapshots',
      'baselineMsgsPerSec',
    ]) {
      expected.push(`command.${d}.${s}`);
    }
    expected.push(`ratio.command.${d}`);
  }
  return expected.map((name) => `${prefix}${name}`);
}

describe('ingest scenario (300 messages, both shapes)', () => {
  it('writes a result with the whole command on both dialects, the baselines, the stages and the targets, for each shape', { timeout: 480_000 }, async () => {
    expect(existsSync(CHILD_FILE)).toBe(true);
    const r = await ingestScenario({ messages: 300, stagesSample: 50, dir });
    expect(r.scenario).toBe('ingest');
    expect(r.config).toMatchObject({
      messages: 300,
      profile: 'client',
      shapes: ['attachments', 'small'],
      runs: 1,
      baselineSample: 300,
      stagesSample: 50,
      workers: 2,
    });
    const names = Object.keys(r.metrics);
    // Today's shape keeps the metric names of earlier results; the small-message shape's are prefixed.
    const expected = [...shapeMetrics(''), ...shapeMetrics('small.')];
    const p = DEFAULT_BACKEND;
    for (const s of [
      'msgsPerSec',
      'MBps',
      'withHealth.msgsPerSec',
      'healthSec',
      'peakRssMB',
      'ingestPhasePeakRssMB',
      'healthPhasePeakRssMB',
      'cpuMsPerMsg',
      'coresUsed',
      'main.readSec',
      'main.waitWorkersSec',
      'main.writeSec',
    ]) {
      expected.push(`e2e.${p}.${s}`);
    }
    expected.push(`ratio.ingestSource.${p}`);
    expect(names.sort()).toEqual(expected.sort());
    for (const [name, m] of Object.entries(r.metrics)) {
      expect(Number.isFinite(m.value), name).toBe(true);
      expect(m.value, name).toBeGreaterThanOrEqual(0);
    }
    interface ShapeDetails {
      mailbox: string;
      split: { messages: number };
      baseline: { messages: number };
      baselineAfter: { messages: number };
      baselines: Array<{ messages: number; wallMs: number }>;
      stages: { messages: number };
      commands: Record<string, { summary: { itemsProcessed: number }; baselineMsgsPerSec: number }>;
      e2e?: Record<string, { summary: { itemsProcessed: number } }>;
    }
    const today = r.details as unknown as ShapeDetails;
    const small = (r.details as { small: ShapeDetails }).small;
    expect(Object.values(today.e2e!).map((e) => e.summary.itemsProcessed)).toEqual([300]);
    expect(small.e2e).toBeUndefined();
    expect(small.mailbox).not.toBe(today.mailbox);
    for (const [prefix, details] of [
      ['', today],
      ['small.', small],
    ] as const) {
      const m = (name: string): number => r.metrics[`${prefix}${name}`]!.value;
      expect(m('input.messages')).toBe(300);
      // Every message of the mailbox went through each run.
      expect(details.split.messages).toBe(300);
      expect(details.baseline.messages).toBe(300);
      // The baseline runs before the first command and after each one: 1 + 2 dialects.
      expect(details.baselines).toHaveLength(3);
      for (const b of details.baselines) expect(b.messages).toBe(300);
      expect(details.baselineAfter).toEqual(details.baselines[2]);
      const rate = (b: { messages: number; wallMs: number }): number => b.messages / (b.wallMs / 1000);
      expect(m('baseline.mailparser.withSplit.meanMsgsPerSec')).toBeCloseTo(details.baselines.reduce((a, b) => a + rate(b), 0) / 3, -1);
      // Each command's ratio divides by the mean of the baseline runs just before and just after it.
      expect(details.commands.sqlite!.baselineMsgsPerSec).toBeCloseTo((rate(details.baselines[0]!) + rate(details.baselines[1]!)) / 2, 6);
      expect(details.commands.postgres!.baselineMsgsPerSec).toBeCloseTo((rate(details.baselines[1]!) + rate(details.baselines[2]!)) / 2, 6);
      for (const d of ['sqlite', 'postgres'])
        expect(m(`ratio.command.${d}`)).toBeCloseTo(m(`command.${d}.msgsPerSec`) / m(`command.${d}.baselineMsgsPerSec`), 1);
      expect(details.stages.messages).toBe(50);
      expect(Object.keys(details.commands).sort()).toEqual(['postgres', 'sqlite']);
      for (const c of Object.values(details.commands)) expect(c.summary.itemsProcessed).toBe(300);
      // A CSM's mailbox: most messages are client mail, parsed and stored; the rest free-mail.
      expect(m('input.keptShare')).toBeGreaterThan(0.7);
      expect(m('input.skippedOnHeadersShare')).toBeGreaterThan(0.05);
      expect(m('command.sqlite.peakRssMB')).toBeGreaterThan(20);
      expect(m('command.sqlite.snapshots')).toBeGreaterThan(0);
      expect(r.targets.map((t) => t.metric)).toEqual(expect.arrayContaining([`${prefix}ratio.command.sqlite`, `${prefix}ratio.command.postgres`]));
    }
    // The small-message shape: no message bigger than a long thread's, few attachments.
    expect(r.metrics['small.input.withAttachmentsShare']!.value).toBeLessThan(0.08);
    expect(r.metrics['input.withAttachmentsShare']!.value).toBeGreaterThan(0.08);
    expect(r.targets.find((t) => t.metric === 'small.ratio.command.sqlite')!.threshold).toBe(2.2);
    expect(r.targets.find((t) => t.metric === 'ratio.command.sqlite')!.threshold).toBe(2.5);
    expect(r.targets.map((t) => t.metric)).toContain('command.sqlite.startupSec');

    const file = writeResult(r, join(dir, 'results'));
    const back = JSON.parse(readFileSync(file, 'utf8')) as BenchResult;
    expect(back.metrics).toEqual(r.metrics);
    writeLatest([r], join(dir, 'results'));
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'results', 'latest.json'), 'utf8')) as object)).toEqual(['ingest']);
  });
});
