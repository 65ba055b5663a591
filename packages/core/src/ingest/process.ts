/**
 * The CPU-bound half of ingestion, run in worker threads: head → filter → resolve → body →
 * strip → score. A message is decided on its header block first: one that is filtered (bulk,
 * list, auto-reply, bounce…), undated or not a client's (internal, no client domain) is never
 * MIME-parsed. Plain data in, plain data out (structured clone); no store, no shared state.
 */
import { createHash } from 'node:crypto';
import type { Address, ParseWarning, ProblemKind, RefusalReason, SentimentResult, SentimentScorer } from '../interfaces.js';
import { readBody, readHead, MessageParseError, type HeadRead } from '../parse/parse.js';
import type { BackendName } from '../parse/backends.js';
import { classifyBody, classifyMessage, type FilterReason, type FilterRules } from '../parse/filter.js';
import type { DomainRole, Topic } from '../resolve/discovery.js';
import { Resolver, type ResolvedParticipant } from '../resolve/resolve.js';
import { createSentimentScorer } from '../score/sentiment.js';
import { detectSignals } from '../score/signals.js';
import { messageTopic } from '../score/personal.js';
import { summarise } from './summary.js';
import { MAX_MESSAGE_BYTES } from './limits.js';

/** A forward's subject (Fw:, FW:, Fwd:), possibly after a reply prefix. */
const FORWARD_SUBJECT = /^\s*(?:re:\s*)?(?:fwd?|fw)\s*:/i;

/** score/signals.ts SIGNAL_BITS churn intent. */
const CHURN_BIT = 1;

export interface ProcessInput {
  raw: Uint8Array;
  location: string;
  envelopeDate?: string;
  /** The provider's labels (Gmail `labelIds`), read by the filter like Takeout's `X-Gmail-Labels`. */
  labels?: string[];
  /** Set when the source refused the message without reading it (its `raw` is empty). */
  refused?: RefusalReason;
  /** The source made the line endings consistent already (RawMessage.lineEndingsChecked). */
  lineEndingsChecked?: true;
}

/** The workspace's rules a worker needs: the filter's blocklist and the resolver's own domains. */
export interface ProcessRules extends FilterRules {
  /** The workspace's own registrable domains (staff mail). */
  ownDomains: string[];
}

export interface ProcessTask {
  messages: ProcessInput[];
  rules: ProcessRules;
  /** MIME parser backend. Default: parse.ts's DEFAULT_BACKEND. */
  parser?: BackendName;
  /** Messages larger than this are skipped as `too_large` without being parsed. Default {@link MAX_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
  /** The worker writes here the index of the message it is on (the pool's time budget watches it). */
  progress?: Int32Array;
}

/** A message to store: one interaction per client domain. */
export interface ProcessedMessage {
  ok: true;
  outcome: 'kept';
  location: string;
  messageId: string;
  threadId: string;
  date: string;
  dateSource: string;
  from: Address | null;
  to: Address[];
  cc: Address[];
  subject: string;
  summary: string;
  attachmentCount: number;
  sentiment: SentimentResult;
  /** What the sender's new text says beyond tone: score/signals.ts SIGNAL_BITS (0 when none). */
  signals: number;
  direction: 'inbound' | 'outbound';
  /** Registrable domains of the clients it belongs to (at least one). */
  clientDomains: string[];
  /** The part each of clientDomains plays in it (same order): resolve/discovery.ts. */
  roles: DomainRole[];
  /** What its own text is about (score/personal.ts): only work makes a conversation a client's. */
  topic: Topic;
  /** Written to our people directly (only such mail can wait for our reply). */
  addressed: boolean;
  /** Client-side participants (staff, free mail and blocklisted addresses left out). */
  participants: ResolvedParticipant[];
  warnings: ParseWarning[];
  /** Hash of the fields that are stored, to tell an unchanged re-ingest from a changed one. */
  contentHash: string;
}

/** A message not stored: dropped by the filter, or no client's (decided on its header block). */
export type DroppedMessage =
  | {
      ok: true;
      outcome: 'filtered';
      location: string;
      reason: FilterReason;
      evidence: string;
      /** Who sent it, when, and its Message-ID and subject: kept with the evidence (filtered_mail). */
      messageId: string;
      sender: string;
      date: string | null;
      subject: string;
      warnings: ParseWarning[];
    }
  | { ok: true; outcome: 'skipped'; location: string; reason: 'internal' | 'no_client' | RefusalReason; warnings: ParseWarning[] };

export interface FailedMessage {
  ok: false;
  location: string;
  kind: ProblemKind;
  reason: string;
  /** Problems found before it failed (charset…). */
  warnings?: ParseWarning[];
}

export type ProcessResult = ProcessedMessage | DroppedMessage | FailedMessage;

let scorer: SentimentScorer | undefined;

function failure(location: string, err: unknown, warnings?: ParseWarning[]): FailedMessage {
  const base =
    err instanceof MessageParseError
      ? { ok: false as const, location, kind: err.kind, reason: err.reason }
      : { ok: false as const, location, kind: 'parse' as const, reason: err instanceof Error ? err.message : String(err) };
  return warnings?.length ? { ...base, warnings } : base;
}

