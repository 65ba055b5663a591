/**
 * `node bench/dist/compare.js <before.json> <after.json> [--tolerance 0.1]`: prints every metric's
 * change and exits 1 when a throughput, latency or ratio got more than 10% worse.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compareResults, DEFAULT_TOLERANCE, formatComparison, resultsOf } from './regressions.js';

function main(): number {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { tolerance: { type: 'string' } } });
  const [a, b] = positionals;
  if (!a || !b || positionals.length !== 2) {
    process.stderr.write('usage: node bench/dist/compare.js <before.json> <after.json> [--tolerance 0.1]\n');
    return 2;
  }
  const tolerance = values.tolerance === undefined ? DEFAULT_TOLERANCE : Number(values.tolerance);
  if (!(tolerance >= 0)) {
    process.stderr.write(`--tolerance must be a non-negative number, got "${values.tolerance}"\n`);
    return 2;
  }
  const before = resultsOf(JSON.parse(readFileSync(a, 'utf8')));
  const after = resultsOf(JSON.parse(readFileSync(b, 'utf8')));
  let regressions = 0;
  let compared = 0;
  for (const r of after) {
    const base = before.find((x) => x.scenario === r.scenario);
    if (!base) continue;
    const c = compareResults(base, r, tolerance);
    compared += 1;
    regressions += c.regressions.length;
    process.stdout.write(`${formatComparison(c)}\n`);
  }
  if (compared === 0) {
    process.stderr.write('the two files share no scenario\n');
    return 2;
  }
  process.stdout.write(
    regressions ? `${regressions} regression(s) beyond ${(tolerance * 100).toFixed(0)}%\n` : `no regression beyond ${(tolerance * 100).toFixed(0)}%\n`,
  );
  return regressions ? 1 : 0;
}

process.exitCode = main();
