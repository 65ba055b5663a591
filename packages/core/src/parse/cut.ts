import type { ParseWarning } from '../interfaces.js';
import { headerBlockEnd, headerParam, mediaType, parseHeaderBlock } from './headers.js';

const LF = 10;
const CR = 13;
const DASH = 45;
/** Multipart nesting deeper than this is left as it is (parsers cap it too). */
const MAX_DEPTH = 12;
/** Smaller messages are not worth a scan: the parser is fast on them anyway. */
export const CUT_THRESHOLD = 16 * 1024;

export interface CutResult {
  /** The message with attachment bodies removed (the input itself when nothing was cut). */
  raw: Buffer;
  /** Bytes removed. */
  cutBytes: number;
  warnings: ParseWarning[];
}

/**
 * Whether a part's body is dropped before parsing: attachments and every non-text leaf (images,
 * PDFs, octet streams, TNEF…). Text leaves and nested messages are kept: they are what we read.
 */
function isCuttable(type: string, disposition: string): boolean {
  if (type.startsWith('multipart/') || type.startsWith('message/')) return false;
  if (disposition.toLowerCase().startsWith('attachment')) return true;
  if (type === '' || type.startsWith('text/')) return false;
  return true;
}

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
 * Cuts the bodies of attachment parts out of a raw message, keeping every part's headers (so
 * attachments are still seen and counted) and the MIME structure intact. A fast byte scan over
 * delimiter lines; anything it does not understand is left untouched for the parser.
 */
export function cutAttachmentBodies(raw: Buffer, threshold: number = CUT_THRESHOLD): CutResult {
  const warnings: ParseWarning[] = [];
  if (raw.length < threshold) return { raw, cutBytes: 0, warnings };
  const cuts: Array<[number, number]> = [];

  const visitPart = (start: number, end: number, depth: number, truncated = false): void => {
    const hEnd = headerBlockEnd(raw, start, end);
    if (hEnd >= end) return;
    const headers = parseHeaderBlock(raw.toString('latin1', start, hEnd));
    const typeValue = headers.get('content-type')?.[0] ?? '';
    const type = mediaType(typeValue);
    const disposition = headers.get('content-disposition')?.[0] ?? '';
    if (type.startsWith('multipart/')) {
      const boundary = headerParam(typeValue, 'boundary');
      if (boundary && depth < MAX_DEPTH) visitMultipart(hEnd, end, boundary, depth + 1);
      return;
    }
    if (depth > 0 && isCuttable(type, disposition)) {
      cuts.push([hEnd, end]);
      if (truncated) warnings.push({ kind: 'attachment', reason: `attachment part ${type || 'untyped'} truncated: no closing boundary` });
    }
  };

  const visitMultipart = (start: number, end: number, boundary: string, depth: number): void => {
    const marker = Buffer.from(`--${boundary}`, 'latin1');
    const needle = Buffer.from(`\n--${boundary}`, 'latin1');
    // Line starts of delimiters within [start, end).
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
    for (let k = 0; k < delims.length; k++) {
      const d = delims[k];
      if (!d || d.kind === 'close') break;
      const lineEnd = raw.indexOf(LF, d.at);
      if (lineEnd === -1 || lineEnd >= end) break;
      const partStart = lineEnd + 1;
      const next = delims[k + 1];
      const partEnd = next ? breakBefore(raw, next.at) : end;
      if (partEnd > partStart) visitPart(partStart, partEnd, depth, !next && !closed);
    }
  };

  visitPart(0, raw.length, 0);
  if (cuts.length === 0) return { raw, cutBytes: 0, warnings };
  cuts.sort((a, b) => a[0] - b[0]);
  const pieces: Buffer[] = [];
  let at = 0;
  let cutBytes = 0;
  for (const [s, e] of cuts) {
    if (s < at) continue;
    pieces.push(raw.subarray(at, s));
    cutBytes += e - s;
    at = e;
  }
  pieces.push(raw.subarray(at));
  return { raw: Buffer.concat(pieces, raw.length - cutBytes), cutBytes, warnings };
}
