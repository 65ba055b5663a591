import type { ParseWarning } from '../interfaces.js';
import { mimeTree } from './mime-tree.js';

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
  for (const leaf of mimeTree(raw).leaves) {
    if (leaf.depth === 0 || leaf.bodyEnd <= leaf.bodyStart) continue;
    if (!isCuttable(leaf.type, leaf.headers.get('content-disposition')?.[0] ?? '')) continue;
    cuts.push([leaf.bodyStart, leaf.bodyEnd]);
    if (leaf.truncated) warnings.push({ kind: 'attachment', reason: `attachment part ${leaf.type || 'untyped'} truncated: no closing boundary` });
  }
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
