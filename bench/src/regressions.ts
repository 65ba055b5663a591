/** Comparing two result files: which metrics got worse, and by how much. */
import type { BenchResult, Metric } from './results.js';

/** Kinds a change of which counts as a regression (the others are shown, never fail). */
const GATED_KINDS: ReadonlySet<Metric['kind']> = new Set(['throughput', 'latency', 'ratio']);
/** Worse by more than this fraction is a regression. */
export const DEFAULT_TOLERANCE = 0.1;

interface MetricChange {
  name: string;
  unit: string;
  kind: Metric['kind'];
  before: number;
  after: number;
  /** (after − before) / before; null when before is 0. */
  change: number | null;
  /** How much worse, as a fraction (positive = worse), in the metric's own direction; null when it has none. */
  worse: number | null;
  regression: boolean;
}

export interface Comparison {
  scenario: string;
  changes: MetricChange[];
  regressions: MetricChange[];
  /** Metrics present in only one of the two files. */
  onlyBefore: string[];
  onlyAfter: string[];
}

export function compareResults(before: BenchResult, after: BenchResult, tolerance = DEFAULT_TOLERANCE): Comparison {
  if (before.scenario !== after.scenario) throw new Error(`cannot compare scenario "${before.scenario}" with "${after.scenario}"`);
  const changes: MetricChange[] = [];
  for (const [name, a] of Object.entries(after.metrics)) {
    const b = before.metrics[name];
    if (!b) continue;
    const change = b.value === 0 ? null : (a.value - b.value) / Math.abs(b.value);
    const worse = change === null || a.better === 'none' ? null : a.better === 'higher' ? -change : change;
    const regression = GATED_KINDS.has(a.kind) && worse !== null && worse > tolerance;
    changes.push({ name, unit: a.unit, kind: a.kind, before: b.value, after: a.value, change, worse, regression });
  }
  return {
    scenario: after.scenario,
    changes,
    regressions: changes.filter((c) => c.regression),
    onlyBefore: Object.keys(before.metrics).filter((k) => !(k in after.metrics)),
    onlyAfter: Object.keys(after.metrics).filter((k) => !(k in before.metrics)),
  };
}

/** A result file holds one scenario (`<stamp>-<scenario>.json`) or several (`latest.json`). */
export function resultsOf(json: unknown): BenchResult[] {
  if (json && typeof json === 'object' && 'scenario' in json && 'metrics' in json) return [json as BenchResult];
  if (json && typeof json === 'object') return Object.values(json as Record<string, BenchResult>).filter((r) => r && typeof r === 'object' && 'metrics' in r);
  throw new Error('not a bench result file');
}

export function formatComparison(c: Comparison): string {
  const pct = (x: number | null) => (x === null ? '   n/a' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`.padStart(7));
  const w = Math.max(10, ...c.changes.map((x) => x.name.length));
  const lines = [`── ${c.scenario} ──`];
  for (const x of c.changes) {
    const flag = x.regression ? '  ◀ REGRESSION' : '';
    lines.push(`  ${x.name.padEnd(w)}  ${String(x.before).padStart(10)} → ${String(x.after).padStart(10)} ${x.unit.padEnd(7)} ${pct(x.change)}${flag}`);
  }
  if (c.onlyBefore.length) lines.push(`  only in the first file: ${c.onlyBefore.join(', ')}`);
  if (c.onlyAfter.length) lines.push(`  only in the second file: ${c.onlyAfter.join(', ')}`);
  return lines.join('\n');
}
