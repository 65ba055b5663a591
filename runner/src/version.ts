/** The runner's version, from its package.json (`chs --version`, `/api/health`, metrics). */
import { existsSync, readFileSync } from 'node:fs';

/** The runner's package.json: one folder up from `dist/`, two from the command line's bundle (`dist/bundle/`). */
function readVersion(): string {
  for (const up of ['../package.json', '../../package.json']) {
    const file = new URL(up, import.meta.url);
    if (!existsSync(file)) continue;
    const pkg: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof pkg !== 'object' || pkg === null || (pkg as Record<string, unknown>).name !== '@chs/runner') continue;
    const v = (pkg as Record<string, unknown>).version;
    return typeof v === 'string' ? v : '0.0.0';
  }
  return '0.0.0';
}

export const RUNNER_VERSION: string = readVersion();
