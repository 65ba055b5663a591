/**
 * Public types of the engine.
 *
 * Glossary
 * - workspace:   one customer-success team's tenant, identified by its own domain (`acme.com`).
 * - client:      a company the workspace serves, found by its e-mail domain(s).
 * - contact:     a person at a client, found by e-mail address(es).
 * - interaction: one message / meeting / call / note / support ticket with a client.
 * - source:      where raw items come from (an mbox file, an .eml folder, a Maildir, Gmail,
 *                HubSpot, Intercom); it yields raw items with a resumable cursor.
 * - job:         a durable unit of long work (sync, backfill, large ingestion).
 * - snapshot:    a client's health score as it was at the end of one UTC day.
 *
 * Data flows one way: source → parse → resolve → score → store → health → metrics → HTTP.
 */

/** A resumable position in a source; JSON-serialisable, opaque to everyone but its source. */
export type SourceCursor = Record<string, unknown>;

/** One raw RFC 5322 message as a source yields it. */
/** Why a source refused a message without reading it. */
export type RefusalReason = 'too_large' | 'outside_folder';

export interface RawMessage {
  /** The message bytes, as stored (any line ending). */
  raw: Buffer;
  /** Where it is, for error reports: a file path, `path@byteOffset` for an mbox, a provider id. */
  location: string;
  /** Provider object id when the source has one (e.g. a Gmail message id). */
  providerId?: string;
  /** Date from the mbox `From ` separator line, used when the Date header is missing or bad. */
  envelopeDate?: string;
  /** The provider's labels of the message (Gmail `labelIds`: `INBOX`, `CATEGORY_PROMOTIONS`…). */
  labels?: string[];
  /**
   * Set when the source would not read the message (`raw` is then empty): a file larger than
   * the size cap, or a symlink out of the folder. The run counts it as skipped for that reason.
   */
  refused?: RefusalReason;
  /**
   * Set by a source that has already made the line endings consistent (source/line-endings.ts:
   * mbox, eml and Maildir files): the parser does not look for bare CRs again.
   */
  lineEndingsChecked?: true;
  /**
   * The cursor to save once this message (and all before it) is stored: resuming from it
   * continues with the next message.
   */
  cursor: SourceCursor;
}

/** Every connector and local mailbox implements this. */
export interface Source<T = RawMessage> {
  /** `mbox`, `eml`, `maildir`, `google`, … — stored as the interaction's `source`. */
  readonly kind: string;
  /** Stable identity for cursor storage, e.g. `mbox:/abs/path/file.mbox`. */
  readonly key: string;
  /** Total item count when cheaply known (may be an estimate), else undefined. */
  total?(): Promise<number | undefined>;
  /** Size in bytes when the source is one file read front to back (an mbox), for progress by bytes read (the cursor's `offset`). */
  size?(): Promise<number | undefined>;
  /** Items in order, starting after `from` when given. */
  items(from?: SourceCursor, options?: ItemsOptions): AsyncIterable<T>;
}

/** How a consumer reads a source's items. */
export interface ItemsOptions {
  /**
   * The consumer copies what it keeps of an item's bytes before it asks for the next item: the
   * source may then read the next one into the same memory (an mbox reader reuses its buffer
   * instead of leaving a mailbox's size in garbage). Default false: every item stays intact.
   */
  transient?: boolean;
}

export interface Address {
  /** Lower-cased address. */
  email: string;
  /** Display name, decoded; '' when absent. */
  name: string;
}

/** Kinds of per-message problems, counted in `processingErrors`. */
export const PROBLEM_KINDS = ['parse', 'charset', 'attachment', 'sentiment'] as const;
export type ProblemKind = (typeof PROBLEM_KINDS)[number];

/** A non-fatal problem met while parsing a message that was still kept. */
export interface ParseWarning {
  kind: ProblemKind;
  reason: string;
}

/** Signals the filter uses to tell conversation from bulk / automated mail. */
export interface MailSignals {
  listUnsubscribe: boolean;
  listId: boolean;
  /** Lower-cased `Precedence` header value, '' when absent. */
  precedence: string;
  /** Lower-cased `Auto-Submitted` header value, '' when absent. */
  autoSubmitted: boolean;
  /** `X-Autoreply`, `X-Autorespond`, `X-Auto-Response-Suppress: All|OOF`, … present. */
  autoReplyHeader: boolean;
  /** multipart/report, message/delivery-status, or a mailer-daemon sender. */
  deliveryReport: boolean;
  /** Gmail labels from `X-Gmail-Labels` (Google Takeout), e.g. `Category Promotions`. */
  gmailLabels: string[];
  /**
   * The first bulk-sender or tracking header present (`feedback-id`, `x-mailgun-tag`,
   * `x-campaign-id`, a sales-engagement `x-mailer`…), lower-cased; absent or '' when none.
   */
  espHeader?: string;
  /** A `text/calendar` part (an invitation or its update): a calendar notice. */
  calendar?: boolean;
}

/** A parsed message: plain data (crosses worker threads by structured clone). */
export interface ParsedMessage {
  /** Message-ID without angle brackets; a stable content hash (`sha256:…`) when missing. */
  messageId: string;
  messageIdSynthetic: boolean;
  /** Thread key: X-GM-THRID, else the first References id, else In-Reply-To, else messageId. */
  threadId: string;
  inReplyTo: string | null;
  references: string[];
  /** ISO 8601 UTC. */
  date: string;
  dateSource: 'header' | 'received' | 'envelope' | 'none';
  from: Address | null;
  to: Address[];
  cc: Address[];
  subject: string;
  /** The full body as text (HTML turned to text when there is no text part). */
  text: string;
  /** What this message itself says: quotes, forwarded blocks, signatures and disclaimers removed. */
  newText: string;
  attachmentCount: number;
  sizeBytes: number;
  signals: MailSignals;
  warnings: ParseWarning[];
}

export type SentimentLabel = 'positive' | 'neutral' | 'negative';

export interface SentimentResult {
  label: SentimentLabel;
  /** In [-1, 1]. */
  score: number;
}

/** Scores the sentiment of a text. Implementations must be pure and synchronous. */
export interface SentimentScorer {
  score(text: string): SentimentResult;
}

export type Direction = 'inbound' | 'outbound' | 'internal';
