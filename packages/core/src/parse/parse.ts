import { createHash } from 'node:crypto';
import type { Address, MailSignals, ParsedMessage, ParseWarning, ProblemKind } from '../interfaces.js';
import { normalizeLineEndings, toLf } from '../source/line-endings.js';
import { BACKENDS, type BackendName, type ParserBackend } from './backends.js';
import { CUT_THRESHOLD, cutAttachmentBodies } from './cut.js';
import { readTextDirect } from './text-parts.js';
import { headerBlockEnd, type HeaderMap, mediaType, parseHeaderBlock, startsWithHeader } from './headers.js';
import { htmlToText, plainHtmlToText, plainIsHtml } from './html.js';
import { extractNewText } from './strip.js';
import { decodeAddressHeaders, decodeSubject } from './addresses.js';

/** Options of {@link parseMessage}. */
export interface ParseOptions {
  /** MIME parser library; default `mailparser` (faster in this pipeline, measured in docs/parsing.md). */
  backend?: BackendName | ParserBackend;
  /** Messages at least this big get attachment bodies cut before parsing; default 16 KiB. */
  cutThreshold?: number;
  /** Whether to compute `newText` (quotes, signatures, disclaimers stripped); default true. */
  stripQuotes?: boolean;
  /**
   * Read the text of simply-shaped messages straight from their MIME structure (text-parts.ts),
   * the library only for the rest; default true. False: the library reads every message.
   */
  direct?: boolean;
}

export const DEFAULT_BACKEND: BackendName = 'mailparser';

/** A header block larger than this is not read: the message is a parse error (real ones stay under 64 KiB). */
const MAX_HEADER_BYTES = 256 * 1024;
/** Body text beyond this is cut (only the top is read: summary, new text, signals). */
const MAX_BODY_TEXT = 2_000_000;

/** The text without NUL characters (an encoded word or a body can decode to them). */
function withoutNul(s: string): string {
  return s.indexOf('\0') === -1 ? s : s.replace(/\0/g, '');
}

/** Decoded addresses, NUL dropped from names and addresses. */
function addresses(values: string[] | undefined): Address[] {
  return decodeAddressHeaders(values).map((a) => ({ email: withoutNul(a.email), name: withoutNul(a.name) }));
}

/** A message that cannot be parsed at all; the run counts it with its reason and goes on. */
export class MessageParseError extends Error {
  readonly kind: ProblemKind;
  readonly reason: string;
  readonly location: string | undefined;

  constructor(reason: string, options?: { kind?: ProblemKind; location?: string; cause?: unknown }) {
    super(options?.location ? `${reason} (${options.location})` : reason, options?.cause !== undefined ? { cause: options.cause } : undefined);
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
const PLAUSIBLE_DATE = /\b\d{1,2}[ -][A-Za-z]{3,}\.?[ -]\d{2,4}\b|\b\d{4}-\d{1,2}-\d{1,2}\b|\b[A-Za-z]{3,}\.? \d{1,2},? \d{4}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/;

/** A Date value is read up to this length: real ones are under 80 characters with their comment. */
const MAX_DATE_LENGTH = 256;

/**
 * RFC 5322 comments (`(PDT)`, nested ones too) replaced by a space, in one pass: a `(` that is
 * never closed runs to the end. (A regex such as `/\([^)]*\)/g` rescans to the end from every
 * `(` of a run that is never closed: quadratic.)
 */
export function withoutComments(value: string): string {
  if (value.indexOf('(') === -1) return value;
  let out = '';
  let depth = 0;
  let from = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 40) {
      if (depth === 0) out += value.slice(from, i) + ' ';
      depth++;
    } else if (c === 41 && depth > 0) {
      depth--;
      if (depth === 0) from = i + 1;
    } else if (c === 92 && depth > 0) {
      i++; // quoted-pair inside a comment
    }
  }
  return depth === 0 ? out + value.slice(from) : out;
}

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
  const cleaned = withoutComments(value.length > MAX_DATE_LENGTH ? value.slice(0, MAX_DATE_LENGTH) : value)
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

