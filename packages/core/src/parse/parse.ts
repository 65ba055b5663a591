import { createHash } from 'node:crypto';
import type { MailSignals, ParsedMessage, ParseWarning, ProblemKind } from '../interfaces.js';
import { normalizeLineEndings, toLf } from '../source/line-endings.js';
import { BACKENDS, type BackendName, type ParserBackend } from './backends.js';
import { CUT_THRESHOLD, cutAttachmentBodies } from './cut.js';
import { headerBlockEnd, type HeaderMap, mediaType, parseHeaderBlock, startsWithHeader } from './headers.js';
import { htmlToText } from './html.js';
import { extractNewText } from './strip.js';

/** Options of {@link parseMessage}. */
export interface ParseOptions {
  /** MIME parser library; default `mailparser` (faster in this pipeline, measured in docs/parsing.md). */
  backend?: BackendName | ParserBackend;
  /** Messages at least this big get attachment bodies cut before parsing; default 16 KiB. */
  cutThreshold?: number;
  /** Whether to compute `newText` (quotes, signatures, disclaimers stripped); default true. */
  stripQuotes?: boolean;
}

export const DEFAULT_BACKEND: BackendName = 'mailparser';

/** A message that cannot be parsed at all; the run counts it with its reason and goes on. */
export class MessageParseError extends Error {
  readonly kind: ProblemKind;
  readonly reason: string;
  readonly location: string | undefined;

  constructor(reason: string, options?: { kind?: ProblemKind; location?: string; cause?: unknown }) {
    super(
      options?.location ? `${reason} (${options.location})` : reason,
      options?.cause !== undefined ? { cause: options.cause } : undefined,
    );
    this.name = 'MessageParseError';
    this.kind = options?.kind ?? 'parse';
    this.reason = reason;
    this.location = options?.location;
  }
}

export function isMessageParseError(err: unknown): err is MessageParseError {
  return err instanceof MessageParseError;
}

/** Epoch, used as `date` when no date can be found at all (`dateSource: 'none'`). */
export const NO_DATE = new Date(0).toISOString();
const MIN_YEAR = 1970;
const MAX_YEAR = 2100;
const PLAUSIBLE_DATE =
  /\b\d{1,2}[ -][A-Za-z]{3,}\.?[ -]\d{2,4}\b|\b\d{4}-\d{1,2}-\d{1,2}\b|\b[A-Za-z]{3,}\.? \d{1,2},? \d{4}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/;

/** RFC 5322 date (with the usual real-world damage) to ISO UTC, or undefined. */
export function parseMailDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const tryParse = (s: string): string | undefined => {
    const ms = Date.parse(s);
    if (Number.isNaN(ms)) return undefined;
    const d = new Date(ms);
    const y = d.getUTCFullYear();
    return y < MIN_YEAR || y > MAX_YEAR ? undefined : d.toISOString();
  };
  const cleaned = value
    .replace(/\([^)]*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  // V8's lenient parser reads almost any text as some date: insist on a day, month and year.
  if (!PLAUSIBLE_DATE.test(cleaned)) return undefined;
  // Without an explicit zone V8 would read local time; RFC 5322 says such a date is UTC-ish.
  const hasZone = /(?:[+-]\d{4}|\b(?:UT|GMT|Z|[ECMP][SD]T)\b)\s*$/i.test(cleaned);
  return (
    tryParse(hasZone ? cleaned : `${cleaned} +0000`) ??
    tryParse(cleaned.replace(/^[A-Za-z]+,?\s*/, '')) ??
    tryParse(cleaned.replace(/\s[+-]\d{2}(\d{2})?\s*$/, ' +0000')) ??
    tryParse(cleaned.replace(/^[A-Za-z]+,?\s*/, '').replace(/\s[+-]?\d{3,4}\s*$/, ' +0000'))
  );
}

const ID_IN_BRACKETS = /<([^<>\s]+)>/g;

function firstId(value: string | undefined): string | null {
  if (!value) return null;
  const m = /<([^<>\s]+)>/.exec(value);
  if (m) return m[1] ?? null;
  const bare = value.trim();
  return bare !== '' && !/\s/.test(bare) ? bare.replace(/^<|>$/g, '') : null;
}

