/** The result file format (one per scenario run), its writer and the printed table. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MachineInfo } from './measure.js';
import { REPO_DIR, RESULTS_DIR } from './paths.js';

export const SCENARIOS = ['ingest', 'memory', 'api', 'gmail', 'webhooks', 'storage', 'scale', 'scale-out'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/**
 * What a metric measures; `compare` flags a regression on throughput, latency and ratio
 * (derived from throughputs) only. Memory and the rest are shown with their change.
 */
export type MetricKind = 'throughput' | 'latency' | 'ratio' | 'memory' | 'time' | 'count';

export interface Metric {
  value: number;
  unit: string;
  kind: MetricKind;
  better: 'higher' | 'lower' | 'none';
  /** One line: how it was measured. */
  note?: string;
}

export interface Target {
  /** e.g. "end-to-end ≥ 2× sequential mailparser parse-only". */
  name: string;
  metric: string;
  op: '>=' | '<=';
  threshold: number;
  actual: number | null;
  met: boolean | null;
}

export interface BenchResult {
  /** Format version of this file. */
  format: 1;
  scenario: ScenarioName;
  startedAt: string;
  finishedAt: string;
  gitCommit: string | null;
  machine: MachineInfo;
  config: Record<string, unknown>;
  metrics: Record<string, Metric>;
  targets: Target[];
  /** Raw per-step data (summaries, per-stage breakdowns, autocannon figures). */
  details: Record<string, unknown>;
}

export function metric(value: number, unit: string, kind: MetricKind, note?: string): Metric {
  const better = kind === 'throughput' || kind === 'ratio' ? 'higher' : kind === 'latency' || kind === 'memory' || kind === 'time' ? 'lower' : 'none';
  return note === undefined ? { value, unit, kind, better } : { value, unit, kind, better, note };
}

export function target(name: string, metrics: Record<string, Metric>, key: string, op: Target['op'], threshold: number): Target {
  const actual = metrics[key]?.value ?? null;
  const met = actual === null ? null : op === '>=' ? actual >= threshold : actual <= threshold;
  return { name, metric: key, op, threshold, actual, met };
}

export function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** Writes `<timestamp>-<scenario>.json` and `latest-<scenario>.json`; returns the first path. */
export function writeResult(result: BenchResult, dir = RESULTS_DIR): string {
  mkdirSync(dir, { recursive: true });
  const stamp = result.startedAt.replace(/[:.]/g, '-');
  const file = join(dir, `${stamp}-${result.scenario}.json`);
  const text = `${JSON.stringify(result, null, 2)}\n`;
  writeFileSync(file, text);
  writeFileSync(join(dir, `latest-${result.scenario}.json`), text);
  return file;
}

/** Writes `latest.json`: every scenario of the last run, keyed by scenario. */
export function writeLatest(results: BenchResult[], dir = RESULTS_DIR): string {
  const file = join(dir, 'latest.json');
  // A run of one scenario keeps the others' last results.
  let all: Record<string, BenchResult> = {};
  if (existsSync(file)) {
    try {
      all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, BenchResult>;
    } catch {
      all = {};
    }
  }
  for (const r of results) all[r.scenario] = r;
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
  return file;
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export function formatTable(result: BenchResult): string {
  const rows = Object.entries(result.metrics).map(([k, m]) => [k, `${fmt(m.value)} ${m.unit}`]);
  const w = Math.max(...rows.map((r) => r[0]!.length), 10);
  const lines = [`── ${result.scenario} (${result.startedAt}, load avg ${result.machine.loadAvg1mStart} → ${result.machine.loadAvg1mEnd ?? '?'}) ──`];
  for (const [k, v] of rows) lines.push(`  ${k!.padEnd(w)}  ${v}`);
  if (result.targets.length) lines.push('  targets:');
  for (const t of result.targets) {
    const mark = t.met === null ? '?' : t.met ? 'MET ' : 'MISS';
    lines.push(`  [${mark}] ${t.name}: ${t.actual === null ? 'n/a' : fmt(t.actual)} (${t.op} ${fmt(t.threshold)})`);
  }
  return lines.join('\n');
}
