export { mboxSource, parseEnvelopeDate, type MboxOptions } from './mbox.js';
export { emlDirSource } from './eml-dir.js';
export { maildirSource } from './maildir.js';
export { MAX_FILE_BYTES, type FileSourceOptions } from './files.js';
export { normalizeLineEndings } from './line-endings.js';
