import { describe, expect, it } from 'vitest';
import { compareResults, resultsOf } from './regressions.js';
import { metric, type BenchResult, type Metric } from './results.js';

function result(metrics: Record<string, Metric>, scenario: BenchResult['scenario'] = 'ingest'): BenchResult {
  return {
    format: 1,
    scenario,
    startedAt: '2025-01-01T00:00:00.000Z',
    finishedAt: '2025-01-01T00:01:00.000Z',
    gitCommit: null,
    machine: { cpuModel: 'x', cores: 2, memTotalGiB: 1, memFreeGiB: 1, node: 'v20', os: 'linux', loadAvg1mStart: 0 },
    config: {},
    metrics,
    targets: [],
    details: {},
  };
}

describe('compareResults', () => {
  it('flags throughput more than 10% lower and latency more than 10% higher, nothing else', () => {
    const before = result({
      'e2e.msgsPerSec': metric(1000, 'msgs/s', 'throughput'),
      'split.msgsPerSec': metric(1000, 'msgs/s', 'throughput'),
      'api.p95Ms': metric(10, 'ms', 'latency'),
      'api.p99Ms': metric(20, 'ms', 'latency'),
      ratio: metric(2, '×', 'ratio'),
      peakRssMB: metric(100, 'MB', 'memory'),
    });
    const after = result({
      'e2e.msgsPerSec': metric(880, 'msgs/s', 'throughput'), // −12%: regression
      'split.msgsPerSec': metric(910, 'msgs/s', 'throughput'), // −9%: within tolerance
      'api.p95Ms': metric(11.5, 'ms', 'latency'), // +15%: regression
      'api.p99Ms': metric(15, 'ms', 'latency'), // −25%: an improvement
      ratio: metric(2.5, '×', 'ratio'), // +25%: an improvement
      peakRssMB: metric(200, 'MB', 'memory'), // ×2, shown but not gated
    });
    const c = compareResults(before, after);
    expect(c.regressions.map((r) => r.name).sort()).toEqual(['api.p95Ms', 'e2e.msgsPerSec']);
    const e2e = c.changes.find((x) => x.name === 'e2e.msgsPerSec')!;
    expect(e2e.change).toBeCloseTo(-0.12, 10);
    expect(e2e.worse).toBeCloseTo(0.12, 10);
    const p99 = c.changes.find((x) => x.name === 'api.p99Ms')!;
    expect(p99.worse).toBeCloseTo(-0.25, 10);
    const rss = c.changes.find((x) => x.name === 'peakRssMB')!;
    expect(rss.worse).toBeCloseTo(1, 10);
    expect(rss.regression).toBe(false);
  });

  it('treats exactly 10% worse as within tolerance and honours a custom tolerance', () => {
    const before = result({ t: metric(100, 'msgs/s', 'throughput') });
    const after = result({ t: metric(90, 'msgs/s', 'throughput') });
    expect(compareResults(before, after).regressions).toEqual([]);
    expect(compareResults(before, after, 0.05).regressions.map((r) => r.name)).toEqual(['t']);
  });

  it('lists metrics present on one side only and never gates a zero baseline', () => {
    const before = result({ gone: metric(1, 'x', 'count'), zero: metric(0, 'ms', 'latency') });
    const after = result({ added: metric(1, 'x', 'count'), zero: metric(5, 'ms', 'latency') });
    const c = compareResults(before, after);
    expect(c.onlyBefore).toEqual(['gone']);
    expect(c.onlyAfter).toEqual(['added']);
    expect(c.changes[0]).toMatchObject({ name: 'zero', change: null, regression: false });
  });

  it('refuses to compare different scenarios', () => {
    expect(() => compareResults(result({}, 'ingest'), result({}, 'api'))).toThrow(/cannot compare/);
  });
});

describe('resultsOf', () => {
  it('reads a one-scenario file and a latest.json keyed by scenario', () => {
    const one = result({ a: metric(1, 'x', 'count') }, 'memory');
    expect(resultsOf(one)).toEqual([one]);
    expect(resultsOf({ memory: one, api: result({}, 'api') }).map((r) => r.scenario)).toEqual(['memory', 'api']);
  });
});