function allIds(value: string | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  for (const m of value.matchAll(ID_IN_BRACKETS)) if (m[1] && !out.includes(m[1])) out.push(m[1]);
  return out;
}

const header = (h: HeaderMap, name: string): string | undefined => h.get(name)?.[0];

function gmailLabels(value: string | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  for (const m of value.matchAll(/"([^"]*)"|([^,]+)/g)) {
    const label = (m[1] ?? m[2] ?? '').trim();
    if (label !== '') out.push(label);
  }
  return out;
}

function signalsOf(h: HeaderMap, cutRaw: Buffer, fromEmail: string | undefined): MailSignals {
  const autoSubmitted = (header(h, 'auto-submitted') ?? '').toLowerCase();
  const suppress = (header(h, 'x-auto-response-suppress') ?? '').toLowerCase();
  const topType = mediaType(header(h, 'content-type'));
  const local = fromEmail?.split('@')[0] ?? '';
  return {
    listUnsubscribe: h.has('list-unsubscribe'),
    listId: h.has('list-id'),
    precedence: (header(h, 'precedence') ?? '').trim().toLowerCase(),
    autoSubmitted: autoSubmitted !== '' && autoSubmitted !== 'no',
    autoReplyHeader:
      h.has('x-autoreply') ||
      h.has('x-autorespond') ||
      h.has('x-autoresponder') ||
      /\b(?:all|oof|autoreply)\b/.test(suppress),
    deliveryReport:
      topType === 'multipart/report' ||
      cutRaw.indexOf('message/delivery-status', 0, 'latin1') !== -1 ||
      cutRaw.indexOf('Message/Delivery-Status', 0, 'latin1') !== -1 ||
      local === 'mailer-daemon' ||
      local === 'postmaster',
    gmailLabels: gmailLabels(header(h, 'x-gmail-labels')),
  };
}

const decoderSupport = new Map<string, boolean>();

function charsetKnown(label: string): boolean {
  const key = label.toLowerCase();
  let ok = decoderSupport.get(key);
  if (ok === undefined) {
    try {
      new TextDecoder(key);
      ok = true;
    } catch {
      // Labels parsers map themselves although WHATWG does not know them.
      ok = /^(?:utf-?7|x-user-defined|(?:x-)?mac-?roman|iso-?2022-jp-\d|cp\d{3,5}|ibm\d{3,5}|(?:us-)?ascii|ansi_x3\.4-1968)$/.test(key);
    }
    decoderSupport.set(key, ok);
  }
  return ok;
}

/**
 * Charset labels come from Content-Type header lines (of the message and of every part) and
 * from encoded words in the top header block; a `charset=` inside a body (HTML meta tags in
 * quoted-printable) is no label of ours.
 */
function charsetWarnings(cutRaw: Buffer, topHeaders: string, texts: string[]): ParseWarning[] {
  const warnings: ParseWarning[] = [];
  const seen = new Set<string>();
  const check = (raw: string) => {
    const label = raw.replace(/\*.*$/, '').toLowerCase();
    if (label === '' || seen.has(label)) return;
    seen.add(label);
    if (!charsetKnown(label)) warnings.push({ kind: 'charset', reason: `unknown charset "${label.slice(0, 40)}"` });
  };
  const s = cutRaw.toString('latin1');
  for (const line of s.matchAll(/^content-type:[^\n]*(?:\n[ \t][^\n]*)*/gim)) {
    const m = /charset\s*=\s*"?([^"';\s]+)/i.exec(line[0]);
    if (m?.[1]) check(m[1]);
  }
  for (const m of topHeaders.matchAll(/=\?([^?\s]+)\?[bqBQ]\?/g)) if (m[1]) check(m[1]);
  if (texts.some((t) => t.indexOf('\ufffd') !== -1)) {
    warnings.push({ kind: 'charset', reason: 'undecodable bytes replaced' });
  }
  return warnings;
}

