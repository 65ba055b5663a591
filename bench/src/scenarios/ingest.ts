/**
 * Ingestion: a generated mbox ingested end to end into a fresh SQLite database, beside two
 * baselines measured in the same run on the same file: the mbox split alone, and mailparser's
 * `simpleParser` with default options, sequential on one thread. Every step runs in its own
 * child process. Stage times come from two places: the pipeline's own main-thread timings
 * (read/split, waiting on workers, writer) and a sequential per-stage pass over a sample.
 */
import { join } from 'node:path';
import { DEFAULT_BACKEND, type BackendName } from '@chs/core';
import { ensureMailbox } from '../mailbox.js';
import { MB, round } from '../measure.js';
import { TMP_DIR } from '../paths.js';
import { metric, target, type BenchResult } from '../results.js';
import { runChild } from '../spawn.js';
import type { IngestResult } from '../tasks.js';
import { peakRss, startResult, type Log } from './common.js';

export interface IngestScenarioOptions {
  /** Messages in the mailbox. Default 50,000. */
  messages?: number;
  /** Messages the mailparser baseline parses (the first N). Default: all of them. */
  baselineSample?: number;
  /** Messages of the sequential per-stage pass (it parses each message three times). Default 3,000. */
  stagesSample?: number;
  /** Worker threads of the pipeline. Default 2. */
  workers?: number;
  /** Parser backends run end to end; the first is the headline. Default: the pipeline's default, then the other. */
  parsers?: BackendName[];
  /** Folder for the mailbox and databases. Default bench/tmp. */
  dir?: string;
  /** Write V8 CPU profiles of the end-to-end runs (main thread and workers) here. */
  cpuProfileDir?: string;
  log?: Log;
}

