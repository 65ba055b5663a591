/**
 * Address and subject headers decoded straight from the raw header block, the way mailparser
 * decodes them (the same libraries: nodemailer's addressparser, libmime, punycode.js), so the
 * envelope of a message is known before — and without — parsing its body.
 */
import libmime from 'libmime';
import addressparser, { type Address as ParsedAddress } from 'nodemailer/lib/addressparser';
import punycode from 'punycode.js';
import type { Address } from '../interfaces.js';

/** An RFC 2047 encoded word. */
const ENCODED_WORD = /=\?[^?]+\?[BbQq]\?[^?]*\?=/;

/** Header bytes read as latin1 → text: raw 8-bit header bytes are UTF-8 (RFC 6532), as mailparser reads them. */
function headerText(latin1: string): string {
  for (let i = 0; i < latin1.length; i++) {
    if (latin1.charCodeAt(i) > 0x7f) return Buffer.from(latin1, 'latin1').toString('utf8');
  }
  return latin1;
}

function decodeWordsSafe(s: string): string {
  // libmime's five passes change nothing in text with neither an encoded word's start nor the
  // NUL of its joining marker: most subjects and names.
  if (s.indexOf('=?') === -1 && s.indexOf('\0') === -1) return s;
  try {
    return libmime.decodeWords(s);
  } catch {
    return s;
  }
}

function pushAddress(out: Address[], email: string, name: string): void {
  const e = email.trim().toLowerCase();
  if (e === '') return;
  out.push({ email: e, name: name.trim() });
}

function walk(list: ParsedAddress[], out: Address[]): void {
  for (const a of list) {
    if (a.group) {
      walk(a.group, out);
      continue;
    }
    const name = a.name ? decodeWordsSafe(a.name.trim()) : '';
    let email = a.address;
    // RFC 2047 §5 keeps encoded words out of the addr-spec: one there must decode to a plain
    // local@domain or the address is dropped (mailparser's rule).
    if (email && ENCODED_WORD.test(email)) {
      const decoded = decodeWordsSafe(email);
      email = /^[^\s@]+@[^\s@]+$/.test(decoded) && !/=\?/.test(decoded) ? decoded : '';
    }
    if (email && /@xn--/.test(email)) {
      const at = email.lastIndexOf('@');
      try {
        email = email.slice(0, at + 1) + punycode.toUnicode(email.slice(at + 1));
      } catch {
        // not valid punycode: kept as it is
      }
    }
    pushAddress(out, email, name);
  }
}

/**
 * Address header values already decoded by this thread, most recently used last: a mailbox names
 * the same people in the same From, To and Cc lines again and again (the 50,000-message bench
 * mailbox has ~10,000 different lines among ~129,000; four real Enron mailboxes 1,742 among
 * 4,560), and the address parser, a character at a time, was ~7 % of a parse worker's time.
 * Bounded in entries and in the length of a value kept; what is handed out is a copy.
 */
const decoded = new Map<string, readonly Address[]>();
/** Values kept (a few hundred KB at most). */
export const ADDRESS_CACHE_ENTRIES = 4096;
/** Longer values (a circular to hundreds of people) are decoded every time. */
const ADDRESS_CACHE_MAX_VALUE = 1024;

function decodeValue(value: string): readonly Address[] {
  const hit = decoded.get(value);
  if (hit !== undefined) {
    decoded.delete(value);
    decoded.set(value, hit);
    return hit;
  }
  const out: Address[] = [];
  walk(addressparser(headerText(value.trim())), out);
  if (value.length <= ADDRESS_CACHE_MAX_VALUE) {
    if (decoded.size >= ADDRESS_CACHE_ENTRIES) decoded.delete(decoded.keys().next().value!);
    decoded.set(value, out);
  }
  return out;
}

/**
 * Every mailbox of one or more address header values (raw, unfolded, latin1 text), groups
 * flattened, addresses lower-cased, display names decoded.
 */
export function decodeAddressHeaders(values: readonly string[] | undefined): Address[] {
  const out: Address[] = [];
  for (const v of values ?? []) for (const a of decodeValue(v)) out.push({ email: a.email, name: a.name });
  return out;
}

/** How many address header values this thread holds decoded (tests). */
export const decodedAddressValues = (): number => decoded.size;

/** A Subject header value (raw, unfolded, latin1 text) decoded, whitespace collapsed; '' when absent. */
export function decodeSubject(value: string | undefined): string {
  if (value === undefined) return '';
  return decodeWordsSafe(headerText(value.trim())).replace(/\s+/g, ' ').trim();
}
