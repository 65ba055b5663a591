/**
 * `npm run bench [-- <scenario>...] [options]`: runs the scenarios (default: all), writes
 * bench/results/<timestamp>-<scenario>.json, latest-<scenario>.json and latest.json, prints a table.
 * See bench/README.md.
 */
import { parseArgs } from 'node:util';
import { BACKEND_NAMES, type BackendName } from '@chs/core';
import { apiScenario } from './scenarios/api.js';
import { gmailScenario } from './scenarios/gmail.js';
import { ingestScenario } from './scenarios/ingest.js';
import { memoryScenario } from './scenarios/memory.js';
import { scaleScenario } from './scenarios/scale.js';
import { storageScenario } from './scenarios/storage.js';
import { webhooksScenario } from './scenarios/webhooks.js';
import { MAILBOX_SHAPES, type MailboxShape } from './mailbox.js';
import { RESULTS_DIR, TMP_DIR } from './paths.js';
import { scaleOutScenario } from './scale-out.js';
import { formatTable, SCENARIOS, writeLatest, writeResult, type BenchResult, type ScenarioName } from './results.js';

const USAGE = `usage: npm run bench [-- [ingest] [memory] [api] [gmail] [webhooks] [storage] [scale] [options]]
  ingest:  --messages 50000 --profile client|mixed --shape attachments|small|both (default both) --runs 1 (whole commands per dialect and shape)
           --db <postgres admin URL>|none --baseline-sample <all> --stages-sample 3000
           --workers 2 --parsers <the default; or postal-mime,mailparser> --cpu-prof <dir>
  memory:  --sizes 50000,200000 --profile client|mixed (the whole chs ingest, SQLite)
  api:     --clients 5000 --interactions 1000000 --duration 10 --connections 10
  gmail:   --messages 50000 --quota-scale 10 (Gmail's 15,000 units/min × K, window 60 s) --window-ms 60000 --batch-size 1000 --no-client-limit
  webhooks: --events 1000 --db <postgres admin URL>|none (a burst delivered beside a read loop and small.mbox ingests)
  storage: --messages 20000 --db <postgres admin URL>|none (history bytes per client-day: the demo and a client mailbox)
  scale (only when named): --clients 10000 --interactions <100 a client> --duration 10 --connections 10 --db <postgres admin URL>|none
  scale-out (only when named; PostgreSQL + Redis): --messages 5000 --duration 10 --connections 12
  common:  --tmp-dir bench/tmp --results-dir bench/results`;

