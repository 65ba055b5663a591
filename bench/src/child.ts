/**
 * Child-process entry: `node bench/dist/child.js <task> <args-json> <out-file>`. Runs one task of
 * tasks.ts and writes its JSON result to <out-file> (stdout stays free for logs).
 */
import { writeFileSync } from 'node:fs';
import { TASKS, type TaskName } from './tasks.js';

const [name, argsJson, outFile] = process.argv.slice(2);
if (!name || !(name in TASKS) || !argsJson || !outFile) {
  process.stderr.write(`usage: child.js <${Object.keys(TASKS).join('|')}> <args-json> <out-file>\n`);
  process.exit(2);
}
const task = TASKS[name as TaskName] as (a: unknown) => Promise<unknown>;
const result = await task(JSON.parse(argsJson));
writeFileSync(outFile, JSON.stringify(result));
