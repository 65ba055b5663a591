import { open, stat, type FileHandle } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { ChsError } from '../errors.js';
import type { ItemsOptions, RawMessage, Source, SourceCursor } from '../interfaces.js';
import { normalizeLineEndings } from './line-endings.js';
import { MAX_FILE_BYTES } from './files.js';

/** Options of {@link mboxSource}. */
export interface MboxOptions {
  /** Read-chunk size in bytes; default 1 MiB (large chunks keep the native `indexOf` scan hot). */
  chunkSize?: number;
  /**
   * A message larger than this is not held in memory: its bytes are dropped as they are scanned
   * and it is yielded empty with `refused: 'too_large'`. Default 64 MiB (MAX_FILE_BYTES).
   */
  maxMessageBytes?: number;
}

const LF = 10;
const CR = 13;
const SEP = Buffer.from('\nFrom ', 'latin1');
const FROM_ = Buffer.from('From ', 'latin1');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LENGTH_MARK = Buffer.from('ength:', 'latin1');
/** A Content-Length beyond this is not trusted (it would make us buffer that much). */
const MAX_CONTENT_LENGTH = 256 << 20;

/**
 * A `From ` line is a separator only when it looks like one: `From -` (Netscape/Thunderbird),
 * an envelope sender with an `@` (Google Takeout: `From 1844…@xxx`), or a sender followed by an
 * asctime date. This keeps an unescaped body line such as "From Russia with love" (mboxo files
 * written by sloppy tools) inside its message.
 */
const SEPARATOR_LINE = /^From (?:-|\S*@|MAILER-DAEMON\b|\S+ +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b|\S+ +.*\b\d{1,2}:\d{2}\b.*\b\d{4}\b)/;

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};
const ASCTIME = /\b([A-Za-z]{3}) +(\d{1,2}) +(\d{1,2}):(\d{2})(?::(\d{2}))?(?: +([+-]\d{4}|[A-Z]{1,5}))? +(\d{4})(?: +([+-]\d{4}))?/;

/**
 * The date of an mbox separator line (`From sender Tue Mar 04 03:33:20 2003`, optionally with a
 * numeric zone as Google Takeout writes it) as ISO UTC; asctime without a zone is taken as UTC,
 * as mbox writers use it. Undefined when the line has no date.
 */
export function parseEnvelopeDate(line: string): string | undefined {
  const m = ASCTIME.exec(line);
  if (!m) return undefined;
  const month = MONTHS[(m[1] ?? '').toLowerCase()];
  if (month === undefined) return undefined;
  const zone = [m[6], m[8]].find((z) => z !== undefined && /^[+-]\d{4}$/.test(z));
  let ms = Date.UTC(Number(m[7]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5] ?? 0));
  if (zone) {
    const sign = zone.startsWith('-') ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5))) * 60_000;
  }
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

function lineText(buf: Buffer, start: number, end: number): string {
  const e = end > start && buf[end - 1] === CR ? end - 1 : end;
  return buf.toString('latin1', start, e);
}

/** Is the line starting at `start` (ending at `end`, the LF index or buffer end) a separator? */
/** A separator line is never longer than this (a longer `From ` line is body text, and SEPARATOR_LINE's `.*` pairs stay cheap). */
const MAX_SEPARATOR_LINE = 1000;

function isSeparatorAt(buf: Buffer, start: number, end: number): boolean {
  // Buffer.compare throws when the range runs past the end, so check the room first.
  if (start + 5 > buf.length || buf.compare(FROM_, 0, 5, start, start + 5) !== 0) return false;
  if (end - start > MAX_SEPARATOR_LINE) return false;
  return SEPARATOR_LINE.test(lineText(buf, start, end));
}

/** mboxrd/mboxo unescaping: one `>` is removed from every `>+From ` line. */
function unescapeFromLines(msg: Buffer): Buffer {
  const nextQuoted = (from: number): number => {
    const k = msg.indexOf('\n>', from, 'latin1');
    return k === -1 ? -1 : k + 1;
  };
  let lineStart = msg[0] === 0x3e ? 0 : nextQuoted(0);
  let out: Buffer | undefined;
  let o = 0;
  let copied = 0;
  while (lineStart !== -1) {
    let j = lineStart;
    while (msg[j] === 0x3e) j++;
    // A short `>` line at the very end has no room for `From `: Buffer.compare would throw.
    if (j + 5 <= msg.length && msg.compare(FROM_, 0, 5, j, j + 5) === 0) {
      out ??= Buffer.allocUnsafeSlow(msg.length);
      o += msg.copy(out, o, copied, lineStart);
      copied = lineStart + 1;
    }
    lineStart = nextQuoted(j);
  }
  if (!out) return msg;
  o += msg.copy(out, o, copied);
  return out.subarray(0, o);
}

