/**
 * The bundle budget, checked by `npm run build -w dashboard` (and so by `npm ci`): the files the
 * first screen loads — index.html, its entry script and every chunk that script imports
 * statically, and their CSS — may weigh at most BUDGET_KB kilobytes gzipped. Over it, the build
 * fails. Chunks loaded later (dynamic imports) are reported but not counted.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const BUDGET_KB = 300;
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;

/** The first screen's files from Vite's manifest: the entry and its static imports, with their CSS. */
function firstScreenFiles(manifest) {
  const entry = Object.entries(manifest).find(([, chunk]) => chunk.isEntry);
  if (!entry) throw new Error('dist/.vite/manifest.json has no entry');
  const files = new Set(['index.html']);
  const visit = (key) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const imp of chunk.imports ?? []) visit(imp);
  };
  visit(entry[0]);
  return [...files];
}

function allFiles(dir, prefix = '') {
  return readdirSync(dir).flatMap((name) => {
    const rel = prefix ? `${prefix}/${name}` : name;
    return statSync(join(dir, name)).isDirectory() ? (name === '.vite' ? [] : allFiles(join(dir, name), rel)) : [rel];
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
  const first = firstScreenFiles(manifest);
  let total = 0;
  for (const f of first) {
    const size = gz(f);
    total += size;
    console.log(`  ${f.padEnd(40)} ${(size / 1024).toFixed(1).padStart(7)} KB gzip`);
  }
  const later = allFiles(dist).filter((f) => !first.includes(f));
  for (const f of later) console.log(`  ${f.padEnd(40)} ${(gz(f) / 1024).toFixed(1).padStart(7)} KB gzip (not on the first screen)`);
  const kb = total / 1024;
  if (kb > BUDGET_KB) {
    console.error(`dashboard bundle budget: the first screen is ${kb.toFixed(1)} KB gzip, over the budget of ${BUDGET_KB} KB`);
    process.exit(1);
  }
  console.log(`dashboard bundle budget: the first screen is ${kb.toFixed(1)} KB gzip (budget ${BUDGET_KB} KB)`);
}
