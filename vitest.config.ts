import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Whole-process tests spawn the built CLI; they share the machine's two cores with unit tests.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
