/**
 * The test suite's own layout (vitest.config.ts): a `unit` test that reaches for the built CLI or
 * for dist/ fails saying it belongs in `e2e`; the e2e global setup builds dist/ only when an input
 * is newer than its output.
 */
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtCli } from './cli.js';
import { staleReason } from './global-setup.js';

describe('the unit project', () => {
  it('runs with no built CLI: starting one fails naming this file and where it belongs', () => {
    expect(process.env.A2A_REPLAY_TEST_PROJECT).toBe('unit');
    expect(() => builtCli()).toThrow(
      'test/helpers/test-projects.test.ts runs the built CLI (dist/cli/main.js), which the unit project does not ' +
        'build: move it under test/e2e/ or add it to E2E_FILES in vitest.config.ts',
    );
  });

  it('refuses to import dist/, saying the test belongs in the e2e project', async () => {
    const path = '../../dist/src/version.js';
    await expect(import(/* @vite-ignore */ path)).rejects.toThrow(
      'dist/src/version.js is in dist/, which the unit project does not build: ' +
        'a test that imports dist/ belongs in the e2e project',
    );
  });
});

describe('staleReason', () => {
  let root = '';
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A package with src/a.ts, cli/main.ts and their outputs, every file at time `at` (seconds). */
  function tree(at: number): void {
    root = mkdtempSync(join(tmpdir(), 'stale-'));
    for (const dir of ['src', 'cli', 'dist/src', 'dist/cli']) mkdirSync(join(root, dir), { recursive: true });
    for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'src/a.ts', 'cli/main.ts']) {
      writeFileSync(join(root, file), '');
    }
    for (const file of ['dist/src/a.js', 'dist/cli/main.js']) writeFileSync(join(root, file), '');
    for (const file of [
      'tsconfig.json',
      'tsconfig.build.json',
      'package.json',
      'src/a.ts',
      'cli/main.ts',
      'dist/src/a.js',
      'dist/cli/main.js',
    ]) {
      utimesSync(join(root, file), at, at);
    }
  }

  it('skips the build when every output is as new as its module and the configs', () => {
    tree(1000);
    expect(staleReason(root)).toBeNull();
  });

  it('builds when an output is missing, a module changed after its build, or a config did', () => {
    tree(1000);
    writeFileSync(join(root, 'src/b.ts'), '');
    utimesSync(join(root, 'src/b.ts'), 1000, 1000);
    expect(staleReason(root)).toBe('dist/src/b.js is missing');
    rmSync(join(root, 'src/b.ts'));

    utimesSync(join(root, 'cli/main.ts'), 1001, 1001);
    expect(staleReason(root)).toBe('cli/main.ts is newer than its build');
    utimesSync(join(root, 'cli/main.ts'), 1000, 1000);

    utimesSync(join(root, 'tsconfig.build.json'), 1001, 1001);
    expect(staleReason(root)).toMatch(/tsconfig\.build\.json or package\.json is newer than the build/);
  });
});