function contentLengthOf(headers: string): number | undefined {
  const m = /^content-length:[ \t]*(\d+)[ \t]*\r?$/im.exec(headers);
  return m ? Number(m[1]) : undefined;
}

/** Index of the first byte after the header block that starts at `from`, or -1. */
function headerEnd(buf: Buffer, from: number, limit: number): number {
  if (buf[from] === LF) return from + 1;
  if (buf[from] === CR && buf[from + 1] === LF) return from + 2;
  let i = buf.indexOf(LF, from);
  while (i !== -1 && i < limit) {
    if (buf[i + 1] === LF) return i + 2;
    if (buf[i + 1] === CR && buf[i + 2] === LF) return i + 3;
    i = buf.indexOf(LF, i + 1);
  }
  return -1;
}

/** Drops the one blank line an mbox writer puts before the next separator. */
function trimSeparatorBlank(buf: Buffer, start: number, end: number): number {
  if (end - start >= 2 && buf[end - 1] === LF && buf[end - 2] === LF) return end - 1;
  if (end - start >= 4 && buf[end - 1] === LF && buf[end - 2] === CR && buf[end - 3] === LF) return end - 2;
  return end;
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== LF && c !== CR && c !== 32 && c !== 9) return false;
  }
  return true;
}

/**
 * Whether the file uses bare CR line ends (classic Mac), decided on the first chunk holding a
 * line end; undefined while none was seen.
 */
function crOnly(data: Buffer): boolean | undefined {
  const cr = data.indexOf(CR);
  const lf = data.indexOf(LF);
  if (lf !== -1 && (cr === -1 || lf < cr || lf === cr + 1)) return false;
  // A CR as the very last byte may be the first half of a CRLF split across chunks.
  if (cr !== -1 && cr < data.length - 1) return true;
  return undefined;
}

function crToLfInPlace(chunk: Buffer): void {
  let i = chunk.indexOf(CR);
  while (i !== -1) {
    chunk[i] = LF;
    i = chunk.indexOf(CR, i + 1);
  }
}

function cursorOffset(from: SourceCursor | undefined): number {
  if (from === undefined) return 0;
  const offset = from['offset'];
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw new ChsError('INVALID_INPUT', 'mbox cursor must be { offset: non-negative integer }');
  }
  return offset;
}

/**
 * An mbox file as a source, streamed in large chunks and never read whole.
 *
 * Messages are split on `From ` separator lines (see SEPARATOR_LINE), or, when a message's
 * headers carry a `Content-Length` that lands exactly on the next separator or the end of the
 * file, on that length. `>From ` lines are unescaped (mboxrd rule, also applied to mboxo files).
 * Files with bare-CR line ends are read as LF; any message containing a bare CR is turned to LF.
 * Each message is a view of the bytes read, not copied again. By default the memory read into
 * is never written over, so a message stays intact after the next is read (a view holds its read
 * buffer, a few MiB, while it is kept). With `items(from, { transient: true })` one buffer is read
 * into again and again: the consumer (the ingest) copies each message before asking for the next.
 * The cursor is `{ offset }`, the byte offset of the next message's separator line.
 */
