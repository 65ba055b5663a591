import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run the TypeScript sources directly; child processes (the `chs` CLI) run the build.
    alias: [
      { find: /^@chs\/core\/testing$/, replacement: here('./packages/core/src/testing.ts') },
      { find: /^@chs\/core$/, replacement: here('./packages/core/src/index.ts') },
      { find: /^@chs\/core\/free-mail$/, replacement: here('./packages/core/src/util/free-email-domains.generated.ts') },
      { find: /^@chs\/fixtures$/, replacement: here('./fixtures/src/index.ts') },
    ],
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'runner/src/**/*.test.ts',
      'fixtures/src/**/*.test.ts',
      'bench/src/**/*.test.ts',
      // The dashboard: component tests (each file names its DOM environment, happy-dom) and the
      // end-to-end suite (a real `chs demo` and Chromium).
      'dashboard/src/**/*.test.{ts,tsx}',
      'dashboard/e2e/**/*.test.ts',
    ],
    globalSetup: [here('./vitest.global-setup.ts')],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ['default'],
  },
});
