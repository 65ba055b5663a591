/**
 * Smoke test: the ingest scenario on a tiny generated mailbox, through the real child processes
 * (bench/dist, built by `npm test`). Checks the result's shape and counts, never its speed.
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

describe('ingest scenario (300 messages)', () => {
  it('writes a result with the whole command on both dialects, the baselines, the stages and the targets', { timeout: 240_000 }, async () => {
    expect(existsSync(CHILD_FILE)).toBe(true);
    const r = await ingestScenario({ messages: 300, stagesSample: 50, dir });
    expect(r.scenario).toBe('ingest');
    expect(r.config).toMatchObject({ messages: 300, profile: 'client', baselineSample: 300, stagesSample: 50, workers: 2 });
    const names = Object.keys(r.metrics);
    const expected = [
      'input.messages',
      'input.fileMB',
      'input.meanKB',
      'input.medianKB',
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
      ]) {
        expected.push(`command.${d}.${s}`);
      }
      expected.push(`ratio.command.${d}`);
    }
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
    expect(r.metrics['input.messages']!.value).toBe(300);
    // Every message of the mailbox went through each run.
    const details = r.details as {
      split: { messages: number };
      baseline: { messages: number };
      baselineAfter: { messages: number };
      stages: { messages: number };
      commands: Record<string, { summary: { itemsProcessed: number } }>;
      e2e: Record<string, { summary: { itemsProcessed: number } }>;
    };
    expect(details.split.messages).toBe(300);
    expect(details.baseline.messages).toBe(300);
    // The baseline runs before and after the commands; each ratio divides by the mean of the two.
    expect(details.baselineAfter.messages).toBe(300);
    const mean = (r.metrics['baseline.mailparser.withSplit.msgsPerSec']!.value + r.metrics['baseline.mailparser.withSplit.afterMsgsPerSec']!.value) / 2;
    expect(r.metrics['baseline.mailparser.withSplit.meanMsgsPerSec']!.value).toBeCloseTo(mean, -1);
    expect(r.metrics['ratio.command.sqlite']!.value).toBeCloseTo(
      r.metrics['command.sqlite.msgsPerSec']!.value / r.metrics['baseline.mailparser.withSplit.meanMsgsPerSec']!.value,
      1,
    );
    expect(details.stages.messages).toBe(50);
    expect(Object.keys(details.commands).sort()).toEqual(['postgres', 'sqlite']);
    for (const c of Object.values(details.commands)) expect(c.summary.itemsProcessed).toBe(300);
    expect(Object.values(details.e2e).map((e) => e.summary.itemsProcessed)).toEqual([300]);
    // A CSM's mailbox: most messages are client mail, parsed and stored; the rest free-mail.
    expect(r.metrics['input.keptShare']!.value).toBeGreaterThan(0.7);
    expect(r.metrics['input.skippedOnHeadersShare']!.value).toBeGreaterThan(0.05);
    expect(r.metrics['command.sqlite.peakRssMB']!.value).toBeGreaterThan(20);
    expect(r.metrics['command.sqlite.snapshots']!.value).toBeGreaterThan(0);
    expect(r.targets.map((t) => t.metric)).toEqual(expect.arrayContaining(['ratio.command.sqlite', 'ratio.command.postgres', 'command.sqlite.startupSec']));

    const file = writeResult(r, join(dir, 'results'));
    const back = JSON.parse(readFileSync(file, 'utf8')) as BenchResult;
    expect(back.metrics).toEqual(r.metrics);
    writeLatest([r], join(dir, 'results'));
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'results', 'latest.json'), 'utf8')) as object)).toEqual(['ingest']);
  });
});
