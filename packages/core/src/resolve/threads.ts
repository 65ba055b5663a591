/**
 * Replies that carry no In-Reply-To or References header, threaded by their subject.
 *
 * Mail exported from Exchange and Outlook stores (PST conversions such as the Enron corpus), and
 * some gateways, drop the threading headers: our "RE: You still there?" then opens a thread of
 * its own, and the client's "You still there?" reads as never answered. What such a reply keeps is
 * its subject. Like the subject step of JWZ's threading algorithm, a message whose subject starts
 * with a reply prefix and that names no earlier message joins the thread of the latest earlier
 * message with the same client and the same subject (prefixes dropped), if that one is at most
 * {@link SUBJECT_THREAD_DAYS} days older. Messages with threading headers are left as they are.
 */
import { DAY_MS } from '../util/time.js';

/** How far back a reply without threading headers looks for the message it answers (the reply window of health/history.ts). */
export const SUBJECT_THREAD_DAYS = 30;
const WINDOW_MS = SUBJECT_THREAD_DAYS * DAY_MS;

/** Reply and forward prefixes in the languages mail clients write them: "Re:", "RE:", "AW:", "SV:", "Antw:", "Fwd:", "FW:", "[3] Re:". */
const PREFIX = /^\s*(?:\[[^\]]{0,40}\]\s*)?(re|aw|sv|antw|rif|odp|vs|fwd?|wg|tr|rv)\s*(?:(?:\[\d{1,3}\]|\(\d{1,3}\))\s*)?:\s*/i;
const REPLY_PREFIXES = new Set(['re', 'aw', 'sv', 'antw', 'rif', 'odp', 'vs']);
/** `lower(subject) like …` patterns that find the stored rows a reply prefix may start (a superset: checked again with {@link isReplySubject}). */
export const REPLY_SUBJECT_LIKE = ['re%', 'aw%', 'sv%', 'antw%', 'rif%', 'odp%', 'vs%', '[%', ' %'] as const;
/** At most this many prefixes are read ("RE: RE: FW: RE: …"): bounded work on a hostile subject. */
const MAX_PREFIXES = 20;

/** Whether a subject starts with a reply prefix ("Re:", "AW:", "SV:"); a forward ("FW:") is not a reply. */
export function isReplySubject(subject: string): boolean {
  const m = PREFIX.exec(subject);
  return m !== null && REPLY_PREFIXES.has(m[1]!.toLowerCase());
}

/** The subject without its reply and forward prefixes, lower-cased, white space collapsed: "RE: FW:  Q4 Plan" → "q4 plan". */
export function subjectKey(subject: string): string {
  let s = subject;
  for (let k = 0; k < MAX_PREFIXES; k++) {
    const m = PREFIX.exec(s);
    if (!m) break;
    s = s.slice(m[0].length);
  }
  return s.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** What the linking reads of an e-mail interaction (the columns of the interactions table). */
export interface ThreadRow {
  id: string;
  client_id: string;
  /** The normalised Message-ID. */
  dedupe_key: string;
  /** The root of its thread: its own Message-ID when it names no earlier message. */
  thread_id: string | null;
  subject: string;
  /** ISO 8601. */
  occurred_at: string;
}

/** A row that names no earlier message: its thread is itself (thread_id = its own Message-ID). */
export function isUnthreaded(row: Pick<ThreadRow, 'thread_id' | 'dedupe_key'>): boolean {
  return row.thread_id === row.dedupe_key;
}

/**
 * The thread each reply without threading headers joins: id → thread_id, for the rows whose thread
 * changes. `rows`: the e-mail interactions of some clients over a span of time, in any order
 * (stored ones and new ones alike). Per client and subject, oldest first, a reply-prefixed
 * unthreaded row takes the thread of the row before it when that row is at most 30 days older.
 * Linear after the sort.
 */
export function linkSubjectThreads(rows: readonly ThreadRow[]): Map<string, string> {
  const groups = new Map<string, { row: ThreadRow; at: number; key: string }[]>();
  for (const row of rows) {
    const key = subjectKey(row.subject);
    if (key === '') continue;
    const g = `${row.client_id}\u0000${key}`;
    let list = groups.get(g);
    if (!list) groups.set(g, (list = []));
    list.push({ row, at: Date.parse(row.occurred_at), key });
  }
  const changed = new Map<string, string>();
  for (const list of groups.values()) {
    if (list.length < 2) continue;
    list.sort((a, b) => a.at - b.at || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
    let prevThread = list[0]!.row.thread_id;
    let prevAt = list[0]!.at;
    for (let i = 1; i < list.length; i++) {
      const { row, at } = list[i]!;
      let thread = changed.get(row.id) ?? row.thread_id;
      if (isUnthreaded(row) && isReplySubject(row.subject) && prevThread !== null && at - prevAt <= WINDOW_MS && thread !== prevThread) {
        thread = prevThread;
        changed.set(row.id, thread);
      }
      prevThread = thread;
      prevAt = at;
    }
  }
  return changed;
}
