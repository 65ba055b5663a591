/**
 * Memory curve: peak RSS of the whole `chs ingest --json` command (workers included) on a
 * mid-size and a large client-heavy mailbox, each in its own process on a fresh SQLite database.
 * Streaming means the large one peaks like the small one: what a run holds is bounded by the
 * messages in flight, the batch being written and the per-client state, not by the mailbox.
 */
import { ensureMailbox, type MailboxProfile } from '../mailbox.js';
import { MB, round } from '../measure.js';
import { TMP_DIR } from '../paths.js';
import { metric, target, type BenchResult } from '../results.js';
import { wholeCommand } from '../command.js';
import { startResult, type Log } from './common.js';

export interface MemoryScenarioOptions {
  /** Mailbox sizes, smallest first. Default [50,000, 200,000]. */
  sizes?: number[];
  /** What the mailboxes hold (mailbox.ts). Default `client`. */
  profile?: MailboxProfile;
  dir?: string;
  log?: Log;
}

export async function memoryScenario(o: MemoryScenarioOptions = {}): Promise<BenchResult> {
  const log = o.log ?? (() => undefined);
  const sizes = [...(o.sizes ?? [50_000, 200_000])].sort((a, b) => a - b);
  const dir = o.dir ?? TMP_DIR;
  const profile = o.profile ?? 'client';
  const r = startResult('memory', { sizes, profile });
  const { metrics: m, details } = r;
  const peaks: number[] = [];
  for (const size of sizes) {
    const box = await ensureMailbox(size, dir, log, profile);
    log(`whole chs ingest, ${size} messages, SQLite …`);
    const res = await wholeCommand('sqlite', box.path, box.workspace, dir, 'none');
    details[`command${size}`] = { ...res, stdout: undefined };
    peaks.push(res.peakRssBytes);
    const n = res.summary.itemsProcessed;
    m[`memory.${size}.peakRssMB`] = metric(round(res.peakRssBytes / MB), 'MB', 'memory', `whole chs ingest process, workers included (${res.method})`);
    m[`memory.${size}.msgsPerSec`] = metric(round(n / (res.wallMs / 1000), 0), 'msgs/s', 'throughput', 'the whole command');
    m[`memory.${size}.fileMB`] = metric(round(box.bytes / MB), 'MB', 'count');
  }
  const small = sizes[0]!;
  const large = sizes[sizes.length - 1]!;
  if (sizes.length > 1) {
    m['memory.peakRatio'] = metric(round(peaks[peaks.length - 1]! / peaks[0]!, 2), '×', 'memory', `peak RSS at ${large} ÷ peak RSS at ${small}`);
    r.targets.push(target(`peak RSS at ${large} within 1.1× of ${small}`, m, 'memory.peakRatio', '<=', 1.1));
  }
  for (const size of sizes)
    if (size <= 50_000) r.targets.push(target(`peak RSS of the whole chs ingest at ${size} < 350 MB`, m, `memory.${size}.peakRssMB`, '<=', 350));
  return r.finish();
}
