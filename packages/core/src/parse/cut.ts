import type { ParseWarning } from '../interfaces.js';
import { headerBlockEnd, headerParam, mediaType, parseHeaderBlock } from './headers.js';
import { MAX_MIME_DEPTH, multipartParts } from './mime-tree.js';

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
      if (boundary && depth < MAX_MIME_DEPTH) visitMultipart(hEnd, end, boundary, depth + 1);
      return;
    }
    if (depth > 0 && isCuttable(type, disposition)) {
      cuts.push([hEnd, end]);
      if (truncated) warnings.push({ kind: 'attachment', reason: `attachment part ${type || 'untyped'} truncated: no closing boundary` });
    }
  };

  const visitMultipart = (start: number, end: number, boundary: string, depth: number): void => {
    const { parts, closed } = multipartParts(raw, start, end, boundary);
    parts.forEach(([s, e], i) => visitPart(s, e, depth, !closed && i === parts.length - 1));
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
