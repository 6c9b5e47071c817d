// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Source still over the size limits below, being split up: take a path off this list once it
 * fits, and the limits hold for it from then on. Empty now: every file under src/ and cli/ fits;
 * the list stays so a file that cannot be split at once can be named here, and taken off later.
 * @type {string[]}
 */
const NOT_YET_SPLIT = [];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'golden/', 'traces/', 'src/grpc/gen/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'max-len': ['error', { code: 120, ignoreUrls: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Small pieces (docs/design.md §10): no source file over 600 lines, no function over 120.
    files: ['src/**/*.ts', 'cli/**/*.ts'],
    ignores: NOT_YET_SPLIT,
    rules: {
      'max-lines': ['error', { max: 600 }],
      'max-lines-per-function': ['error', { max: 120 }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
