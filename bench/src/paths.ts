/** Where the bench keeps generated inputs (git-ignored) and its results (committed). */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The `bench/` folder, whether running from `src/` (vitest) or `dist/`. */
export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
export const REPO_DIR = join(BENCH_DIR, '..');
/** Generated mailboxes and databases; `bench/tmp/` is in .gitignore. */
export const TMP_DIR = join(BENCH_DIR, 'tmp');
export const RESULTS_DIR = join(BENCH_DIR, 'results');
/** Compiled child-process entry: measurements run there so their peaks and heaps never mix. */
export const CHILD_FILE = join(BENCH_DIR, 'dist', 'child.js');
export const CHS_BIN = join(REPO_DIR, 'runner', 'bin', 'chs.js');
