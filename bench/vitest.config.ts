import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The benchmark harness's own test (bench-json.test.ts: every headline figure in the JSON
 * object, at the tiny size). It runs every benchmark, which takes minutes, so it is no part of
 * `npm test`: scripts/nightly runs it, or `npx vitest run --config bench/vitest.config.ts`.
 */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['bench/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 240_000,
    pool: 'forks',
  },
});
