/**
 * Where the shared real-world mail corpus is: `../shared/corpus` beside the repository (as on
 * every developer machine and in CI), or CHS_CORPUS_DIR. In CI its absence is an error, never a
 * silent skip.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');

const CORPUS_DIR = process.env.CHS_CORPUS_DIR ?? resolve(repoRoot, '../shared/corpus');

/** The corpus folder; throws in CI when it is missing, returns null elsewhere. */
export function corpusDir(): string | null {
  if (existsSync(CORPUS_DIR)) return CORPUS_DIR;
  if (process.env.CI === 'true') throw new Error(`the shared corpus is required in CI but ${CORPUS_DIR} does not exist`);
  console.warn(`[chs tests] ${CORPUS_DIR} not found: corpus tests are left out locally (they run in CI).`);
  return null;
}

/** The corpus's own helper files (licences, READMEs, expected-result lists): not messages. */
export const CORPUS_HELPER_FILE = /(?:^|\/)(?:README(?:\.\w+)?|UPSTREAM-[^/]*|COPYING|[A-Z-]*LICENSE[^/]*)$|\.list$|-summary\.txt$|_reply_text$/;

/** The corpus files that are mboxes (read with mboxSource, not as single messages). */
export const CORPUS_MBOXES = [
  'mimekit/mbox/content-length.mbox.txt',
  'mimekit/mbox/issue1189.mbox.txt',
  'mimekit/mbox/simple.mbox.txt',
  'mimekit/mbox/unmunged.mbox.txt',
  'james-mime4j/mbox/mbox.rlug',
] as const;
