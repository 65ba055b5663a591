/**
 * `node bench/dist/profile-summary.js <dir-or-.cpuprofile>...`: self time per package and the
 * top functions of each V8 CPU profile (one per thread with `--cpu-prof`), so "where does the
 * time go" has numbers without opening DevTools.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** `node_modules/<pkg>` (scoped too), our `packages/core/src/<area>`, or a V8/Node bucket. */
export function bucketOf(url: string, functionName: string): string {
  if (url === '')
    return functionName === '(garbage collector)' ? '(gc)' : functionName === '(idle)' || functionName === '(program)' ? functionName : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const core = /packages\/core\/dist\/([^/]+)/.exec(url);
  if (core) return `core/${core[1]}`;
  if (url.startsWith('node:')) return 'node:internal';
  return url
    .replace(/^file:\/\//, '')
    .split('/')
    .slice(-2)
    .join('/');
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  byBucket: Array<{ bucket: string; ms: number; share: number }>;
  topFunctions: Array<{ name: string; ms: number; share: number }>;
}

export function summarise(file: string, top = 12): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000));
  const buckets = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const { functionName, url, lineNumber } = n.callFrame;
    if (functionName === '(idle)') continue;
    total += ms;
    const b = bucketOf(url, functionName);
    buckets.set(b, (buckets.get(b) ?? 0) + ms);
    const key = `${functionName || '(anonymous)'} ${b}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + ms);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    file,
    totalMs: total,
    byBucket: sorted(buckets)
      .slice(0, top)
      .map(([bucket, ms]) => ({ bucket, ms, share: ms / total })),
    topFunctions: sorted(fns)
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms, share: ms / total })),
  };
}

function main(): void {
  const files = process.argv.slice(2).flatMap((a) =>
    statSync(a).isDirectory()
      ? readdirSync(a)
          .filter((f) => f.endsWith('.cpuprofile'))
          .sort()
          .map((f) => join(a, f))
      : [a],
  );
  if (files.length === 0) {
    process.stderr.write('usage: node bench/dist/profile-summary.js <dir-or-.cpuprofile>...\n');
    process.exitCode = 2;
    return;
  }
  for (const f of files) {
    const s = summarise(f);
    process.stdout.write(`── ${basename(f)}: ${(s.totalMs / 1000).toFixed(2)} s busy ──\n`);
    for (const b of s.byBucket) process.stdout.write(`  ${(b.share * 100).toFixed(1).padStart(5)}%  ${(b.ms / 1000).toFixed(2).padStart(7)} s  ${b.bucket}\n`);
    process.stdout.write('  top functions (self time):\n');
    for (const fn of s.topFunctions) process.stdout.write(`  ${(fn.share * 100).toFixed(1).padStart(5)}%  ${fn.name}\n`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) main();
