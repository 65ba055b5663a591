import type { RawMessage, Source } from '../interfaces.js';
import { fileSource, type FileSourceOptions } from './files.js';

/**
 * A folder of message files as a source: every regular file below `dir`, whatever its name or
 * extension (`.eml`, none, a trailing `.`, maildir-style `:2,S`), dotfiles and dot-folders
 * skipped, in byte order of the relative path. Cursor: `{ after: '<relative path>' }`.
 * A symlink whose target is outside the folder and a file over the size cap are not read: each
 * is counted as skipped (`outside_folder`, `too_large`).
 */
export function emlDirSource(dir: string, options: FileSourceOptions = {}): Source<RawMessage> {
  return fileSource(
    'eml',
    dir,
    {
      enterDir: (_rel, name) => !name.startsWith('.'),
      acceptFile: (_rel, name) => !name.startsWith('.'),
    },
    options,
  );
}
