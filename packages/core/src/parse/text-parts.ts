/**
 * The text of a message read straight from its MIME structure, without a MIME library, for the
 * shapes nearly all mail has: one text/plain part, text/plain beside text/html
 * (multipart/alternative), either of them with attachments (multipart/mixed, related). Only the
 * text part is decoded — with the transfer and charset decoders mailparser itself uses (libqp,
 * libbase64, libmime) and its rules for what is text and what is an attachment — so a message
 * with a 2 MB PDF costs what its few lines of text cost. Anything else (a forwarded message
 * part, several text parts to join, a multipart left open, an unknown layout) returns undefined
 * and goes to the MIME library (parse.ts). `text-parts.test.ts` holds this to mailparser's
 * answer on the real-world corpus.
 */
import { decode as decodeQp } from 'libqp';
import { decode as decodeBase64 } from 'libbase64';
import libmime from 'libmime';
import { decode as decodeCharset } from 'libmime/lib/charset.js';
import { mimeTree, type MimeLeaf, type TopHeaders } from './mime-tree.js';

export interface DirectBody {
  /** The text/plain part, line ends as `\n`; '' when there is none. */
  text: string;
  /** The text/html part, decoded, only when there is no text/plain part with text; else ''. */
  html: string;
  attachmentCount: number;
  /** Every part's Content-Type value (for the charset check). */
  contentTypes: string[];
}

/** Leaves mailparser reads as text (message/delivery-status too, which goes to the library). */
const TEXT_TYPES = new Set(['text/plain', 'text/html']);
/** Charsets mailparser reads as UTF-8 without a charset decoder. */
const AS_UTF8 = new Set(['ascii', 'usascii', 'utf8']);

function decodeLeaf(raw: Buffer, leaf: MimeLeaf, contentType: ReturnType<typeof libmime.parseHeaderValue>): string {
  const body = raw.subarray(leaf.bodyStart, leaf.bodyEnd);
  const encoding = (leaf.headers.get('content-transfer-encoding')?.[0] ?? '')
    .replace(/\([^)]*\)/g, '')
    .toLowerCase()
    .trim();
  let bytes: Buffer;
  if (encoding === 'base64') bytes = decodeBase64(body.toString('latin1').replace(/[^a-zA-Z0-9+/=]/g, ''));
  else if (encoding === 'quoted-printable') bytes = decodeQp(body);
  else bytes = body;
  const params = contentType.params;
  const charset = params.charset || 'utf-8';
  const text = AS_UTF8.has(charset.toLowerCase().replace(/[^a-z0-9]+/g, '')) ? bytes.toString('utf8') : decodeCharset(bytes, charset);
  return text.replace(/\r?\n/g, '\n');
}

/**
 * The body of a simply-shaped message, or undefined when the MIME library must read it. `top`:
 * the message's header block, when already read (parse.ts's readHead).
 */
export function readTextDirect(raw: Buffer, top?: TopHeaders): DirectBody | undefined {
  const tree = mimeTree(raw, top);
  if (!tree.wellFormed) return undefined;
  const contentTypes: string[] = [];
  let plain: { leaf: MimeLeaf; ct: ReturnType<typeof libmime.parseHeaderValue> } | undefined;
  let html: typeof plain;
  let attachmentCount = 0;
  for (const leaf of tree.leaves) {
    const typeLines = leaf.headers.get('content-type');
    if ((typeLines?.length ?? 0) > 1) return undefined;
    if (typeLines?.[0]) contentTypes.push(typeLines[0]);
    const ct = libmime.parseHeaderValue(typeLines?.[0] ?? '');
    const type = (ct.value || '').toLowerCase().trim() || (leaf.depth === 0 ? 'text/plain' : '');
    // An untyped part inside a multipart (a digest's default is message/rfc822), a nested
    // message, a delivery report: the library's reading applies.
    if (type === '' || (type !== leaf.type && leaf.type !== '') || type.startsWith('message/') || type.startsWith('multipart/')) return undefined;
    const dispositionValue = libmime.parseHeaderValue(leaf.headers.get('content-disposition')?.[0] ?? '').value;
    let disposition = (dispositionValue || '').toLowerCase().trim();
    if (disposition && disposition !== 'attachment' && disposition !== 'inline') disposition = 'attachment';
    if (!disposition) disposition = TEXT_TYPES.has(type) ? 'inline' : 'attachment';
    if (!TEXT_TYPES.has(type) || disposition !== 'inline') {
      attachmentCount += 1;
      continue;
    }
    // format=flowed: mailparser's splitter unwraps it with an older libmime whose reading of
    // quoted lines differs from RFC 3676's; the library reads those.
    if (type === 'text/plain' && ct.params.format?.toLowerCase().trim() === 'flowed') return undefined;
    // An empty text part: its line breaks are counted differently by the library's splitter.
    if (leaf.bodyStart >= leaf.bodyEnd) return undefined;
    if (type === 'text/plain') {
      if (plain) return undefined; // several text parts: mailparser joins them
      plain = { leaf, ct };
    } else {
      if (html) return undefined;
      html = { leaf, ct };
    }
  }
  // Text beside HTML outside one multipart/alternative (both shown inline, one after the other):
  // mailparser joins what it shows; the library reads those.
  if (plain && html && (plain.leaf.alternative === -1 || plain.leaf.alternative !== html.leaf.alternative)) return undefined;
  const text = plain ? decodeLeaf(raw, plain.leaf, plain.ct) : '';
  return {
    text,
    html: html && text.trim() === '' ? decodeLeaf(raw, html.leaf, html.ct) : '',
    attachmentCount,
    contentTypes,
  };
}