export async function processOne(
  input: ProcessInput,
  rules: ProcessRules,
  parser?: BackendName,
  resolver?: Resolver,
  maxMessageBytes: number = MAX_MESSAGE_BYTES,
): Promise<ProcessResult> {
  if (input.refused) return { ok: true, outcome: 'skipped', location: input.location, reason: input.refused, warnings: [] };
  if (input.raw.byteLength > maxMessageBytes) return { ok: true, outcome: 'skipped', location: input.location, reason: 'too_large', warnings: [] };
  const raw = Buffer.isBuffer(input.raw) ? input.raw : Buffer.from(input.raw.buffer, input.raw.byteOffset, input.raw.byteLength);
  let read: HeadRead;
  try {
    read = readHead({
      raw,
      location: input.location,
      ...(input.envelopeDate ? { envelopeDate: input.envelopeDate } : {}),
      ...(input.lineEndingsChecked ? { lineEndingsChecked: true } : {}),
    });
  } catch (err) {
    return failure(input.location, err);
  }
  const { head } = read;
  // Gmail's API labels (CATEGORY_PROMOTIONS) read as Takeout's header labels (Category Promotions).
  if (input.labels?.length) head.signals.gmailLabels = [...head.signals.gmailLabels, ...input.labels.map((l) => l.replace(/_/g, ' '))];
  const verdict = classifyMessage(head, rules);
  const filtered = (reason: FilterReason, evidence: string, warnings: ParseWarning[]): DroppedMessage => ({
    ok: true,
    outcome: 'filtered',
    location: input.location,
    reason,
    evidence,
    messageId: head.messageId,
    sender: head.from?.email ?? '',
    date: head.dateSource === 'none' ? null : head.date,
    subject: head.subject,
    warnings,
  });
  if (!verdict.keep) return filtered(verdict.reason, verdict.evidence, head.warnings);
  if (head.dateSource === 'none') {
    // No Date header, no Received date, no mbox separator date: placing it on 1970-01-01 would
    // corrupt the client's history, so it is an error instead.
    return {
      ok: false,
      location: input.location,
      kind: 'parse',
      reason: 'no usable date (Date, Received and envelope all missing or invalid)',
      ...(head.warnings.length ? { warnings: head.warnings } : {}),
    };
  }
  const resolution = (resolver ?? new Resolver(rules)).resolve(head);
  if (resolution.kind === 'skip') return { ok: true, outcome: 'skipped', location: input.location, reason: resolution.reason, warnings: head.warnings };

  let body;
  try {
    body = await readBody(read, parser ? { backend: parser } : {});
  } catch (err) {
    return failure(input.location, err, head.warnings);
  }
  const warnings = [...head.warnings, ...body.warnings];
  // Mass mail without a bulk header still carries its unsubscribe footer.
  const byBody = classifyBody(body.text);
  if (!byBody.keep) return filtered(byBody.reason, byBody.evidence, warnings);
  let sentiment: SentimentResult = { label: 'neutral', score: 0 };
  try {
    scorer ??= createSentimentScorer();
    sentiment = scorer.score(body.newText);
  } catch (err) {
    warnings.push({ kind: 'sentiment', reason: err instanceof Error ? err.message : String(err) });
  }
  // What the client's own text says beyond tone; our mail carries none (the writer stores 0 for
  // it), so it is not read: about half of a CSM's mail is outbound.
  let signals = 0;
  try {
    if (resolution.direction === 'inbound') signals = detectSignals(body.newText).bits;
  } catch (err) {
    warnings.push({ kind: 'sentiment', reason: err instanceof Error ? err.message : String(err) });
  }
  const summary = summarise(body.newText);
  // A friend writing from (or to) a company address is not that company talking business.
  // What it is about: a client saying it will leave is work; a bare forward says nothing of its
  // own, so what it forwards tells (a short reply is read on its own words, not on the quote).
  const own = body.newText.trim() === '' || (FORWARD_SUBJECT.test(head.subject) && body.newText.trim().length < 80) ? body.text : body.newText;
  const topic = (signals & CHURN_BIT) !== 0 ? 'work' : messageTopic(head.subject, own);
  const contentHash = createHash('sha1')
    .update(
      JSON.stringify([
        head.subject,
        head.date,
        head.from?.email ?? '',
        head.to.map((a) => a.email),
        head.cc.map((a) => a.email),
        summary,
        sentiment.label,
        sentiment.score,
        head.threadId,
        signals,
        resolution.addressed,
        resolution.roles,
        topic,
      ]),
    )
    .digest('base64url');
  return {
    ok: true,
    outcome: 'kept',
    location: input.location,
    messageId: head.messageId,
    threadId: head.threadId,
    date: head.date,
    dateSource: head.dateSource,
    from: head.from,
    to: head.to,
    cc: head.cc,
    subject: head.subject,
    summary,
    attachmentCount: body.attachmentCount,
    sentiment,
    signals,
    direction: resolution.direction,
    clientDomains: resolution.clientDomains,
    roles: resolution.roles,
    topic,
    addressed: resolution.addressed,
    participants: resolution.participants,
    warnings,
    contentHash,
  };
}

export async function processBatch(task: ProcessTask): Promise<ProcessResult[]> {
  const resolver = new Resolver(task.rules);
  const out: ProcessResult[] = [];
  for (const [i, m] of task.messages.entries()) {
    if (task.progress) Atomics.store(task.progress, 0, i);
    out.push(await processOne(m, task.rules, task.parser, resolver, task.maxMessageBytes));
  }
  if (task.progress) Atomics.store(task.progress, 0, task.messages.length); // done: nothing left to watch
  return out;
}