export function mboxSource(path: string, options: MboxOptions = {}): Source<RawMessage> {
  const file = resolvePath(path);
  const chunkSize = options.chunkSize ?? 1 << 20;
  const maxBytes = options.maxMessageBytes ?? MAX_FILE_BYTES;

  async function* items(from?: SourceCursor, itemsOptions: ItemsOptions = {}): AsyncGenerator<RawMessage> {
    const start = cursorOffset(from);
    const reuse = itemsOptions.transient === true;
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (err) {
      throw new ChsError('SOURCE_UNREADABLE', `cannot read mbox ${file}`, { cause: err });
    }
    let position = start;
    let eof = false;
    let cr: boolean | undefined;

    // The file is read straight into `store`, after the bytes not yet split (`buf`, a view into
    // it). With no room left for a read, the unsplit tail moves: to the start of the same store
    // when items are transient (the consumer has copied the ones before), else into a new store
    // (messages yielded earlier are views of the old one and stay intact). Each byte is copied
    // O(1) times on average, however many reads one huge message spans.
    let store: Buffer = Buffer.allocUnsafeSlow(storeBytes(0));
    let buf: Buffer = store.subarray(0, 0);
    const room = (): void => {
      const end = buf.byteOffset - store.byteOffset + buf.length;
      if (store.length - end >= chunkSize) return;
      const wanted = storeBytes(buf.length);
      if (reuse && store.length >= buf.length + chunkSize && store.length <= 2 * wanted) {
        store.copyWithin(0, buf.byteOffset - store.byteOffset, end);
      } else {
        const grown = Buffer.allocUnsafeSlow(wanted);
        buf.copy(grown, 0);
        store = grown;
      }
      buf = store.subarray(0, buf.length);
    };
    /** A store for `pending` unsplit bytes and reads after them: room for several reads, so a new store is rare. */
    function storeBytes(pending: number): number {
      return Math.max(2 * (pending + chunkSize), 4 * chunkSize);
    }

    const more = async (): Promise<boolean> => {
      if (eof) return false;
      room();
      const at = buf.byteOffset - store.byteOffset + buf.length;
      const { bytesRead } = await handle.read(store, at, chunkSize, position);
      if (bytesRead === 0) {
        eof = true;
        return false;
      }
      position += bytesRead;
      const chunk = store.subarray(at, at + bytesRead);
      buf = store.subarray(at - buf.length, at + bytesRead);
      if (cr === undefined) {
        // Until the line-end style is known, the undecided bytes stay in `buf` unconverted.
        cr = crOnly(buf);
        if (cr) crToLfInPlace(buf);
      } else if (cr) crToLfInPlace(chunk);
      return true;
    };

    let base = start;
    try {
      await more();
      if (base === 0 && buf.length >= 3 && buf.compare(BOM, 0, 3, 0, 3) === 0) {
        buf = buf.subarray(3);
        base = 3;
      }
      while (buf.length > 0 || !eof) {
        if (buf.length === 0 && !(await more())) break;
        // The message starts at buf[0], on a line start.
        const messageOffset = base;
        let lineEnd = buf.indexOf(LF);
        // Past MAX_SEPARATOR_LINE the first line is no separator: no need to wait for its end.
        while (lineEnd === -1 && !eof && buf.length <= MAX_SEPARATOR_LINE) {
          // While the line-end style is undecided a CR can only be the last byte (it may turn to LF).
          const scanned = Math.max(0, buf.length - 1);
          await more();
          lineEnd = buf.indexOf(LF, scanned);
        }
        const firstEnd = lineEnd === -1 ? buf.length : lineEnd;
        let envelopeLine: string | undefined;
        let contentStart = 0;
        if (isSeparatorAt(buf, 0, firstEnd)) {
          envelopeLine = lineText(buf, 0, firstEnd);
          contentStart = lineEnd === -1 ? buf.length : lineEnd + 1;
        }

        // Next separator by scanning: the index of its line start, or buf.length at the end.
        let next = -1;
        let searchFrom = Math.max(contentStart - 1, 0);
        // Once the message is over the cap its scanned bytes are dropped (only the tail that may
        // hold the start of the next separator is kept): memory stays bounded however big it is.
        let tooLarge = false;
        while (next === -1) {
          const p = buf.indexOf(SEP, searchFrom);
          if (p === -1) {
            if (eof) {
              next = buf.length;
              break;
            }
            searchFrom = Math.max(searchFrom, buf.length - SEP.length);
            if (tooLarge || buf.length - contentStart > maxBytes) {
              tooLarge = true;
              buf = buf.subarray(searchFrom);
              base += searchFrom;
              searchFrom = 0;
              contentStart = 0;
            }
            await more();
            continue;
          }
          const le = buf.indexOf(LF, p + 1);
          if (le === -1 && !eof && buf.length - p <= MAX_SEPARATOR_LINE) {
            searchFrom = p;
            await more();
            continue;
          }
          if (isSeparatorAt(buf, p + 1, le === -1 ? buf.length : le)) next = p + 1;
          else searchFrom = p + 1;
        }

        if (tooLarge) {
          yield { raw: Buffer.alloc(0), location: `${file}@${messageOffset}`, cursor: { offset: base + next }, refused: 'too_large' };
          buf = buf.subarray(next);
          base += next;
          continue;
        }

        // A Content-Length that points past the scanned separator wins when it lands exactly on
        // a separator or the end: the scanned one was an unescaped `From ` line in the body.
        let end = next;
        const hEnd = headerEnd(buf, contentStart, next);
        if (hEnd !== -1) {
          if (buf.subarray(contentStart, hEnd).indexOf(LENGTH_MARK) !== -1) {
            const length = contentLengthOf(buf.toString('latin1', contentStart, hEnd));
            if (length !== undefined && length <= Math.min(MAX_CONTENT_LENGTH, maxBytes) && hEnd + length > next) {
              const target = hEnd + length;
              while (buf.length < target + 4096 && !eof) await more();
              let s = target;
              while (s < buf.length && (buf[s] === LF || buf[s] === CR)) s++;
              if (s <= buf.length && target <= buf.length) {
                if (s === buf.length && eof) {
                  end = buf.length;
                  next = buf.length;
                } else {
                  const le = buf.indexOf(LF, s);
                  if (isSeparatorAt(buf, s, le === -1 ? buf.length : le)) {
                    end = s;
                    next = s;
                  }
                }
              }
            }
          }
        }

        const contentEnd = trimSeparatorBlank(buf, contentStart, end);
        if (envelopeLine !== undefined || !isBlank(buf, contentStart, contentEnd)) {
          const raw = normalizeLineEndings(unescapeFromLines(buf.subarray(contentStart, contentEnd)));
          const item: RawMessage = {
            raw,
            lineEndingsChecked: true,
            location: `${file}@${messageOffset}`,
            cursor: { offset: base + next },
          };
          const envelopeDate = envelopeLine === undefined ? undefined : parseEnvelopeDate(envelopeLine);
          if (envelopeDate !== undefined) item.envelopeDate = envelopeDate;
          buf = buf.subarray(next);
          base += next;
          yield item;
        } else {
          buf = buf.subarray(next);
          base += next;
        }
      }
    } finally {
      await handle.close();
    }
  }

  async function total(): Promise<number | undefined> {
    try {
      return await countSeparators(file, chunkSize);
    } catch (err) {
      throw new ChsError('SOURCE_UNREADABLE', `cannot read mbox ${file}`, { cause: err });
    }
  }

  async function size(): Promise<number | undefined> {
    return (await stat(file)).size;
  }

  return { kind: 'mbox', key: `mbox:${file}`, items, total, size };
}

