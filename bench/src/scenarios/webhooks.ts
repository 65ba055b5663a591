/**
 * Webhooks: a burst of 1,000 events delivered by the dispatcher of a runner's process, on SQLite
 * and PostgreSQL (webhook-burst.ts, in a fresh child process each). Reported as ratios of two
 * measurements of the same process: the delivery against the same signed POSTs sent with no queue,
 * and the foreground work (a trivial read in a loop, the ingest of small.mbox) during the burst
 * against the same work without one (the mean of before and after).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_BENCH_PG_URL, freshDatabase, benchDialects } from '../command.js';
import { round } from '../measure.js';
import { REPO_DIR, TMP_DIR } from '../paths.js';
import { metric, target, type BenchResult } from '../results.js';
import { runChild } from '../spawn.js';
import type { LoopStats } from '../webhook-burst.js';
import { startResult, type Log } from './common.js';

export interface WebhooksScenarioOptions {
  /** Events per burst. Default 1,000. */
  events?: number;
  /** Length of each read-loop baseline (ms). Default 2,000. */
  readMs?: number;
  /** small.mbox ingests per baseline. Default 8. */
  ingests?: number;
  /** PostgreSQL admin URL (a fresh database is made and dropped), or `none`. Default CHS_TEST_PG_URL or loopback. */
  pgUrl?: string;
  dir?: string;
  log?: Log;
}

const SMALL_MBOX = join(REPO_DIR, 'fixtures', 'mailboxes', 'small.mbox');

const mean = (a: number, b: number) => (a + b) / 2;
const rate = (s: LoopStats) => s.n / (s.wallMs / 1000);

export async function webhooksScenario(o: WebhooksScenarioOptions = {}): Promise<BenchResult> {
  const log = o.log ?? (() => undefined);
  const events = o.events ?? 1000;
  const pgUrl = o.pgUrl ?? DEFAULT_BENCH_PG_URL;
  const dir = o.dir ?? TMP_DIR;
  const r = startResult('webhooks', { events, mbox: 'fixtures/mailboxes/small.mbox' });
  const { metrics: m, details } = r;
  const dialects = await benchDialects(pgUrl, details);
  for (const d of dialects) {
    log(`${events} events at once for one endpoint, beside a read loop and small.mbox ingests (${d}) …`);
    mkdirSync(dir, { recursive: true });
    const db = await freshDatabase(d, dir, pgUrl);
    try {
      const res = await runChild('webhookBurst', {
        db: db.url,
        mbox: SMALL_MBOX,
        events,
        ...(o.readMs ? { readMs: o.readMs } : {}),
        ...(o.ingests ? { ingests: o.ingests } : {}),
      });
      details[d] = res;
      const { read, ingest, bursts } = res;
      const burst = bursts.read;
      m[`webhooks.${d}.deliverSec`] = metric(
        round(burst.deliverMs / 1000, 2),
        's',
        'time',
        `${events} events, commit → the last delivered (beside the read loop)`,
      );
      m[`webhooks.${d}.deliveriesPerSec`] = metric(round(events / (burst.deliverMs / 1000), 0), 'deliveries/s', 'throughput', 'beside the read loop');
      m[`webhooks.${d}.deliveriesPerSecBesideIngest`] = metric(
        round(events / (bursts.ingest.deliverMs / 1000), 0),
        'deliveries/s',
        'throughput',
        'beside the small.mbox ingests',
      );
      m[`webhooks.${d}.recordMs`] = metric(round(burst.recordMs, 0), 'ms', 'time', `recording ${events} events in one transaction (outbox + fan-out)`);
      m[`ratio.webhooks.${d}.vsBarePosts`] = metric(
        round(res.barePostMs / burst.deliverMs, 2),
        '×',
        'ratio',
        'time of the same signed POSTs sent straight at the same concurrency ÷ the dispatcher’s time (1 = no cost for the queue)',
      );
      const readBase = {
        p50: mean(read.before.p50Ms, read.after.p50Ms),
        p99: mean(read.before.p99Ms, read.after.p99Ms),
        rate: mean(rate(read.before), rate(read.after)),
      };
      m[`webhooks.${d}.read.p50Ms`] = metric(
        round(read.during.p50Ms, 3),
        'ms',
        'latency',
        `a trivial indexed read during the burst, its wait for the event loop included (${round(readBase.p50, 3)} ms without)`,
      );
      m[`webhooks.${d}.read.p99Ms`] = metric(round(read.during.p99Ms, 2), 'ms', 'latency', `during the burst (${round(readBase.p99, 2)} ms without)`);
      m[`webhooks.${d}.read.p50Slowdown`] = metric(
        round(read.during.p50Ms / readBase.p50, 2),
        '×',
        'latency',
        'read p50 during the burst ÷ without (mean of before and after)',
      );
      m[`webhooks.${d}.read.p99Slowdown`] = metric(round(read.during.p99Ms / readBase.p99, 2), '×', 'latency', 'read p99 during the burst ÷ without');
      m[`ratio.webhooks.${d}.readRate`] = metric(round(rate(read.during) / readBase.rate, 4), '×', 'ratio', 'reads per second during the burst ÷ without');
      m[`webhooks.${d}.read.maxMs`] = metric(
        round(read.during.maxMs, 1),
        'ms',
        'latency',
        `the slowest read during the burst (${round(Math.max(read.before.maxMs, read.after.maxMs), 1)} ms without)`,
      );
      const ingestBase = mean(ingest.before.meanMs, ingest.after.meanMs);
      m[`webhooks.${d}.ingest.meanMs`] = metric(
        round(ingest.during.meanMs, 0),
        'ms',
        'latency',
        `one small.mbox ingest (${res.messagesPerIngest} messages) during a burst (${round(ingestBase, 0)} ms without)`,
      );
      m[`webhooks.${d}.ingest.slowdown`] = metric(round(ingest.during.meanMs / ingestBase, 2), '×', 'latency', 'mean ingest time during a burst ÷ without');
      m[`webhooks.${d}.loopDelayP99Ms`] = metric(
        round(read.during.loopDelayP99Ms, 1),
        'ms',
        'latency',
        `event-loop delay p99 during the burst (${round(mean(read.before.loopDelayP99Ms, read.after.loopDelayP99Ms), 1)} ms without)`,
      );
      // The warm-up burst and the two measured ones: 3 × events, each once.
      m[`webhooks.${d}.lost`] = metric(3 * events - res.received.distinctIds, 'events', 'count', 'recorded but never received');
      m[`webhooks.${d}.duplicates`] = metric(res.received.requests - res.received.distinctIds, 'requests', 'count', 'requests beyond one per webhook-id');
      r.targets.push(target(`${d}: no event lost`, m, `webhooks.${d}.lost`, '<=', 0));
      r.targets.push(target(`${d}: no event sent twice`, m, `webhooks.${d}.duplicates`, '<=', 0));
      r.targets.push(target(`${d}: small.mbox ingest keeps at least half its speed during a burst (≤ 2×)`, m, `webhooks.${d}.ingest.slowdown`, '<=', 2));
      r.targets.push(target(`${d}: a read waits ≤ 100 ms at p99 during a burst`, m, `webhooks.${d}.read.p99Ms`, '<=', 100));
    } finally {
      await db.drop();
    }
  }
  return r.finish();
}
