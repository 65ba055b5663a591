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
 * Every mailbox of one or more address header values (raw, unfolded, latin1 text), groups
 * flattened, addresses lower-cased, display names decoded.
 */
export function decodeAddressHeaders(values: readonly string[] | undefined): Address[] {
  const out: Address[] = [];
  for (const v of values ?? []) walk(addressparser(headerText(v.trim())), out);
  return out;
}

/** A Subject header value (raw, unfolded, latin1 text) decoded, whitespace collapsed; '' when absent. */
export function decodeSubject(value: string | undefined): string {
  if (value === undefined) return '';
  return decodeWordsSafe(headerText(value.trim())).replace(/\s+/g, ' ').trim();
}
