import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { ChsError } from '../errors.js';
import type { RawMessage, Source, SourceCursor } from '../interfaces.js';
import { normalizeLineEndings } from './line-endings.js';

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
export function compareRelPaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function isFileEntry(dir: string, entry: Dirent): Promise<boolean> {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  // A symlinked file is followed; a symlinked directory is not (no loops).
  try {
    return (await stat(join(dir, entry.name))).isFile();
  } catch {
    return false;
  }
}

export async function listFiles(root: string, walk: FileWalk): Promise<string[]> {
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

export function fileSource(kind: string, dir: string, walk: FileWalk): Source<RawMessage> {
  const root = resolvePath(dir);

  async function* items(from?: SourceCursor): AsyncGenerator<RawMessage> {
    const after = cursorAfter(from);
    const files = await listFiles(root, walk);
    for (const rel of files) {
      if (after !== undefined && compareRelPaths(rel, after) <= 0) continue;
      const location = join(root, rel);
      let raw: Buffer;
      let mtime: Date;
      try {
        raw = await readFile(location);
        mtime = (await stat(location)).mtime;
      } catch (err) {
        // A file that vanished between listing and reading (a Maildir being delivered to) is
        // simply gone; anything else means the folder cannot be read.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw new ChsError('SOURCE_UNREADABLE', `cannot read ${location}`, { cause: err });
      }
      // The date of last resort, used only when the message has no Date and no Received header:
      // when the file was delivered (a Maildir name starts with its delivery time), else its mtime.
      const delivered = /^(\d{9,10})\./.exec(rel.slice(rel.lastIndexOf('/') + 1));
      const envelope = delivered ? new Date(Number(delivered[1]) * 1000) : mtime;
      yield { raw: normalizeLineEndings(raw), location, cursor: { after: rel }, envelopeDate: envelope.toISOString() };
    }
  }

  async function total(): Promise<number> {
    return (await listFiles(root, walk)).length;
  }

  return { kind, key: `${kind}:${root}`, items, total };
}
