/**
 * `chs ingest` limits the heap growth of its threads (heap-growth.ts). V8 flags are process-wide
 * and a new worker thread resets them, so this runs in child processes of their own: the ingest
 * pool's two workers start and parse a message each, then the main thread does what it does in
 * an ingest (keeps many objects alive for a while, some long enough to reach the old generation,
 * beside a steady live set) and the child reports its young generation's size.
 *
 * The young generation's size says whether the flags are in force after the workers started
 * (both are set by one call). What the old generation's cap saves is a memory figure, and so is
 * measured where it means something, on the whole `chs ingest` in bench/ (peak RSS): in this
 * small loop the heap's peak depends on how far concurrent marking lags behind allocation, which
 * varies from box to box (on 11-28's box the capped loop peaked at 123-194 MB, the uncapped at
 * 206-286, where earlier boxes gave ~95 and ~225), so it is not asserted here.
 */
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { workerFile } from './pool.js';

const built = (file: string) => JSON.stringify(pathToFileURL(workerFile().replace(/worker\.js$/, file)).href);

const CHILD = `
import { getHeapSpaceStatistics } from 'node:v8';
import { setImmediate as turn } from 'node:timers/promises';
import { limitHeapGrowth } from ${built('heap-growth.js')};
import { createProcessPool } from ${built('pool.js')};
if (process.argv[1] === 'limit') limitHeapGrowth();
const pool = createProcessPool(2);
const rules = { ownDomains: ['ourco.com'], blocklist: [] };
const message = (n) => ({
  location: 'm' + n,
  raw: new TextEncoder().encode('From: ana@client.example\\r\\nTo: me@ourco.com\\r\\nDate: Mon, 3 Mar 2025 10:00:00 +0000\\r\\nMessage-ID: <' + n + '@t>\\r\\nSubject: hi\\r\\n\\r\\nWe will not renew.\\r\\n'),
});
// Both workers up (their start resets V8's flags) and their parse stack loaded.
const results = await Promise.all([1, 2].map((n) => pool.run({ messages: [message(n)], rules })));
if (results.flat().some((r) => r.outcome !== 'kept')) throw new Error(JSON.stringify(results));
const live = Array.from({ length: 200_000 }, (_, i) => ({ i, text: 'live ' + i }));
const kept = [];
for (let round = 0; round < 400; round++) {
  kept.push(Array.from({ length: 5_000 }, (_, i) => ({ i, text: 'message ' + i + ' ' + round })));
  if (kept.length > 50) kept.shift();
  if (round % 10 === 0) await turn();
}
await pool.close();
const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
process.stdout.write(JSON.stringify({ youngMb: young.space_size / 2 ** 20, live: live.length, kept: kept.length }));
`;

async function heapOf(mode: 'limit' | 'default'): Promise<{ youngMb: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD, mode], { timeout: 60_000 });
  return JSON.parse(stdout) as { youngMb: number };
}

describe('limitHeapGrowth', () => {
  it('keeps the main thread young generation at its start size while the ingest workers run, where it grows to its ceiling without', async () => {
    const limited = await heapOf('limit');
    const grown = await heapOf('default');
    expect(limited.youngMb).toBeLessThanOrEqual(4);
    expect(grown.youngMb).toBeGreaterThanOrEqual(16);
  });
});
