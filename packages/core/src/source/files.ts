import type { Dirent } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import { join, resolve as resolvePath, sep } from 'node:path';
import { ChsError } from '../errors.js';
import type { RawMessage, RefusalReason, Source, SourceCursor } from '../interfaces.js';
import { normalizeLineEndings } from './line-endings.js';

/** Default cap on one message file (the same 64 MiB as ingest's MAX_MESSAGE_BYTES). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Options of the one-file-per-message sources. */
export interface FileSourceOptions {
  /** Files larger than this are not read: counted as skipped `too_large`. Default {@link MAX_FILE_BYTES}. */
  maxMessageBytes?: number;
}

/**
 * Shared by the one-file-per-message sources (.eml folder, Maildir): a sorted list of relative
 * paths, each file read when its turn comes, and the cursor `{ after: '<relative path>' }`.
 */
export interface FileWalk {
  /** Whether to descend into a directory (given its path relative to the root, `/`-separated). */
  enterDir(rel: string, name: string): boolean;
  /** Whether a regular file is a message. */
  acceptFile(rel: string, name: string): boolean;
}

/** Byte-wise comparison, so the order never depends on the machine's locale. */
function compareRelPaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function isFileEntry(dir: string, entry: Dirent): Promise<boolean> {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  // A symlinked file is listed (read only if it stays inside the folder); a symlinked directory
  // is not entered (no loops, no way out).
  try {
    return (await stat(join(dir, entry.name))).isFile();
  } catch {
    return false;
  }
}

async function listFiles(root: string, walk: FileWalk): Promise<string[]> {
  const out: string[] = [];
  const visit = async (abs: string, rel: string): Promise<void> => {
    const entries = await readdir(abs, { withFileTypes: true });
    for (const entry of entries) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (walk.enterDir(childRel, entry.name)) await visit(join(abs, entry.name), childRel);
      } else if (walk.acceptFile(childRel, entry.name) && (await isFileEntry(abs, entry))) {
        out.push(childRel);
      }
    }
  };
  try {
    const s = await stat(root);
    if (!s.isDirectory()) throw new Error('not a directory');
    await visit(root, '');
  } catch (err) {
    throw new ChsError('SOURCE_UNREADABLE', `cannot read folder ${root}`, { cause: err });
  }
  return out.sort(compareRelPaths);
}

function cursorAfter(from: SourceCursor | undefined): string | undefined {
  if (from === undefined) return undefined;
  const after = from['after'];
  if (typeof after !== 'string') throw new ChsError('INVALID_INPUT', 'file cursor must be { after: string }');
  return after;
}

/** What reading one listed file gives: its bytes, or why it was not read. */
type FileRead = { raw: Buffer; mtime: Date } | { refused: RefusalReason } | { gone: true };

/**
 * Reads one listed file, refusing what a folder of messages must not make us read: a path whose
 * real location (symlinks resolved) is outside the folder, and a file over the size cap (never
 * read whole: at most `max` bytes are ever read, even if it grows meanwhile).
 */
async function readListed(realRoot: string, location: string, max: number): Promise<FileRead> {
  let real: string;
  try {
    real = await realpath(location);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { gone: true };
    throw err;
  }
  if (!real.startsWith(realRoot + sep)) return { refused: 'outside_folder' };
  let fh;
  try {
    fh = await open(real, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { gone: true };
    throw err;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { gone: true };
    if (st.size > max) return { refused: 'too_large' };
    const raw = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const { bytesRead } = await fh.read(raw, got, st.size - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { raw: raw.subarray(0, got), mtime: st.mtime };
  } finally {
    await fh.close();
  }
}

export function fileSource(kind: string, dir: string, walk: FileWalk, options: FileSourceOptions = {}): Source<RawMessage> {
  const root = resolvePath(dir);
  const max = options.maxMessageBytes ?? MAX_FILE_BYTES;

  async function* items(from?: SourceCursor): AsyncGenerator<RawMessage> {
    const after = cursorAfter(from);
    const files = await listFiles(root, walk);
    const realRoot = await realpath(root);
    for (const rel of files) {
      if (after !== undefined && compareRelPaths(rel, after) <= 0) continue;
      const location = join(root, rel);
      let read: FileRead;
      try {
        read = await readListed(realRoot, location, max);
      } catch (err) {
        throw new ChsError('SOURCE_UNREADABLE', `cannot read ${location}`, { cause: err });
      }
      // A file that vanished between listing and reading (a Maildir being delivered to) is
      // simply gone.
      if ('gone' in read) continue;
      if ('refused' in read) {
        yield { raw: Buffer.alloc(0), location, cursor: { after: rel }, refused: read.refused };
        continue;
      }
      // The date of last resort, used only when the message has no Date and no Received header:
      // when the file was delivered (a Maildir name starts with its delivery time), else its mtime.
      const delivered = /^(\d{9,10})\./.exec(rel.slice(rel.lastIndexOf('/') + 1));
      const envelope = delivered ? new Date(Number(delivered[1]) * 1000) : read.mtime;
      yield { raw: normalizeLineEndings(read.raw), lineEndingsChecked: true, location, cursor: { after: rel }, envelopeDate: envelope.toISOString() };
    }
  }

  async function total(): Promise<number> {
    return (await listFiles(root, walk)).length;
  }

  return { kind, key: `${kind}:${root}`, items, total };
}
