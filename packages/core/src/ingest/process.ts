/**
 * The CPU-bound half of ingestion, run in worker threads: parse → strip → filter → score.
 * Plain data in, plain data out (structured clone); no store, no shared state.
 */
import { createHash } from 'node:crypto';
import type { Address, MailSignals, ParseWarning, ProblemKind, SentimentResult, SentimentScorer } from '../interfaces.js';
import { parseMessage, MessageParseError } from '../parse/parse.js';
import type { BackendName } from '../parse/backends.js';
import { classifyMessage, type FilterReason, type FilterRules } from '../parse/filter.js';
import { createSentimentScorer } from '../score/sentiment.js';

export interface ProcessInput {
  raw: Uint8Array;
  location: string;
  envelopeDate?: string;
}

export interface ProcessTask {
  messages: ProcessInput[];
  rules: FilterRules;
  /** MIME parser backend. Default: parse.ts's DEFAULT_BACKEND. */
  parser?: BackendName;
}

/** Longest summary kept per interaction (characters of the message's own new text). */
export const SUMMARY_LENGTH = 280;

export interface ProcessedMessage {
  ok: true;
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
  /** Null when kept; the reason when the filter dropped it. */
  filtered: FilterReason | null;
  warnings: ParseWarning[];
  /** Hash of the fields that are stored, to tell an unchanged re-ingest from a changed one. */
  contentHash: string;
}

export interface FailedMessage {
  ok: false;
  location: string;
  kind: ProblemKind;
  reason: string;
}

export type ProcessResult = ProcessedMessage | FailedMessage;

let scorer: SentimentScorer | undefined;

function summarise(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= SUMMARY_LENGTH ? flat : `${flat.slice(0, SUMMARY_LENGTH - 1).trimEnd()}…`;
}

export async function processOne(input: ProcessInput, rules: FilterRules, parser?: BackendName): Promise<ProcessResult> {
  let parsed;
  try {
    parsed = await parseMessage({
      raw: Buffer.isBuffer(input.raw) ? input.raw : Buffer.from(input.raw.buffer, input.raw.byteOffset, input.raw.byteLength),
      ...(input.envelopeDate ? { envelopeDate: input.envelopeDate } : {}),
      location: input.location,
    }, parser ? { backend: parser } : {});
  } catch (err) {
    if (err instanceof MessageParseError) return { ok: false, location: input.location, kind: err.kind, reason: err.reason };
    return { ok: false, location: input.location, kind: 'parse', reason: err instanceof Error ? err.message : String(err) };
  }
  const verdict = classifyMessage(parsed, rules);
  const warnings = [...parsed.warnings];
  let sentiment: SentimentResult = { label: 'neutral', score: 0 };
  if (verdict.keep) {
    try {
      scorer ??= createSentimentScorer();
      sentiment = scorer.score(parsed.newText);
    } catch (err) {
      warnings.push({ kind: 'sentiment', reason: err instanceof Error ? err.message : String(err) });
    }
  }
  const summary = summarise(parsed.newText);
  const contentHash = createHash('sha1')
    .update(JSON.stringify([parsed.subject, parsed.date, parsed.from?.email ?? '', parsed.to.map((a) => a.email), parsed.cc.map((a) => a.email), summary, sentiment.label, sentiment.score, parsed.threadId]))
    .digest('base64url');
  return {
    ok: true,
    location: input.location,
    messageId: parsed.messageId,
    threadId: parsed.threadId,
    date: parsed.date,
    dateSource: parsed.dateSource,
    from: parsed.from,
    to: parsed.to,
    cc: parsed.cc,
    subject: parsed.subject,
    summary,
    attachmentCount: parsed.attachmentCount,
    sentiment,
    filtered: verdict.keep ? null : verdict.reason,
    warnings,
    contentHash,
  };
}

export async function processBatch(task: ProcessTask): Promise<ProcessResult[]> {
  const out: ProcessResult[] = [];
  for (const m of task.messages) out.push(await processOne(m, task.rules, task.parser));
  return out;
}

export type { MailSignals };
