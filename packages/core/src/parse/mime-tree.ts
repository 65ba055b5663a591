/**
 * The MIME structure of a raw message, read by a linear byte scan over delimiter lines: each
 * part's header block and the byte range of its body, without decoding anything. Used to cut
 * attachment bodies before a MIME library sees the message (cut.ts) and to read the text of
 * simply-shaped messages without one (text-parts.ts).
 */
import { headerBlockEnd, headerParam, mediaType, parseHeaderBlock, type HeaderMap } from './headers.js';

const LF = 10;
const CR = 13;
const DASH = 45;
/** Multipart nesting deeper than this is left unread (MIME libraries cap it too). */
const MAX_MIME_DEPTH = 12;

/** Start of the line break before index `i` (the CRLF or LF belongs to the delimiter). */
function breakBefore(buf: Buffer, i: number): number {
  if (i > 0 && buf[i - 1] === LF) return i >= 2 && buf[i - 2] === CR ? i - 2 : i - 1;
  return i;
}

/** Does a delimiter `--boundary` start at line start `i`? Returns its kind. */
function delimiterAt(buf: Buffer, i: number, marker: Buffer): 'open' | 'close' | undefined {
  if (i + marker.length > buf.length || buf.compare(marker, 0, marker.length, i, i + marker.length) !== 0) return undefined;
  const j = i + marker.length;
  const c = buf[j];
  if (c === DASH && buf[j + 1] === DASH) return 'close';
  if (c === undefined || c === LF || c === CR || c === 32 || c === 9) return 'open';
  return undefined;
}

/**
 * The byte ranges of a multipart body's parts (headers + body), whether it was closed, and
 * whether a delimiter line carried anything after the boundary (transport padding, junk), which
 * MIME libraries read differently.
 */
function multipartParts(raw: Buffer, start: number, end: number, boundary: string): { parts: Array<[number, number]>; closed: boolean; padded: boolean } {
  const marker = Buffer.from(`--${boundary}`, 'latin1');
  const needle = Buffer.from(`\n--${boundary}`, 'latin1');
  const delims: Array<{ at: number; kind: 'open' | 'close' }> = [];
  const first = delimiterAt(raw, start, marker);
  if (first) delims.push({ at: start, kind: first });
  let p = raw.indexOf(needle, start);
  while (p !== -1 && p < end) {
    const kind = delimiterAt(raw, p + 1, marker);
    if (kind) {
      delims.push({ at: p + 1, kind });
      if (kind === 'close') break;
    }
    p = raw.indexOf(needle, p + 1);
  }
  const closed = delims.at(-1)?.kind === 'close';
  const parts: Array<[number, number]> = [];
  let padded = false;
  for (let k = 0; k < delims.length; k++) {
    const d = delims[k];
    if (!d || d.kind === 'close') break;
    const lineEnd = raw.indexOf(LF, d.at);
    if (lineEnd === -1 || lineEnd >= end) break;
    const contentEnd = raw[lineEnd - 1] === CR ? lineEnd - 1 : lineEnd;
    if (contentEnd !== d.at + marker.length) padded = true;
    const partStart = lineEnd + 1;
    const next = delims[k + 1];
    const partEnd = next ? breakBefore(raw, next.at) : end;
    if (partEnd > partStart) parts.push([partStart, partEnd]);
  }
  return { parts, closed, padded };
}

/** A part that is not a multipart: its headers and where its body lies. */
export interface MimeLeaf {
  /** Lower-cased `type/subtype` ('' when the part has no Content-Type). */
  type: string;
  headers: HeaderMap;
  bodyStart: number;
  bodyEnd: number;
  depth: number;
  /** The last part of a multipart that had no closing delimiter. */
  truncated: boolean;
  /** Index (in walk order) of the nearest multipart/alternative around it; -1 when none. */
  alternative: number;
}

export interface MimeTree {
  leaves: MimeLeaf[];
  /**
   * Every multipart closed, none past MAX_MIME_DEPTH, none without a boundary, none empty, no
   * delimiter line with anything after its boundary, no single part with a boundary parameter.
   */
  wellFormed: boolean;
}

/** The message's top header block, when the caller has read it already. */
export interface TopHeaders {
  headers: HeaderMap;
  /** Index of the first body byte. */
  bodyStart: number;
}

/** Walks the parts of the message (`top`: its header block, already read); leaves in document order. */
export function mimeTree(raw: Buffer, top?: TopHeaders): MimeTree {
  const leaves: MimeLeaf[] = [];
  let wellFormed = true;
  let multiparts = 0;
  const visit = (from: number, to: number, depth: number, truncated: boolean, alternative: number): void => {
    const hEnd = depth === 0 && top ? top.bodyStart : headerBlockEnd(raw, from, to);
    const headers = depth === 0 && top ? top.headers : parseHeaderBlock(raw.toString('latin1', from, hEnd));
    const typeValue = headers.get('content-type')?.[0] ?? '';
    const type = mediaType(typeValue);
    const boundary = headerParam(typeValue, 'boundary');
    if (type.startsWith('multipart/')) {
      const id = multiparts++;
      if (!boundary || depth >= MAX_MIME_DEPTH) {
        wellFormed = false;
        leaves.push({ type, headers, bodyStart: hEnd, bodyEnd: to, depth, truncated, alternative });
        return;
      }
      const { parts, closed, padded } = multipartParts(raw, hEnd, to, boundary);
      if (!closed || padded || parts.length === 0) wellFormed = false;
      const inner = type === 'multipart/alternative' ? id : alternative;
      parts.forEach(([s, e], i) => visit(s, e, depth + 1, !closed && i === parts.length - 1, inner));
      return;
    }
    // A part whose header block never ends (no blank line before the next delimiter) is read
    // differently by each library; an attachment whose body cut.ts removed ends its block exactly.
    const blockEnded = raw[hEnd - 1] === LF && (hEnd - 1 === from || raw[hEnd - 2] === LF || (raw[hEnd - 2] === CR && raw[hEnd - 3] === LF));
    if ((depth > 0 && !blockEnded) || boundary !== undefined) wellFormed = false;
    leaves.push({ type, headers, bodyStart: hEnd, bodyEnd: to, depth, truncated, alternative });
  };
  visit(0, raw.length, 0, false, -1);
  return { leaves, wellFormed };
}
