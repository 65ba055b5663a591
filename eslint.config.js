// ESLint (flat config): typescript-eslint's type-checked rules on every TypeScript file, the
// recommended JavaScript rules on the few .js/.mjs files. `npm run lint`; `npm test` runs it.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Build output, and the types openapi-typescript generates (runner/src/http/openapi-types.ts).
    ignores: ['**/dist/', '**/node_modules/', 'bench/tmp/', 'fixtures/generated/', 'runner/src/http/openapi-types.ts', 'data/'],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      // One program over every source and test file (tsconfig.test.json), as the test type-check sees them.
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An async function with no await is how this code implements a Promise-returning contract
      // (Fastify plugins and hooks, fakes of sleep/getMigrations/consume): a throw becomes a rejection.
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed names are the deliberate unused ones (rest-omitted fields, unused parameters).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The dashboard is a browser app with its own compiler settings (JSX, DOM, bundler resolution).
    files: ['dashboard/**/*.ts', 'dashboard/**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: './dashboard/tsconfig.json', tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser },
    },
    rules: {
      // An async event handler (onSubmit, onClick) is how a form sends its request; Preact ignores
      // the promise; the requests inside go through the screens' request helpers, which show errors.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      // vitest's asymmetric matchers (expect.any, expect.stringMatching, expect.objectContaining) are
      // typed `any`: putting one into an expected object is the point of them, not an unsafe assignment.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
);
