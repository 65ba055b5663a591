import type { RawMessage, Source } from '../interfaces.js';
import { fileSource, type FileSourceOptions } from './files.js';

/**
 * A Maildir as a source: the messages in `cur/` and `new/` of the folder and of every nested
 * folder (Maildir++ `.Sub/cur`, or the `Sub/cur` layout some servers use); `tmp/` (deliveries in
 * progress) and dotfiles are skipped. Cursor: `{ after: '<relative path>' }`, in byte order.
 *
 * A message that moves from `new/` to `cur/` (or changes flags) between runs gets a new path and
 * is read again; the store's Message-ID idempotency makes that harmless. A symlink whose target
 * is outside the folder and a file over the size cap are not read: each is counted as skipped
 * (`outside_folder`, `too_large`).
 */
export function maildirSource(dir: string, options: FileSourceOptions = {}): Source<RawMessage> {
  return fileSource(
    'maildir',
    dir,
    {
      enterDir: (_rel, name) => name !== 'tmp' && name !== '.' && name !== '..',
      acceptFile: (rel, name) => {
        if (name.startsWith('.')) return false;
        const parts = rel.split('/');
        const parent = parts[parts.length - 2];
        return parent === 'cur' || parent === 'new';
      },
    },
    options,
  );
}
