/**
 * Memory curve: peak RSS of end-to-end ingestions of a small and a large mailbox, each in a fresh
 * child process so the peaks do not mix. Streaming means the large one peaks like the small one.
 */
import { join } from 'node:path';
import { DEFAULT_BACKEND } from '@chs/core';
import { ensureMailbox } from '../mailbox.js';
import { MB, round } from '../measure.js';
import { TMP_DIR } from '../paths.js';
import { metric, target, type BenchResult } from '../results.js';
import { runChild } from '../spawn.js';
import { peakRss, startResult, type Log } from './common.js';

export interface MemoryScenarioOptions {
  /** Mailbox sizes, smallest first. Default [20,000, 200,000]. */
  sizes?: number[];
  /** Worker threads. Default 2. */
  workers?: number;
  dir?: string;
  log?: Log;
}

export async function memoryScenario(o: MemoryScenarioOptions = {}): Promise<BenchResult> {
  const log = o.log ?? (() => undefined);
  const sizes = [...(o.sizes ?? [20_000, 200_000])].sort((a, b) => a - b);
  const dir = o.dir ?? TMP_DIR;
  const workers = o.workers ?? 2;
  const r = startResult('memory', { sizes, workers, parser: DEFAULT_BACKEND });
  const { metrics: m, details } = r;
  const peaks: number[] = [];
  for (const size of sizes) {
    const box = await ensureMailbox(size, dir, log);
    log(`end to end, ${size} messages, fresh process …`);
    const res = await runChild('ingest', { path: box.path, db: join(dir, `memory-${size}.db`), workspace: box.workspace, workers });
    details[`ingest${size}`] = res;
    const peak = peakRss(res);
    peaks.push(peak);
    const n = Number(res.summary.itemsProcessed);
    m[`memory.${size}.peakRssMB`] = metric(round(peak / MB), 'MB', 'memory', 'whole process (workers included): max of 25 ms samples and VmHWM');
    if (res.ingestPhasePeakBytes !== null) m[`memory.${size}.ingestPhasePeakRssMB`] = metric(round(res.ingestPhasePeakBytes / MB), 'MB', 'memory', 'peak up to the last batch stored');
    if (res.healthPhasePeakBytes !== null) m[`memory.${size}.healthPhasePeakRssMB`] = metric(round(res.healthPhasePeakBytes / MB), 'MB', 'memory', 'peak during the health rebuild after it');
    m[`memory.${size}.baselineRssMB`] = metric(round(res.rssBeforeBytes / MB), 'MB', 'memory', 'RSS before the run (engine open)');
    m[`memory.${size}.msgsPerSec`] = metric(round(n / (res.ingestMs / 1000), 0), 'msgs/s', 'throughput');
    m[`memory.${size}.fileMB`] = metric(round(box.bytes / MB), 'MB', 'count');
  }
  const small = sizes[0]!;
  const large = sizes[sizes.length - 1]!;
  if (sizes.length > 1) {
    m['memory.peakRatio'] = { ...metric(round(peaks[peaks.length - 1]! / peaks[0]!, 2), '×', 'memory', `peak RSS at ${large} ÷ peak RSS at ${small}`) };
    r.targets.push(target(`peak RSS at ${large} within 1.5× of ${small}`, m, 'memory.peakRatio', '<=', 1.5));
  }
  for (const size of sizes) if (size <= 50_000) r.targets.push(target(`peak RSS at ${size} < 400 MB`, m, `memory.${size}.peakRssMB`, '<=', 400));
  return r.finish();
}
