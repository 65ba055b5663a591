import type { RawMessage, Source } from '../interfaces.js';
import { fileSource } from './files.js';

/**
 * A folder of message files as a source: every regular file below `dir`, whatever its name or
 * extension (`.eml`, none, a trailing `.`, maildir-style `:2,S`), dotfiles and dot-folders
 * skipped, in byte order of the relative path. Cursor: `{ after: '<relative path>' }`.
 */
export function emlDirSource(dir: string): Source<RawMessage> {
  return fileSource('eml', dir, {
    enterDir: (_rel, name) => !name.startsWith('.'),
    acceptFile: (_rel, name) => !name.startsWith('.'),
  });
}
