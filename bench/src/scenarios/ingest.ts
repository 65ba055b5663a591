/**
 * Ingestion. The headline is the whole `chs ingest --mbox … --json` command as a user runs it
 * (a child process from spawn to exit: start-up, ingest, health rebuild), on SQLite and on
 * PostgreSQL, against mailparser's `simpleParser` with default options over every message of the
 * same file, one after the other on one thread, the split included, in the same run: a baseline
 * run before each command and after it, their mean the command's reference (a shared machine's
 * speed drifts). The mailbox is a CSM's: 84 % client conversations, the rest free-mail, so nearly
 * every message is parsed; it comes in two shapes (mailbox.ts), each measured in turn: today's,
 * whose bytes are mostly attachments, and `small`, conversations with their quoted history.
 * Secondary rows: the mbox split alone, a sequential per-stage pass over a sample, and (today's
 * shape only) `engine.ingest` timed inside one process (`ingestSource` alone and with the rebuild).
 */
import { join } from 'node:path';
import { DEFAULT_BACKEND, type BackendName } from '@chs/core';
import { DEFAULT_BENCH_PG_URL, benchDialects, wholeCommand, type WholeCommandResult } from '../command.js';
import { ensureMailbox, MAILBOX_SHAPES, type BenchMailbox, type MailboxProfile, type MailboxShape } from '../mailbox.js';
import { MB, round } from '../measure.js';
import { TMP_DIR } from '../paths.js';
import { metric, target, type BenchResult, type Metric, type Target } from '../results.js';
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
  /** What the mailbox holds (mailbox.ts). Default `client`. */
  profile?: MailboxProfile;
  /**
   * Mailbox shapes (mailbox.ts), measured one after the other. Default both: `attachments`
   * (today's; its metrics keep their names) and `small` (its metrics are prefixed `small.`).
   */
  shapes?: MailboxShape[];
  /** Whole-command runs per dialect and shape, each between two baseline runs. Default 1. */
  runs?: number;
  /**
   * PostgreSQL server for the whole-command run on PostgreSQL (a fresh database is created on it
   * and dropped after). Default CHS_TEST_PG_URL or postgres://postgres@127.0.0.1:5432/postgres;
   * `none` skips it. When the server does not answer, the PostgreSQL rows are left out with a note.
   */
  pgUrl?: string;
  log?: Log;
}

export async function ingestScenario(o: IngestScenarioOptions = {}): Promise<BenchResult> {
  const log = o.log ?? (() => undefined);
  const count = o.messages ?? 50_000;
  const dir = o.dir ?? TMP_DIR;
  const workers = o.workers ?? 2;
  const parsers = o.parsers ?? [DEFAULT_BACKEND];
  const profile = o.profile ?? 'client';
  const shapes = MAILBOX_SHAPES.filter((s) => (o.shapes ?? MAILBOX_SHAPES).includes(s));
  if (shapes.length === 0) throw new Error('ingest: no mailbox shape to measure');
  const runs = o.runs ?? 1;
  const pgUrl = o.pgUrl ?? DEFAULT_BENCH_PG_URL;
  const boxes: BenchMailbox[] = [];
  for (const shape of shapes) boxes.push(await ensureMailbox(count, dir, log, profile, shape));
  const messages = boxes[0]!.messages;
  const baselineSample = Math.min(o.baselineSample ?? messages, messages);
  const stagesSample = Math.min(o.stagesSample ?? 3000, messages);
  const r = startResult('ingest', {
    messages,
    profile,
    shapes,
    runs,
    baselineSample,
    stagesSample,
    workers,
    parsers,
    defaultParser: DEFAULT_BACKEND,
    mailbox: boxes[0]!.path,
    mailboxes: Object.fromEntries(boxes.map((b) => [b.shape, b.path])),
  });

  const dialects = await benchDialects(pgUrl, r.details);
  for (const box of boxes) {
    // Today's shape keeps the metric names of earlier results (compare.js); the others get a prefix.
    const prefix = box.shape === 'attachments' ? '' : `${box.shape}.`;
    const details: Record<string, unknown> = box.shape === 'attachments' ? r.details : {};
    if (box.shape !== 'attachments') r.details[box.shape] = details;
    const { targets } = await measureShape(
      box,
      { ...o, log, dir, workers, parsers, runs, pgUrl, dialects, baselineSample, stagesSample },
      r.metrics,
      prefix,
      details,
    );
    r.targets.push(...targets);
  }
  return r.finish();
}