export async function ingestScenario(o: IngestScenarioOptions = {}): Promise<BenchResult> {
  const log = o.log ?? (() => undefined);
  const count = o.messages ?? 50_000;
  const dir = o.dir ?? TMP_DIR;
  const workers = o.workers ?? 2;
  const parsers = o.parsers ?? [DEFAULT_BACKEND, ...(['postal-mime', 'mailparser'] as const).filter((p) => p !== DEFAULT_BACKEND)];
  const box = await ensureMailbox(count, dir, log);
  const baselineSample = Math.min(o.baselineSample ?? box.messages, box.messages);
  const stagesSample = Math.min(o.stagesSample ?? 3000, box.messages);
  const r = startResult('ingest', { messages: box.messages, baselineSample, stagesSample, workers, parsers, defaultParser: DEFAULT_BACKEND, mailbox: box.path });
  const { metrics: m, details } = r;
  const fileMB = box.bytes / MB;
  m['input.messages'] = metric(box.messages, 'msgs', 'count');
  m['input.fileMB'] = metric(round(fileMB), 'MB', 'count');
  m['input.meanKB'] = metric(round(box.sizes.meanBytes / 1024), 'KB', 'count');
  m['input.medianKB'] = metric(round(box.sizes.medianBytes / 1024), 'KB', 'count');
  details.sizes = box.sizes;

  log(`split only (${box.messages} messages) …`);
  const split = await runChild('split', { path: box.path });
  details.split = split;
  m['split.msgsPerSec'] = metric(round(split.messages / (split.wallMs / 1000), 0), 'msgs/s', 'throughput', 'mboxSource iteration alone, one thread');
  m['split.MBps'] = metric(round(fileMB / (split.wallMs / 1000)), 'MB/s', 'throughput');

  log(`baseline: mailparser simpleParser, default options, sequential (${baselineSample} messages) …`);
  const base = await runChild('baseline', { path: box.path, limit: baselineSample });
  details.baseline = base;
  const baseRate = base.messages / (base.parseMs / 1000);
  m['baseline.mailparser.msgsPerSec'] = metric(round(baseRate, 0), 'msgs/s', 'throughput', 'messages / time inside simpleParser (split left out)');
  m['baseline.mailparser.cpuMsPerMsg'] = metric(round(base.cpuMs / base.messages, 3), 'ms/msg', 'time', 'CPU of the process (split included) / messages');
  m['baseline.mailparser.coresUsed'] = metric(round(base.cpuMs / base.wallMs, 2), 'cores', 'count', 'CPU time ÷ wall time: below 1 means other work took the core');
  m['baseline.mailparser.withSplit.msgsPerSec'] = metric(round(base.messages / (base.wallMs / 1000), 0), 'msgs/s', 'throughput', 'wall time, split included');

  log(`per-stage pass, sequential (${stagesSample} messages) …`);
  const stages = await runChild('stages', { path: box.path, limit: stagesSample, workspace: box.workspace });
  details.stages = stages;
  m['stages.bodyParsedShare'] = metric(round(stages.bodyParsedShare, 3), 'share', 'count', 'messages kept after head, filter and resolve: the only ones MIME-parsed');
  for (const [k, v] of Object.entries(stages.msPerMessage)) m[`stages.${k}.cpuMsPerMsg`] = metric(round(v, 3), 'ms/msg', 'time', 'CPU time, one thread, sequential sample');

  const runs: Record<string, IngestResult> = {};
  for (const parser of parsers) {
    log(`end to end with ${parser}, ${workers} workers (${box.messages} messages) …`);
    const res = await runChild(
      'ingest',
      { path: box.path, db: join(dir, `ingest-${parser}.db`), workspace: box.workspace, workers, parser },
      o.cpuProfileDir ? { cpuProfileDir: join(o.cpuProfileDir, parser) } : {},
    );
    runs[parser] = res;
    const p = `e2e.${parser}`;
    const n = Number(res.summary.itemsProcessed);
    m[`${p}.msgsPerSec`] = metric(round(n / (res.ingestMs / 1000), 0), 'msgs/s', 'throughput', 'parse → filter → resolve → score → store (ingestSource)');
    m[`${p}.MBps`] = metric(round(fileMB / (res.ingestMs / 1000)), 'MB/s', 'throughput');
    m[`${p}.withHealth.msgsPerSec`] = metric(round(n / (res.wallMs / 1000), 0), 'msgs/s', 'throughput', 'engine.ingest: the above plus the health rebuild');
    m[`${p}.healthSec`] = metric(round(res.healthMs / 1000, 2), 's', 'time');
    m[`${p}.peakRssMB`] = metric(round(peakRss(res) / MB), 'MB', 'memory', 'whole process (workers included): max of 25 ms samples and VmHWM');
    if (res.ingestPhasePeakBytes !== null) m[`${p}.ingestPhasePeakRssMB`] = metric(round(res.ingestPhasePeakBytes / MB), 'MB', 'memory', 'peak up to the last batch stored');
    if (res.healthPhasePeakBytes !== null) m[`${p}.healthPhasePeakRssMB`] = metric(round(res.healthPhasePeakBytes / MB), 'MB', 'memory', 'peak during the health rebuild after it');
    m[`${p}.cpuMsPerMsg`] = metric(round(res.cpuMs / n, 3), 'ms/msg', 'time', 'user+system CPU of all threads / messages');
    m[`${p}.coresUsed`] = metric(round(res.cpuMs / res.wallMs, 2), 'cores', 'count', 'CPU time ÷ wall time of the whole process (health rebuild included)');
    m[`${p}.main.readSec`] = metric(round(res.stages.readMs / 1000, 2), 's', 'time', 'main thread: reading and splitting the mbox');
    m[`${p}.main.waitWorkersSec`] = metric(round(res.stages.waitMs / 1000, 2), 's', 'time', 'main thread: waiting for parse/filter/score results');
    m[`${p}.main.writeSec`] = metric(round(res.stages.writeMs / 1000, 2), 's', 'time', 'main thread: resolve + store (single writer)');
    m[`ratio.${parser}`] = metric(round(n / (res.ingestMs / 1000) / baseRate, 2), '×', 'ratio', 'end-to-end msgs/s ÷ sequential mailparser parse-only msgs/s');
  }
  details.e2e = runs;

  const head = parsers[0]!;
  r.targets.push(target(`end-to-end (${head}) ≥ 2× sequential mailparser parse-only`, m, `ratio.${head}`, '>=', 2));
  for (const p of parsers.slice(1)) r.targets.push(target(`end-to-end (${p}) ≥ 2× sequential mailparser parse-only`, m, `ratio.${p}`, '>=', 2));
  if (box.messages >= 50_000) r.targets.push(target(`peak RSS of the ${box.messages}-message ingestion (${head}) < 400 MB`, m, `e2e.${head}.peakRssMB`, '<=', 400));
  return r.finish();
}
