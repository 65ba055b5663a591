// `npm run test:package`: the packaging test alone (packaging/package.test.ts), after a build.
// Not part of `npm test`: it installs from the registry and builds better-sqlite3 (minutes).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['packaging/**/*.test.ts'],
    globalSetup: [fileURLToPath(new URL('../vitest.global-setup.ts', import.meta.url))],
    testTimeout: 180_000,
    hookTimeout: 15 * 60_000,
    reporters: ['default'],
  },
});