function signalsOf(h: HeaderMap, raw: Buffer, fromEmail: string | undefined): MailSignals {
  const autoSubmitted = (header(h, 'auto-submitted') ?? '').toLowerCase();
  const suppress = (header(h, 'x-auto-response-suppress') ?? '').toLowerCase();
  const topType = mediaType(header(h, 'content-type'));
  const local = fromEmail?.split('@')[0] ?? '';
  return {
    listUnsubscribe: h.has('list-unsubscribe'),
    listId: h.has('list-id'),
    precedence: (header(h, 'precedence') ?? '').trim().toLowerCase(),
    autoSubmitted: autoSubmitted !== '' && autoSubmitted !== 'no',
    autoReplyHeader: h.has('x-autoreply') || h.has('x-autorespond') || h.has('x-autoresponder') || /\b(?:all|oof|autoreply)\b/.test(suppress),
    deliveryReport:
      topType === 'multipart/report' ||
      // Each pair of spellings is looked for only where a piece both share occurs: one pass over
      // the message (attachments included) instead of two, for the messages that have neither.
      (raw.indexOf('elivery-', 0, 'latin1') !== -1 &&
        (raw.indexOf('message/delivery-status', 0, 'latin1') !== -1 || raw.indexOf('Message/Delivery-Status', 0, 'latin1') !== -1)) ||
      local === 'mailer-daemon' ||
      local === 'postmaster',
    gmailLabels: gmailLabels(header(h, 'x-gmail-labels')),
    espHeader: espHeaderOf(h),
    calendar:
      topType === 'text/calendar' ||
      (raw.indexOf('alendar', 0, 'latin1') !== -1 && (raw.indexOf('text/calendar', 0, 'latin1') !== -1 || raw.indexOf('Text/Calendar', 0, 'latin1') !== -1)),
  };
}

/**
 * Headers only bulk senders, e-mail service providers and sales-engagement tools add (tracking,
 * campaign and complaint-loop ids). `X-Mailer` names the tool; a person's mail client is not one.
 */
const ESP_HEADERS = [
  'feedback-id',
  'list-unsubscribe-post',
  'x-campaign-id',
  'x-campaignid',
  'x-campaign',
  'x-mailgun-tag',
  'x-mailgun-campaign-id',
  'x-ses-outgoing',
  'x-sg-eid',
  'x-mc-user',
  'x-mailchimp-campaign',
  'x-sfmc-stack',
  'x-marketoid',
  'x-mkto-tracking',
  'x-rpcampaign',
  'x-cmae-id',
  'x-csa-complaints',
  'x-report-abuse',
  'x-listmember',
  'x-outreach-id',
  'x-outreach-sent',
  'x-apollo-id',
  'x-salesloft-id',
  'x-hs-campaign',
  'x-eloqua-id',
  'x-bulkmail',
] as const;
const BULK_MAILER =
  /\b(?:outreach|apollo|salesloft|mailchimp|marketo|eloqua|exacttarget|salesforce marketing|constant ?contact|sendgrid|mailgun|hubspot|lemlist|mailshake|reply\.io|campaign monitor|klaviyo|sendinblue|brevo|mailjet|pardot|listserv|lyris|majordomo|mailman|groupmail|bulk)\b/i;

