/** The runner's version, from its package.json (`chs --version`, `/api/health`, metrics). */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const v = typeof pkg === 'object' && pkg !== null ? (pkg as Record<string, unknown>).version : undefined;
  return typeof v === 'string' ? v : '0.0.0';
}

export const RUNNER_VERSION: string = readVersion();