function int(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${v}"`);
  return n;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      messages: { type: 'string' },
      events: { type: 'string' },
      'baseline-sample': { type: 'string' },
      'stages-sample': { type: 'string' },
      workers: { type: 'string' },
      parsers: { type: 'string' },
      'cpu-prof': { type: 'string' },
      profile: { type: 'string' },
      shape: { type: 'string' },
      runs: { type: 'string' },
      db: { type: 'string' },
      sizes: { type: 'string' },
      clients: { type: 'string' },
      interactions: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      'quota-scale': { type: 'string' },
      'window-ms': { type: 'string' },
      'batch-size': { type: 'string' },
      'no-client-limit': { type: 'boolean' },
      'tmp-dir': { type: 'string' },
      'results-dir': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  for (const p of positionals) if (!(SCENARIOS as readonly string[]).includes(p)) throw new Error(`unknown scenario "${p}"\n${USAGE}`);
  // scale-out needs PostgreSQL and Redis, scale builds and rebuilds a 10,000-client workspace on
  // both dialects: they run when named (`npm run bench -- scale`).
  const chosen: ScenarioName[] = positionals.length ? (positionals as ScenarioName[]) : SCENARIOS.filter((s) => s !== 'scale-out' && s !== 'scale');
  if (values.db !== undefined && values.db !== 'none' && !/^postgres(ql)?:\/\//.test(values.db))
    throw new Error(`--db must be a postgres:// URL or none, got "${values.db}"`);
  const parsers = values.parsers?.split(',').map((p) => {
    if (!(BACKEND_NAMES as readonly string[]).includes(p)) throw new Error(`unknown parser "${p}" (${BACKEND_NAMES.join(', ')})`);
    return p as BackendName;
  });
  const dir = values['tmp-dir'] ?? TMP_DIR;
  const resultsDir = values['results-dir'] ?? RESULTS_DIR;
  const log = (line: string) => process.stdout.write(`  · ${line}\n`);
  const started = Date.now();
  const results: BenchResult[] = [];
  for (const scenario of chosen) {
    process.stdout.write(`▶ ${scenario}\n`);
    let result: BenchResult;
    if (scenario === 'ingest') {
      const messages = int('messages', values.messages);
      const baselineSample = int('baseline-sample', values['baseline-sample']);
      const stagesSample = int('stages-sample', values['stages-sample']);
      const workers = int('workers', values.workers);
      const runs = int('runs', values.runs);
      const profile = values.profile;
      if (profile !== undefined && profile !== 'client' && profile !== 'mixed') throw new Error(`--profile must be client or mixed, got "${profile}"`);
      const shape = values.shape;
      if (shape !== undefined && shape !== 'both' && !(MAILBOX_SHAPES as readonly string[]).includes(shape))
        throw new Error(`--shape must be ${MAILBOX_SHAPES.join(', ')} or both, got "${shape}"`);
      result = await ingestScenario({
        ...(profile ? { profile } : {}),
        ...(shape && shape !== 'both' ? { shapes: [shape as MailboxShape] } : {}),
        ...(runs ? { runs } : {}),
        ...(values.db ? { pgUrl: values.db } : {}),
        dir,
        log,
        ...(messages ? { messages } : {}),
        ...(baselineSample ? { baselineSample } : {}),
        ...(stagesSample ? { stagesSample } : {}),
        ...(workers ? { workers } : {}),
        ...(parsers ? { parsers } : {}),
        ...(values['cpu-prof'] ? { cpuProfileDir: values['cpu-prof'] } : {}),
      });
    } else if (scenario === 'memory') {
      const sizes = values.sizes?.split(',').map((s) => int('sizes', s)!);
      const profile = values.profile;
      if (profile !== undefined && profile !== 'client' && profile !== 'mixed') throw new Error(`--profile must be client or mixed, got "${profile}"`);
      result = await memoryScenario({ dir, log, ...(sizes ? { sizes } : {}), ...(profile ? { profile } : {}) });
    } else if (scenario === 'gmail') {
      const messages = int('messages', values.messages);
      const quotaScale = values['quota-scale'] === undefined ? undefined : Number(values['quota-scale']);
      if (quotaScale !== undefined && !(quotaScale > 0)) throw new Error(`--quota-scale must be a positive number, got "${values['quota-scale']}"`);
      const windowMs = int('window-ms', values['window-ms']);
      const batchSize = int('batch-size', values['batch-size']);
      result = await gmailScenario({
        dir,
        log,
        ...(messages ? { messages } : {}),
        ...(quotaScale ? { quotaScale } : {}),
        ...(windowMs ? { windowMs } : {}),
        ...(batchSize ? { batchSize } : {}),
        ...(values['no-client-limit'] ? { clientLimit: false } : {}),
      });
    } else if (scenario === 'webhooks') {
      const events = int('events', values.events);
      result = await webhooksScenario({ dir, log, ...(events ? { events } : {}), ...(values.db ? { pgUrl: values.db } : {}) });
    } else if (scenario === 'storage') {
      const messages = int('messages', values.messages);
      result = await storageScenario({ dir, log, ...(messages ? { messages } : {}), ...(values.db ? { pgUrl: values.db } : {}) });
    } else if (scenario === 'scale') {
      const clients = int('clients', values.clients);
      const interactions = int('interactions', values.interactions);
      const duration = int('duration', values.duration);
      const connections = int('connections', values.connections);
      result = await scaleScenario({
        dir,
        log,
        ...(clients ? { clients } : {}),
        ...(interactions ? { interactions } : {}),
        ...(duration ? { duration } : {}),
        ...(connections ? { connections } : {}),
        ...(values.db ? { pgUrl: values.db } : {}),
      });
    } else if (scenario === 'scale-out') {
      const messages = int('messages', values.messages);
      const duration = int('duration', values.duration);
      const connections = int('connections', values.connections);
      result = await scaleOutScenario({ log, ...(messages ? { messages } : {}), ...(duration ? { duration } : {}), ...(connections ? { connections } : {}) });
    } else {
      const clients = int('clients', values.clients);
      const interactions = int('interactions', values.interactions);
      const duration = int('duration', values.duration);
      const connections = int('connections', values.connections);
      result = await apiScenario({
        dir,
        log,
        ...(clients ? { clients } : {}),
        ...(interactions ? { interactions } : {}),
        ...(duration ? { duration } : {}),
        ...(connections ? { connections } : {}),
      });
    }
    const file = writeResult(result, resultsDir);
    results.push(result);
    process.stdout.write(`${formatTable(result)}\n  → ${file}\n\n`);
  }
  writeLatest(results, resultsDir);
  const missed = results.flatMap((r) => r.targets.filter((t) => t.met === false).map((t) => `${r.scenario}: ${t.name}`));
  process.stdout.write(`done in ${((Date.now() - started) / 1000).toFixed(0)} s; targets missed: ${missed.length ? `\n  ${missed.join('\n  ')}` : 'none'}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
