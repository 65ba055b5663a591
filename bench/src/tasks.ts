/**
 * One measurement each, run in a fresh child process (see child.ts) so peaks, heaps and JIT state
 * never carry over from one measurement to the next.
 */
import { rmSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import {
  BACKENDS,
  classifyMessage,
  createEngine,
  createSentimentScorer,
  createWorkspace,
  cutAttachmentBodies,
  CUT_THRESHOLD,
  extractNewText,
  mboxSource,
  normalizeLineEndings,
  readBody,
  readHead,
  Resolver,
  type BackendName,
  type IngestStageTimes,
} from '@chs/core';
import { cpuMsSince, RssSampler } from './measure.js';
import { healthStepTask } from './scale-tasks.js';
import { webhookBurstTask } from './webhook-burst.js';

interface Resources {
  wallMs: number;
  /** User + system CPU of the whole process, worker threads included. */
  cpuMs: number;
  /** Max of RSS sampled every 25 ms (process-wide: includes worker threads). */
  rssSampledPeakBytes: number;
  /** Kernel high-water mark of RSS (VmHWM), null off Linux. */
  rssHwmBytes: number | null;
}

async function measured<T>(fn: (rss: RssSampler) => Promise<T>): Promise<{ value: T; resources: Resources }> {
  const rss = new RssSampler();
  const cpu = process.cpuUsage();
  const t = performance.now();
  const value = await fn(rss);
  const wallMs = performance.now() - t;
  const cpuMs = cpuMsSince(cpu);
  const r = rss.stop();
  return { value, resources: { wallMs, cpuMs, rssSampledPeakBytes: r.sampledPeakBytes, rssHwmBytes: r.hwmBytes } };
}

// ── split only ────────────────────────────────────────────────────────────────────────────────
interface SplitArgs {
  path: string;
  limit?: number;
}
interface SplitResult extends Resources {
  messages: number;
  messageBytes: number;
}

async function splitTask(a: SplitArgs): Promise<SplitResult> {
  const { value, resources } = await measured(async () => {
    let messages = 0;
    let messageBytes = 0;
    for await (const m of mboxSource(a.path).items()) {
      messages += 1;
      messageBytes += m.raw.length;
      if (a.limit !== undefined && messages >= a.limit) break;
    }
    return { messages, messageBytes };
  });
  return { ...value, ...resources };
}

// ── mailparser baseline ──────────────────────────────────────────────────────────────────────
interface BaselineArgs {
  path: string;
  limit?: number;
}
interface BaselineResult extends Resources {
  messages: number;
  messageBytes: number;
  /** Time inside `simpleParser` only (the split's time left out). */
  parseMs: number;
  errors: number;
}

/** `simpleParser(raw)` with default options, one message after the other, on one thread. */
async function baselineTask(a: BaselineArgs): Promise<BaselineResult> {
  const { value, resources } = await measured(async () => {
    let messages = 0;
    let messageBytes = 0;
    let parseMs = 0;
    let errors = 0;
    for await (const m of mboxSource(a.path).items()) {
      const t = performance.now();
      try {
        await simpleParser(m.raw);
      } catch {
        errors += 1;
      }
      parseMs += performance.now() - t;
      messages += 1;
      messageBytes += m.raw.length;
      if (a.limit !== undefined && messages >= a.limit) break;
    }
    return { messages, messageBytes, parseMs, errors };
  });
  return { ...value, ...resources };
}

// ── per-stage CPU, sequential ────────────────────────────────────────────────────────────────
interface StagesArgs {
  path: string;
  limit: number;
  workspace: string;
}
/** CPU milliseconds per message of each stage, one thread, same messages for all. */
interface StagesResult extends Resources {
  messages: number;
  /** Share of messages the pipeline MIME-parses (kept after head, filter and resolve). */
  bodyParsedShare: number;
  msPerMessage: {
    split: number;
    /** readHead: normalise line ends, header block, ids, date, addresses, subject, signals. */
    head: number;
    filter: number;
    resolve: number;
    /** readBody (default backend) on the kept messages only, averaged over every message. */
    body: number;
    /** cutAttachmentBodies alone (inside readBody), on every message. */
    cut: number;
    /** The MIME library alone on every cut message (to compare the libraries). */
    mimePostalMime: number;
    mimeMailparser: number;
    /** Quote/signature stripping (inside readBody), kept messages. */
    strip: number;
    /** Sentiment, kept messages. */
    score: number;
  };
}

async function stagesTask(a: StagesArgs): Promise<StagesResult> {
  const scorer = createSentimentScorer();
  const rules = { blocklist: [] as string[], ownDomains: [a.workspace] };
  const resolver = new Resolver(rules);
  const t = { split: 0, head: 0, filter: 0, resolve: 0, body: 0, cut: 0, mimePostalMime: 0, mimeMailparser: 0, strip: 0, score: 0 };
  const postal = BACKENDS['postal-mime'];
  const mp = BACKENDS.mailparser;
  // CPU time (all threads of this process), not wall time: a busy machine stretches wall time
  // per stage unevenly, CPU time much less. µs resolution is fine for ms-scale stages.
  const now = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let bodies = 0;
  const { value, resources } = await measured(async () => {
    let messages = 0;
    let last = now();
    for await (const m of mboxSource(a.path).items()) {
      let s = now();
      t.split += s - last;
      const cut = cutAttachmentBodies(normalizeLineEndings(m.raw), CUT_THRESHOLD);
      t.cut += now() - s;
      s = now();
      await postal.parse(cut.raw).catch(() => undefined);
      t.mimePostalMime += now() - s;
      s = now();
      await mp.parse(cut.raw).catch(() => undefined);
      t.mimeMailparser += now() - s;
      s = now();
      let read;
      try {
        read = readHead({ raw: m.raw, location: m.location, ...(m.envelopeDate ? { envelopeDate: m.envelopeDate } : {}) });
      } catch {
        read = undefined;
      }
      t.head += now() - s;
      if (read) {
        s = now();
        const verdict = classifyMessage(read.head, rules);
        t.filter += now() - s;
        s = now();
        const resolution = verdict.keep && read.head.dateSource !== 'none' ? resolver.resolve(read.head) : undefined;
        t.resolve += now() - s;
        if (resolution?.kind === 'interaction') {
          bodies += 1;
          s = now();
          const body = await readBody(read, { stripQuotes: false }).catch(() => undefined);
          t.body += now() - s;
          if (body) {
            s = now();
            const newText = extractNewText(body.text);
            t.strip += now() - s;
            t.body += now() - s;
            s = now();
            scorer.score(newText);
            t.score += now() - s;
          }
        }
      }
      messages += 1;
      if (messages >= a.limit) break;
      last = now();
    }
    return messages;
  });
  const per = (v: number) => v / Math.max(value, 1);
  return {
    messages: value,
    bodyParsedShare: bodies / Math.max(value, 1),
    msPerMessage: {
      split: per(t.split),
      head: per(t.head),
      filter: per(t.filter),
      resolve: per(t.resolve),
      body: per(t.body),
      cut: per(t.cut),
      mimePostalMime: per(t.mimePostalMime),
      mimeMailparser: per(t.mimeMailparser),
      strip: per(t.strip),
      score: per(t.score),
    },
    ...resources,
  };
}

// ── end to end ────────────────────────────────────────────────────────────────────────────────
interface IngestArgs {
  path: string;
  db: string;
  workspace: string;
  workers: number;
  /** Omitted: the pipeline's default. */
  parser?: BackendName;
}
export interface IngestResult extends Resources {
  parser: string;
  workers: number;
  /** ingestSource alone: read → parse/filter/score (workers) → resolve → store. */
  ingestMs: number;
  /** The health rebuild engine.ingest runs after storing (wall − ingestMs). */
  healthMs: number;
  stages: IngestStageTimes;
  summary: Record<string, unknown>;
  /** RSS just before the run (engine open, workspace created). */
  rssBeforeBytes: number;
  /** Peak RSS up to the last batch stored (before the health rebuild); the overall peak is in Resources. */
  ingestPhasePeakBytes: number | null;
  /** Peak RSS during the health rebuild that engine.ingest runs after storing. */
  healthPhasePeakBytes: number | null;
}

async function ingestTask(a: IngestArgs): Promise<IngestResult> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${a.db}${suffix}`, { force: true });
  const engine = await createEngine({ database: a.db });
  try {
    await createWorkspace(engine.store.db, { domain: a.workspace, name: 'Bench', ownerEmail: `bench@${a.workspace}` });
    const rssBeforeBytes = process.memoryUsage.rss();
    let ingestPeak: { sampledPeakBytes: number; hwmBytes: number | null } | null = null;
    const { value, resources } = await measured((rss) =>
      engine.ingest({
        workspaceId: a.workspace,
        source: mboxSource(a.path),
        workers: a.workers,
        ...(a.parser ? { parser: a.parser } : {}),
        // The last progress call comes after the last batch is stored, before the health rebuild:
        // the peak so far is the pipeline's, and what follows is the rebuild's.
        onProgress: (p) => {
          if (p.total !== undefined && p.processed >= p.total && ingestPeak === null) ingestPeak = rss.phase();
        },
      }),
    );
    const { stages, durationMs, ...summary } = value;
    const phase = ingestPeak as { sampledPeakBytes: number; hwmBytes: number | null } | null;
    const ingestPhasePeakBytes = phase === null ? null : Math.max(phase.sampledPeakBytes, phase.hwmBytes ?? 0);
    const healthPhasePeakBytes = phase === null ? null : Math.max(resources.rssSampledPeakBytes, resources.rssHwmBytes ?? 0);
    if (phase) {
      // The sampler and VmHWM were reset between the phases: the run's peak is the larger of the two.
      resources.rssSampledPeakBytes = Math.max(resources.rssSampledPeakBytes, phase.sampledPeakBytes);
      resources.rssHwmBytes = resources.rssHwmBytes === null ? phase.hwmBytes : Math.max(resources.rssHwmBytes, phase.hwmBytes ?? 0);
    }
    return {
      parser: a.parser ?? 'default',
      workers: a.workers,
      ingestMs: durationMs,
      healthMs: Math.max(0, resources.wallMs - durationMs),
      stages,
      summary: { ...summary, durationMs },
      rssBeforeBytes,
      ingestPhasePeakBytes,
      healthPhasePeakBytes,
      ...resources,
    };
  } finally {
    await engine.close();
  }
}

export const TASKS = {
  split: splitTask,
  baseline: baselineTask,
  stages: stagesTask,
  ingest: ingestTask,
  webhookBurst: webhookBurstTask,
  healthStep: healthStepTask,
} as const;
export type TaskName = keyof typeof TASKS;