/**
 * Counts separator lines in one pass (Content-Length is not honoured: an estimate). Each chunk is
 * scanned where it lies; only the line that runs across two chunks is joined (copying every
 * chunk behind the carried tail doubled this pass's allocation, 1 GB for a 1 GB file).
 */
async function countSeparators(file: string, chunkSize: number): Promise<number> {
  let count = 0;
  // The unfinished last line scanned so far, with the LF before it (the file's first line gets
  // one), kept while it may still turn out to be a separator line.
  let carry: Buffer = Buffer.from([LF]);
  let first = true;
  let cr: boolean | undefined;
  let sawContent = false;
  // One buffer, read into again and again: this pass runs beside the ingest, whose thread it
  // shares, and a fresh chunk per read would add the file's size again in garbage.
  const space = Buffer.allocUnsafe(chunkSize);
  const handle = await open(file, 'r');
  try {
    for (;;) {
      const { bytesRead } = await handle.read(space, 0, chunkSize, null);
      if (bytesRead === 0) break;
      let chunk = space.subarray(0, bytesRead);
      if (first) {
        first = false;
        if (chunk.length >= 3 && chunk.compare(BOM, 0, 3, 0, 3) === 0) chunk = chunk.subarray(3);
      }
      if (!sawContent && !isBlank(chunk, 0, chunk.length)) sawContent = true;
      if (cr === undefined) {
        // The line-end style is decided on the carried bytes and this chunk together (only until
        // the first line end: the carry is then the prepended LF and the bytes after it).
        const both = Buffer.concat([carry, chunk]);
        cr = crOnly(both.subarray(1));
        if (cr) crToLfInPlace(both);
        carry = both.subarray(0, carry.length);
        chunk = both.subarray(carry.length);
      } else if (cr) {
        crToLfInPlace(chunk);
      }
      // The carried line, completed by this chunk's first line end.
      const le = chunk.indexOf(LF);
      if (le === -1) {
        const longer = Buffer.concat([carry, chunk]);
        carry = longer.length > MAX_SEPARATOR_LINE + 1 ? Buffer.alloc(0) : longer;
        continue;
      }
      if (carry.length > 0) {
        const line = Buffer.concat([carry, chunk.subarray(0, le)]);
        if (isSeparatorAt(line, 1, line.length)) count++;
      }
      // Every separator line after that line end, within this chunk.
      let lastLf = chunk.lastIndexOf(LF);
      let p = chunk.indexOf(SEP, le);
      while (p !== -1) {
        const end = chunk.indexOf(LF, p + 1);
        if (end === -1) {
          lastLf = p;
          break;
        }
        if (isSeparatorAt(chunk, p + 1, end)) count++;
        p = chunk.indexOf(SEP, p + 1);
      }
      // The unfinished last line is carried into the next chunk, unless it is already too long to be
      // a separator (carrying a huge line for every chunk would be quadratic).
      carry = chunk.length - lastLf > MAX_SEPARATOR_LINE + 1 ? Buffer.alloc(0) : Buffer.from(chunk.subarray(lastLf));
    }
  } finally {
    await handle.close();
  }
  if (carry.length > 1 && isSeparatorAt(carry, 1, carry.length)) count++;
  return count === 0 && sawContent ? 1 : count;
}