interface ShapeContext {
  log: Log;
  dir: string;
  workers: number;
  parsers: BackendName[];
  runs: number;
  pgUrl: string;
  dialects: Array<'sqlite' | 'postgres'>;
  baselineSample: number;
  stagesSample: number;
  cpuProfileDir?: string;
}

/** One mailbox: metrics under `prefix`, raw data into `details`. */
async function measureShape(
  box: BenchMailbox,
  o: ShapeContext,
  metrics: Record<string, Metric>,
  prefix: string,
  details: Record<string, unknown>,
): Promise<{ targets: Target[] }> {
  const { log, dir, workers, parsers, runs, pgUrl, dialects, baselineSample, stagesSample } = o;
  // This shape's metrics, copied into `metrics` under `prefix` at the end.
  const m: Record<string, Metric> = {};
  const shape = box.shape;
  const fileMB = box.bytes / MB;
  details.mailbox = box.path;
  m['input.messages'] = metric(box.messages, 'msgs', 'count');
  m['input.fileMB'] = metric(round(fileMB), 'MB', 'count');
  m['input.meanKB'] = metric(round(box.sizes.meanBytes / 1024), 'KB', 'count');
  m['input.medianKB'] = metric(round(box.sizes.medianBytes / 1024), 'KB', 'count');
  m['input.withAttachmentsShare'] = metric(round(box.sizes.withAttachments, 3), 'share', 'count', 'messages with at least one attachment');
  m['input.attachmentByteShare'] = metric(round(box.sizes.attachmentByteShare, 3), 'share', 'count', "the bytes of those messages ÷ the mailbox's");
  details.sizes = box.sizes;

  log(`[${shape}] split only (${box.messages} messages) …`);
  const split = await runChild('split', { path: box.path });
  details.split = split;
  m['split.msgsPerSec'] = metric(round(split.messages / (split.wallMs / 1000), 0), 'msgs/s', 'throughput', 'mboxSource iteration alone, one thread');
  m['split.MBps'] = metric(round(fileMB / (split.wallMs / 1000)), 'MB/s', 'throughput');

  // The baseline runs before the first command and after each one: a command's reference is the
  // mean of the runs just before and just after it, as a shared machine's speed drifts over the
  // minutes the commands take.
  const baselines: Array<Awaited<ReturnType<typeof runChild<'baseline'>>>> = [];
  const baseline = async (when: string) => {
    log(`[${shape}] baseline: mailparser simpleParser, default options, sequential (${baselineSample} messages) ${when} …`);
    const b = await runChild('baseline', { path: box.path, limit: baselineSample });
    baselines.push(b);
    return b;
  };
  const withSplit = (b: { messages: number; wallMs: number }) => b.messages / (b.wallMs / 1000);
  const base = await baseline('before the commands');
  details.baseline = base;
  const baseRate = base.messages / (base.parseMs / 1000);
  m['baseline.mailparser.msgsPerSec'] = metric(round(baseRate, 0), 'msgs/s', 'throughput', 'messages / time inside simpleParser (split left out)');
  m['baseline.mailparser.cpuMsPerMsg'] = metric(round(base.cpuMs / base.messages, 3), 'ms/msg', 'time', 'CPU of the process (split included) / messages');
  m['baseline.mailparser.coresUsed'] = metric(
    round(base.cpuMs / base.wallMs, 2),
    'cores',
    'count',
    'CPU time ÷ wall time: below 1 means other work took the core',
  );
  m['baseline.mailparser.withSplit.msgsPerSec'] = metric(round(withSplit(base), 0), 'msgs/s', 'throughput', 'wall time, split included (the first run)');

  // ── the headline: the whole command, on each dialect, each run between two baselines ──
  interface CommandRun extends WholeCommandResult {
    /** Mean of the baseline runs just before and just after it (msgs/s, split included). */
    baselineMsgsPerSec: number;
    ratio: number;
  }
  const commandRuns: Record<string, CommandRun[]> = {};
  let before = base;
  for (let run = 1; run <= runs; run++) {
    for (const dialect of dialects) {
      log(`[${shape}] whole command: chs ingest --mbox … --json on ${dialect} (${box.messages} messages${runs > 1 ? `, run ${run} of ${runs}` : ''}) …`);
      const c = await wholeCommand(dialect, box.path, box.workspace, dir, pgUrl);
      const after = await baseline(`after the ${dialect} command`);
      const reference = (withSplit(before) + withSplit(after)) / 2;
      (commandRuns[dialect] ??= []).push({ ...c, baselineMsgsPerSec: reference, ratio: c.summary.itemsProcessed / (c.wallMs / 1000) / reference });
      before = after;
    }
  }
  const commands: Record<string, CommandRun> = {};
  for (const [dialect, list] of Object.entries(commandRuns)) {
    // The run of the median ratio stands for the dialect: its figures are one run's, consistent.
    const sorted = [...list].sort((a, b) => a.ratio - b.ratio);
    const c = sorted[Math.floor((sorted.length - 1) / 2)]!;
    commands[dialect] = c;
    const s = c.summary;
    const n = s.itemsProcessed;
    const p = `command.${dialect}`;
    m[`${p}.wallSec`] = metric(round(c.wallMs / 1000, 2), 's', 'time', 'spawn to exit: start-up, ingest, health rebuild, close');
    m[`${p}.msgsPerSec`] = metric(round(n / (c.wallMs / 1000), 0), 'msgs/s', 'throughput', "messages ÷ the whole command's wall time");
    m[`${p}.peakRssMB`] = metric(round(c.peakRssBytes / MB), 'MB', 'memory', `whole process, workers included (${c.method})`);
    m[`${p}.cpuSec`] = metric(round(c.cpuMs / 1000, 1), 's', 'time', 'user + system CPU of all its threads');
    m[`${p}.coresUsed`] = metric(round(c.cpuMs / c.wallMs, 2), 'cores', 'count', 'CPU ÷ wall: 2 is both cores busy all along');
    if (s.startupMs !== undefined)
      m[`${p}.startupSec`] = metric(
        round(s.startupMs / 1000, 2),
        's',
        'time',
        'process start to the first message read: Node, modules, config, database opened and migrated',
      );
    m[`${p}.ingestSec`] = metric(round(s.durationMs / 1000, 2), 's', 'time', 'ingestSource inside the command: read → workers → store');
    if (s.health?.durationMs !== undefined)
      m[`${p}.healthSec`] = metric(round(s.health.durationMs / 1000, 2), 's', 'time', 'the health rebuild after the ingest');
    m[`${p}.main.readSec`] = metric(round(s.stages.readMs / 1000, 2), 's', 'time', 'main thread: reading and splitting the mbox');
    m[`${p}.main.waitWorkersSec`] = metric(round(s.stages.waitMs / 1000, 2), 's', 'time', 'main thread: waiting for worker results');
    m[`${p}.main.writeSec`] = metric(round(s.stages.writeMs / 1000, 2), 's', 'time', 'main thread: storing batches');
    if (s.health) m[`${p}.snapshots`] = metric(s.health.snapshotsWritten, 'rows', 'count', 'health snapshots written by the rebuild');
    m[`${p}.baselineMsgsPerSec`] = metric(
      round(c.baselineMsgsPerSec, 0),
      'msgs/s',
      'throughput',
      "the command's reference: mean of the baseline runs just before and just after it",
    );
    m[`ratio.command.${dialect}`] = metric(
      round(c.ratio, 2),
      '×',
      'ratio',
      `HEADLINE: whole command msgs/s ÷ sequential simpleParser msgs/s (split included, mean of the runs just before and after the command), same run${list.length > 1 ? `; the median of ${list.length} runs` : ''}`,
    );
    if (list.length > 1) {
      m[`ratio.command.${dialect}.min`] = metric(round(sorted[0]!.ratio, 2), '×', 'ratio', `lowest of ${list.length} runs`);
      m[`ratio.command.${dialect}.max`] = metric(round(sorted[sorted.length - 1]!.ratio, 2), '×', 'ratio', `highest of ${list.length} runs`);
    }
    if (dialect === 'sqlite') {
      // Where the messages went: kept ones are MIME-parsed; filtered and skipped-on-headers are not.
      const parsed = s.itemsAdded + s.itemsUpdated + (s.skipped.duplicate ?? 0);
      m['input.keptShare'] = metric(round((s.itemsAdded + s.itemsUpdated) / n, 3), 'share', 'count', 'messages stored as client interactions');
      m['input.parsedShare'] = metric(round(parsed / n, 3), 'share', 'count', 'messages MIME-parsed (kept + duplicates of kept)');
      m['input.filteredShare'] = metric(round(s.itemsFiltered / n, 3), 'share', 'count', 'bulk, lists, auto-replies, bounces (headers only)');
      m['input.skippedOnHeadersShare'] = metric(
        round(((s.skipped.internal ?? 0) + (s.skipped.no_client ?? 0)) / n, 3),
        'share',
        'count',
        'internal or no client (free-mail): decided on headers',
      );
    }
  }
  details.commands = commands;
  if (runs > 1) details.commandRuns = commandRuns;

  const after = baselines[baselines.length - 1]!;
  details.baselineAfter = after;
  details.baselines = baselines;
  m['baseline.mailparser.withSplit.afterMsgsPerSec'] = metric(
    round(withSplit(after), 0),
    'msgs/s',
    'throughput',
    'the same baseline, its last run (after the last command)',
  );
  m['baseline.mailparser.withSplit.meanMsgsPerSec'] = metric(
    round(baselines.reduce((a, b) => a + withSplit(b), 0) / baselines.length, 0),
    'msgs/s',
    'throughput',
    `mean of its ${baselines.length} runs (each command's ratio divides by the two around it)`,
  );

  log(`[${shape}] per-stage pass, sequential (${stagesSample} messages) …`);
  const stages = await runChild('stages', { path: box.path, limit: stagesSample, workspace: box.workspace });
  details.stages = stages;
  m['stages.bodyParsedShare'] = metric(
    round(stages.bodyParsedShare, 3),
    'share',
    'count',
    'messages kept after head, filter and resolve: the only ones MIME-parsed',
  );
  for (const [k, v] of Object.entries(stages.msPerMessage))
    m[`stages.${k}.cpuMsPerMsg`] = metric(round(v, 3), 'ms/msg', 'time', 'CPU time, one thread, sequential sample');

  // engine.ingest inside one process: secondary, measured on today's shape only.
  if (shape === 'attachments') {
    const e2e: Record<string, IngestResult> = {};
    for (const parser of parsers) {
      log(`end to end with ${parser}, ${workers} workers (${box.messages} messages) …`);
      const res = await runChild(
        'ingest',
        { path: box.path, db: join(dir, `ingest-${parser}.db`), workspace: box.workspace, workers, parser },
        o.cpuProfileDir ? { cpuProfileDir: join(o.cpuProfileDir, parser) } : {},
      );
      e2e[parser] = res;
      const p = `e2e.${parser}`;
      const n = Number(res.summary.itemsProcessed);
      m[`${p}.msgsPerSec`] = metric(round(n / (res.ingestMs / 1000), 0), 'msgs/s', 'throughput', 'parse → filter → resolve → score → store (ingestSource)');
      m[`${p}.MBps`] = metric(round(fileMB / (res.ingestMs / 1000)), 'MB/s', 'throughput');
      m[`${p}.withHealth.msgsPerSec`] = metric(round(n / (res.wallMs / 1000), 0), 'msgs/s', 'throughput', 'engine.ingest: the above plus the health rebuild');
      m[`${p}.healthSec`] = metric(round(res.healthMs / 1000, 2), 's', 'time');
      m[`${p}.peakRssMB`] = metric(round(peakRss(res) / MB), 'MB', 'memory', 'whole process (workers included): max of 25 ms samples and VmHWM');
      if (res.ingestPhasePeakBytes !== null)
        m[`${p}.ingestPhasePeakRssMB`] = metric(round(res.ingestPhasePeakBytes / MB), 'MB', 'memory', 'peak up to the last batch stored');
      if (res.healthPhasePeakBytes !== null)
        m[`${p}.healthPhasePeakRssMB`] = metric(round(res.healthPhasePeakBytes / MB), 'MB', 'memory', 'peak during the health rebuild after it');
      m[`${p}.cpuMsPerMsg`] = metric(round(res.cpuMs / n, 3), 'ms/msg', 'time', 'user+system CPU of all threads / messages');
      m[`${p}.coresUsed`] = metric(round(res.cpuMs / res.wallMs, 2), 'cores', 'count', 'CPU time ÷ wall time of the whole process (health rebuild included)');
      m[`${p}.main.readSec`] = metric(round(res.stages.readMs / 1000, 2), 's', 'time', 'main thread: reading and splitting the mbox');
      m[`${p}.main.waitWorkersSec`] = metric(round(res.stages.waitMs / 1000, 2), 's', 'time', 'main thread: waiting for parse/filter/score results');
      m[`${p}.main.writeSec`] = metric(round(res.stages.writeMs / 1000, 2), 's', 'time', 'main thread: resolve + store (single writer)');
      m[`ratio.ingestSource.${parser}`] = metric(
        round(n / (res.ingestMs / 1000) / baseRate, 2),
        '×',
        'ratio',
        'secondary (the old headline): ingestSource msgs/s ÷ simpleParser msgs/s with the split left out',
      );
    }
    details.e2e = e2e;
  }

  for (const [k, v] of Object.entries(m)) metrics[`${prefix}${k}`] = v;

  // Targets (issue 30): ≥ 2.5× on today's shape and ≥ 2.2× on small messages (SQLite), ≥ 2× on
  // PostgreSQL, the whole command under 300 MB on both.
  const label = shape === 'attachments' ? "today's mailbox" : `the ${shape}-message mailbox`;
  const targets: Target[] = [];
  targets.push(
    target(
      `whole chs ingest on SQLite ≥ ${SQLITE_RATIO_TARGET[shape]}× sequential mailparser (split included), ${label}`,
      metrics,
      `${prefix}ratio.command.sqlite`,
      '>=',
      SQLITE_RATIO_TARGET[shape],
    ),
  );
  if (commands.postgres)
    targets.push(
      target(`whole chs ingest on PostgreSQL ≥ 2× sequential mailparser (split included), ${label}`, metrics, `${prefix}ratio.command.postgres`, '>=', 2),
    );
  if (box.messages >= 50_000)
    for (const dialect of Object.keys(commands))
      targets.push(
        target(
          `peak RSS of the whole ${box.messages}-message chs ingest (${dialect}) < 300 MB, ${label}`,
          metrics,
          `${prefix}command.${dialect}.peakRssMB`,
          '<=',
          300,
        ),
      );
  if (shape === 'attachments')
    targets.push(target('chs ingest starts (process start to first message) in < 0.3 s', metrics, 'command.sqlite.startupSec', '<=', 0.3));
  return { targets };
}

/** The whole command on SQLite against the baseline, per shape (issue 30). */
const SQLITE_RATIO_TARGET: Record<MailboxShape, number> = { attachments: 2.5, small: 2.2 };
