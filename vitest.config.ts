import { fileURLToPath } from 'node:url';
import { type Plugin, defineConfig } from 'vitest/config';

/**
 * Two projects. `unit` runs on the sources as they are, with no build: a test file goes there
 * unless it is listed below. `e2e` builds dist/ once (its global setup, skipped when dist/ is
 * newer than every source) and holds every test that runs the built CLI or imports dist/: all of
 * test/e2e/, and the files named in E2E_FILES. A test in `unit` that reaches for the CLI or for
 * dist/ fails saying so (test/helpers/cli.ts, and the plugin below), instead of running a stale
 * build. `npm test` runs both; `npm run test:unit` runs `unit` alone.
 */
const E2E_DIRS = ['test/e2e/**/*.test.ts'];
/** Files outside test/e2e/ that run the built CLI beside their in-process tests. */
const E2E_FILES = [
  'test/architecture/entry-closure.test.ts',
  'test/docs/tour.test.ts',
  'test/printable.test.ts',
  'test/receipts/verify-jobs.test.ts',
];
const E2E = [...E2E_DIRS, ...E2E_FILES];
/**
 * Unit files that must have a module cache of their own: rule-coverage imports the observer's test
 * files to run them again and wraps PauseObserver's methods; in a shared cache those files are
 * already loaded (their tests would not run again) and the wrap would reach other files.
 * span-id-derivation mocks tracing/span-events, which in a shared cache is already loaded unmocked.
 */
const ISOLATED = ['test/observe/rule-coverage.test.ts', 'test/observe/span-id-derivation.test.ts'];

const DIST = fileURLToPath(new URL('./dist/', import.meta.url));

/** Refuses, in `unit`, any import of dist/: that test runs the build and belongs in `e2e`. */
function noDist(): Plugin {
  return {
    name: 'a2a-replay:unit-no-dist',
    enforce: 'pre',
    load(id) {
      if (!id.startsWith(DIST)) return null;
      throw new Error(
        `${id} is in dist/, which the unit project does not build: a test that imports dist/ ` +
          'belongs in the e2e project (test/e2e/, or E2E_FILES in vitest.config.ts)',
      );
    },
  };
}

export default defineConfig({
  test: {
    // Whole-process tests spawn the built CLI; they share the machine's two cores with unit tests.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default on two cores is one worker, which leaves a core idle while a file waits on
    // the processes and sockets it drives.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        plugins: [noDist()],
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          // Unit files share their workers' module cache: src/ is loaded once per worker, not once
          // per file (the import of src/ cost more than most unit files' tests). Unit tests keep no
          // process-wide state (no module mocks, stubbed globals or environment), so they do not
          // see each other.
          isolate: false,
          exclude: [...E2E, ...ISOLATED],
          env: { A2A_REPLAY_TEST_PROJECT: 'unit' },
        },
      },
      {
        extends: true,
        plugins: [noDist()],
        test: {
          name: 'unit-isolated',
          include: ISOLATED,
          isolate: true,
          env: { A2A_REPLAY_TEST_PROJECT: 'unit' },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          // As in `unit`, a worker loads src/ once, not once per file (in a measured run, 24 s of
          // the project's CPU): no e2e file mocks a module or changes the environment; their
          // child processes get theirs from test/helpers/cli.ts.
          isolate: false,
          // Two workers each drive CLI processes: on a shared two-core machine under heavy load a
          // whole-process test that takes 20 s alone can pass 60 s, so e2e tests get twice that.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          globalSetup: ['test/helpers/global-setup.ts'],
          env: { A2A_REPLAY_TEST_PROJECT: 'e2e' },
        },
      },
    ],
  },
});