function espHeaderOf(h: HeaderMap): string {
  for (const name of ESP_HEADERS) if (h.has(name)) return name;
  const mailer = header(h, 'x-mailer');
  if (mailer && BULK_MAILER.test(mailer.slice(0, 200))) return `x-mailer: ${mailer.slice(0, 60).toLowerCase()}`;
  return '';
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

const UNDECODABLE: ParseWarning = { kind: 'charset', reason: 'undecodable bytes replaced' };

/**
 * Charset problems: unknown labels on Content-Type header lines (of the message and of every
 * part) and in encoded words of the top header block, and text that had undecodable bytes. A
 * `charset=` inside a body (HTML meta tags in quoted-printable) is no label of ours. `known`
 * holds the warnings found so far (the head's when the body is checked): none is repeated.
 */
function charsetWarnings(sources: { contentTypeLines?: string; encodedWords?: string; texts: string[] }, known: readonly ParseWarning[] = []): ParseWarning[] {
  const warnings: ParseWarning[] = [];
  const seen = new Set(known.map((w) => w.reason));
  const add = (w: ParseWarning) => {
    if (seen.has(w.reason)) return;
    seen.add(w.reason);
    warnings.push(w);
  };
  const check = (raw: string) => {
    const label = raw.replace(/\*.*$/, '').toLowerCase();
    if (label !== '' && !charsetKnown(label)) add({ kind: 'charset', reason: `unknown charset "${label.slice(0, 40)}"` });
  };
  if (sources.contentTypeLines !== undefined) {
    for (const line of sources.contentTypeLines.matchAll(/^content-type:[^\n]*(?:\n[ \t][^\n]*)*/gim)) {
      const m = /charset\s*=\s*"?([^"';\s]+)/i.exec(line[0]);
      if (m?.[1]) check(m[1]);
    }
  }
  if (sources.encodedWords !== undefined) {
    for (const m of sources.encodedWords.matchAll(/=\?([^?\s]+)\?[bqBQ]\?/g)) if (m[1]) check(m[1]);
  }
  if (sources.texts.some((t) => t.indexOf('\ufffd') !== -1)) add(UNDECODABLE);
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

/** What the header block alone tells: enough to filter and resolve a message before its body is read. */
export type MessageHead = Omit<ParsedMessage, 'text' | 'newText' | 'attachmentCount'>;

/** A message whose header block is read; {@link readBody} reads the rest. */
export interface HeadRead {
  head: MessageHead;
  /** The message: line ends normalised, byte-order mark and Unix-from line dropped. */
  raw: Buffer;
  /** Index of the first body byte in `raw`. */
  bodyStart: number;
  /** The top header block as latin1 text (`raw` up to `bodyStart`). */
  headerText: string;
  /** The top header block, parsed. */
  headers: HeaderMap;
  /** Where the message came from, for errors. */
  location: string | undefined;
}

/** What the body tells. */
export interface MessageBody {
  /** The full body as text (HTML turned to text when there is no text part). */
  text: string;
  /** What this message itself says: quotes, forwarded blocks, signatures and disclaimers removed. */
  newText: string;
  attachmentCount: number;
  /** Problems found in the body only (the head's are in `head.warnings`). */
  warnings: ParseWarning[];
}

/** What {@link readHead} and {@link parseMessage} read. */
export interface ReadHeadInput {
  /** The message's bytes (any line ending unless `lineEndingsChecked`). */
  raw: Buffer;
  /** The mbox separator line's date (RawMessage.envelopeDate). */
  envelopeDate?: string;
  /** For error reports. */
  location?: string;
  /** The line endings are consistent already (RawMessage.lineEndingsChecked): no look for bare CRs. */
  lineEndingsChecked?: true;
}

/**
 * Reads a message's header block (no MIME parsing): ids, thread, date, addresses, subject and
 * the filter signals. Cheap, synchronous and without state (safe in a worker thread).
 *
 * Dates: the Date header; when missing or invalid the date of the last (earliest-hop) `Received`
 * header; then the mbox envelope date; else epoch with `dateSource: 'none'`.
 * Throws {@link MessageParseError} when the bytes are not a message at all.
 */
export function readHead(input: ReadHeadInput): HeadRead {
  const location = input.location;
  // A look for bare CRs is a native call per line of a CRLF message: in a worker, on shared
  // memory, ~0.3 s per thread of a 1 GB mailbox. A source that made them consistent says so.
  const raw = input.lineEndingsChecked ? skipUnixFrom(input.raw) : normalizeLineEndings(skipUnixFrom(input.raw));
  if (raw.length === 0 || raw.indexOf(':') === -1 || !startsWithHeader(raw)) {
    throw new MessageParseError(raw.length === 0 ? 'empty message' : 'no header block', { location: location ?? '' });
  }

  const bodyStart = headerBlockEnd(raw, 0);
  if (bodyStart > MAX_HEADER_BYTES) {
    throw new MessageParseError(`header block larger than ${MAX_HEADER_BYTES / 1024} KiB`, { location: location ?? '' });
  }
  const headerText = raw.toString('latin1', 0, bodyStart);
  // NUL is no text (PostgreSQL refuses it in a string): dropped from everything we read and store.
  const headers = parseHeaderBlock(withoutNul(headerText));

  const headerMessageId = firstId(header(headers, 'message-id'));
  const messageId = headerMessageId ?? `sha256:${createHash('sha256').update(toLf(raw)).digest('hex')}`;
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

  // The first From (the one mail clients show); every To and Cc line.
  const from = addresses(headers.get('from')?.slice(0, 1))[0] ?? null;
  const subject = withoutNul(decodeSubject(header(headers, 'subject')));
  const head: MessageHead = {
    messageId,
    messageIdSynthetic: headerMessageId === null,
    threadId,
    inReplyTo,
    references,
    date,
    dateSource,
    from,
    to: addresses(headers.get('to')),
    cc: addresses(headers.get('cc')),
    subject,
    sizeBytes: input.raw.length,
    signals: signalsOf(headers, raw, from?.email),
    warnings: charsetWarnings({ contentTypeLines: headerText, encodedWords: headerText, texts: [subject] }),
  };
  return { head, raw, bodyStart, headerText, headers, location };
}

/** Header fields the MIME parser reads; the rest of the top block (Received, DKIM…) is not handed to it. */
const BODY_HEADERS = /^(?:content-type|content-transfer-encoding|content-disposition|mime-version)[ \t]*:/i;

/** The top header block reduced to the fields that shape the body, latin1, ending with its blank line. */
function bodyHeaderBlock(headerText: string): Buffer {
  const lines = headerText.split('\n');
  let out = '';
  let keep = false;
  for (const line of lines) {
    if (line === '') continue;
    const c = line.charCodeAt(0);
    if (c !== 32 && c !== 9) keep = BODY_HEADERS.test(line);
    if (keep) out += line + '\n';
  }
  return Buffer.from(out + '\n', 'latin1');
}

/**
 * Reads the body of a message whose head {@link readHead} read: attachment bodies cut, the MIME
 * parser run over the body-shaping headers and the body, HTML turned to text when there is no
 * text part, and the message's own new text separated from quotes and signatures.
 * Throws {@link MessageParseError} when the MIME parser fails.
 */
export async function readBody(read: HeadRead, options: ParseOptions = {}): Promise<MessageBody> {
  const backend = resolveBackend(options.backend);
  const { raw, bodyStart } = read;
  const cut = cutAttachmentBodies(raw, options.cutThreshold ?? CUT_THRESHOLD);
  // Cuts only touch part bodies, never the top header block: the body starts at the same index.
  const direct = options.direct !== false ? readTextDirect(cut.raw, { headers: read.headers, bodyStart }) : undefined;
  let parsed: { text: string; html: string; attachmentCount: number };
  /** Where the charset check looks for `charset=` labels. */
  let contentTypeLines: string;
  if (direct) {
    parsed = direct;
    contentTypeLines = direct.contentTypes.map((v) => `content-type: ${v}`).join('\n');
  } else {
    const forParser = Buffer.concat([bodyHeaderBlock(read.headerText), cut.raw.subarray(bodyStart)]);
    try {
      parsed = await backend.parse(forParser);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new MessageParseError(`${backend.name}: ${reason.slice(0, 200)}`, { location: read.location ?? '', cause: err });
    }
    contentTypeLines = forParser.toString('latin1');
  }

  let text = parsed.text;
  if (text.length > MAX_BODY_TEXT) text = text.slice(0, MAX_BODY_TEXT);
  if (text.trim() === '' && parsed.html !== '') text = htmlToText(parsed.html);
  else if (plainIsHtml(text)) text = plainHtmlToText(text);
  text = withoutNul(text.replace(/\r\n?/g, '\n'));
  return {
    text,
    newText: options.stripQuotes === false ? text : extractNewText(text),
    attachmentCount: parsed.attachmentCount,
    warnings: [...cut.warnings, ...charsetWarnings({ contentTypeLines, texts: [text] }, read.head.warnings)],
  };
}

/**
 * Parses one raw message into plain data: {@link readHead} then {@link readBody} (safe to call
 * from a worker thread: no state, no I/O).
 */
export async function parseMessage(input: ReadHeadInput, options: ParseOptions = {}): Promise<ParsedMessage> {
  const read = readHead(input);
  const body = await readBody(read, options);
  return {
    ...read.head,
    text: body.text,
    newText: body.newText,
    attachmentCount: body.attachmentCount,
    warnings: [...read.head.warnings, ...body.warnings],
  };
}