/** The message without a leading byte-order mark or Unix-from line (single-message files have them). */
function skipUnixFrom(input: Buffer): Buffer {
  // A UTF-8 byte-order mark (editors add one) is no part of the first header name.
  const raw = input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf ? input.subarray(3) : input;
  if (raw.length < 5 || raw.toString('latin1', 0, 5) !== 'From ') return raw;
  const lf = raw.indexOf(10);
  return lf === -1 ? raw : raw.subarray(lf + 1);
}

function resolveBackend(b: ParseOptions['backend']): ParserBackend {
  if (b === undefined) return BACKENDS[DEFAULT_BACKEND];
  if (typeof b === 'string') {
    const found = BACKENDS[b];
    if (!found) throw new MessageParseError(`unknown parser backend "${String(b)}"`);
    return found;
  }
  return b;
}

/**
 * Parses one raw message into plain data (safe to call from a worker thread: no state, no I/O).
 *
 * Dates: the Date header; when missing or invalid the date of the last (earliest-hop) `Received`
 * header; then the mbox envelope date; else epoch with `dateSource: 'none'`.
 * Throws {@link MessageParseError} when the bytes are not a message at all or the parser fails.
 */
export async function parseMessage(
  input: { raw: Buffer; envelopeDate?: string; location?: string },
  options: ParseOptions = {},
): Promise<ParsedMessage> {
  const backend = resolveBackend(options.backend);
  const location = input.location;
  const original = normalizeLineEndings(skipUnixFrom(input.raw));
  if (original.length === 0 || original.indexOf(':') === -1 || !startsWithHeader(original)) {
    throw new MessageParseError(original.length === 0 ? 'empty message' : 'no header block', { location: location ?? '' });
  }

  const hEnd = headerBlockEnd(original, 0);
  const headerText = original.toString('latin1', 0, hEnd);
  const headers = parseHeaderBlock(headerText);
  const cut = cutAttachmentBodies(original, options.cutThreshold ?? CUT_THRESHOLD);

  let parsed;
  try {
    parsed = await backend.parse(cut.raw);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new MessageParseError(`${backend.name}: ${reason.slice(0, 200)}`, { location: location ?? '', cause: err });
  }

  let text = parsed.text;
  if (text.trim() === '' && parsed.html !== '') text = htmlToText(parsed.html);
  text = text.replace(/\r\n?/g, '\n');

  const headerMessageId = firstId(header(headers, 'message-id'));
  const messageId = headerMessageId ?? `sha256:${createHash('sha256').update(toLf(original)).digest('hex')}`;
  const references = allIds(headers.get('references')?.join(' '));
  const inReplyTo = firstId(header(headers, 'in-reply-to'));
  const gmThread = header(headers, 'x-gm-thrid')?.trim();
  const threadId = gmThread || references[0] || inReplyTo || messageId;

  let date = parseMailDate(header(headers, 'date'));
  let dateSource: ParsedMessage['dateSource'] = 'header';
  if (date === undefined) {
    const received = headers.get('received');
    const last = received?.[received.length - 1];
    const semi = last?.lastIndexOf(';') ?? -1;
    date = last !== undefined && semi !== -1 ? parseMailDate(last.slice(semi + 1)) : undefined;
    dateSource = 'received';
  }
  if (date === undefined && input.envelopeDate !== undefined) {
    const ms = Date.parse(input.envelopeDate);
    if (!Number.isNaN(ms)) {
      date = new Date(ms).toISOString();
      dateSource = 'envelope';
    }
  }
  if (date === undefined) {
    date = NO_DATE;
    dateSource = 'none';
  }

  const warnings: ParseWarning[] = [...cut.warnings, ...charsetWarnings(cut.raw, headerText, [text, parsed.subject])];

  return {
    messageId,
    messageIdSynthetic: headerMessageId === null,
    threadId,
    inReplyTo,
    references,
    date,
    dateSource,
    from: parsed.from,
    to: parsed.to,
    cc: parsed.cc,
    subject: parsed.subject.replace(/\s+/g, ' ').trim(),
    text,
    newText: options.stripQuotes === false ? text : extractNewText(text),
    attachmentCount: parsed.attachmentCount,
    sizeBytes: input.raw.length,
    signals: signalsOf(headers, cut.raw, parsed.from?.email),
    warnings,
  };
}
