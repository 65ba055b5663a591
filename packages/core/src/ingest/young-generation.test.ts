/**
 * `chs ingest` holds its main thread's young generation at the start size (young-generation.ts).
 * V8 flags are process-wide and a new worker thread resets them, so this runs in a child process
 * of its own: the ingest pool's two workers start, the main thread then keeps many short-lived
 * objects alive for a while (as it does with parsed messages until their batch is written), and
 * the child reports its young generation's size.
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
import { holdYoungGeneration } from ${built('young-generation.js')};
import { createProcessPool } from ${built('pool.js')};
if (process.argv[1] === 'hold') holdYoungGeneration();
const pool = createProcessPool(2);
const rules = { ownDomains: ['ourco.com'], blocklist: [] };
const message = (n) => ({
  location: 'm' + n,
  raw: new TextEncoder().encode('From: ana@client.example\\r\\nTo: me@ourco.com\\r\\nDate: Mon, 3 Mar 2025 10:00:00 +0000\\r\\nMessage-ID: <' + n + '@t>\\r\\nSubject: hi\\r\\n\\r\\nWe will not renew.\\r\\n'),
});
// Both workers up and their parse stack loaded: each has had a message to parse.
const results = await Promise.all([1, 2].map((n) => pool.run({ messages: [message(n)], rules })));
if (results.flat().some((r) => r.outcome !== 'kept')) throw new Error(JSON.stringify(results));
const kept = [];
for (let round = 0; round < 60; round++) {
  kept.push(Array.from({ length: 20_000 }, (_, i) => ({ i, text: 'message ' + i })));
  if (kept.length > 30) kept.shift();
  await turn();
}
await pool.close();
const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
process.stdout.write(String(young.space_size));
`;

async function youngGenerationMb(mode: 'hold' | 'default'): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD, mode], { timeout: 60_000 });
  return Number(stdout) / 1024 / 1024;
}

describe('holdYoungGeneration', () => {
  it('keeps the main thread young generation small while the ingest workers run; without it V8 grows it', async () => {
    const [held, grown] = await Promise.all([youngGenerationMb('hold'), youngGenerationMb('default')]);
    expect(held).toBeLessThanOrEqual(4);
    expect(grown).toBeGreaterThanOrEqual(16);
  });
});
