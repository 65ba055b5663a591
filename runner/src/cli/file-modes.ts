/**
 * Files that hold secrets or customer data (the SQLite database and its -wal/-shm, the generated
 * secret key, the demo key) are created 0600 in 0700 folders. One created by an earlier version,
 * or copied in with a wider mode, is left as it is but warned about on start.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { isPostgresUrl, SECRET_KEY_FILE } from '@chs/core';
import type { RunnerConfig } from '../config.js';

/** The demo's API key, written by `chs demo` into the data folder. */
const DEMO_KEY_FILE = 'demo-key.txt';

/** A warning when `path` exists and other users may read or write it; undefined otherwise. */
export function looseModeWarning(path: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  return `${path} can be read or written by other users (mode ${mode.toString(8).padStart(4, '0')}); run \`chmod 600 ${path}\``;
}

/** The secret-bearing files of a configuration (only those that exist are checked). */
function secretFiles(config: Pick<RunnerConfig, 'databaseUrl' | 'dataDir'>): string[] {
  const files: string[] = [];
  if (!isPostgresUrl(config.databaseUrl) && config.databaseUrl !== ':memory:') {
    const db = config.databaseUrl.replace(/^sqlite:(\/\/)?/i, '');
    files.push(db, `${db}-wal`, `${db}-shm`);
  }
  files.push(join(config.dataDir, SECRET_KEY_FILE), join(config.dataDir, DEMO_KEY_FILE));
  return files;
}

/** One warning per secret-bearing file that is wider than 0600. */
export function looseSecretFiles(config: Pick<RunnerConfig, 'databaseUrl' | 'dataDir'>): string[] {
  return secretFiles(config).flatMap((f) => looseModeWarning(f) ?? []);
}
