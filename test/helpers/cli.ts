/**
 * Runs the built CLI as a separate process, the way users and CI do.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/**
 * The built CLI, dist/cli/main.js, which the e2e project's global setup builds. The unit project
 * builds nothing, so there this throws: a test that runs the CLI belongs in the e2e project
 * (test/e2e/, or E2E_FILES in vitest.config.ts), and would otherwise run whatever build is lying
 * around.
 */
export function builtCli(): string {
  if (process.env.A2A_REPLAY_TEST_PROJECT === 'unit') {
    const file = expect.getState().testPath ?? 'this test file';
    throw new Error(
      `${file} runs the built CLI (dist/cli/main.js), which the unit project does not build: ` +
        'move it under test/e2e/ or add it to E2E_FILES in vitest.config.ts',
    );
  }
  return CLI;
}

/**
 * The environment of a child CLI run: this process's, without the variables that change the CLI's
 * behaviour (CI, OTEL_*, A2A_REPLAY_*), so a test means the same on a laptop and in CI; a test
 * that wants one passes it in `extra`.
 */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name === 'CI' || name.startsWith('OTEL_') || name.startsWith('A2A_REPLAY_')) continue;
    env[name] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI with `args`; `nodeOptions` go to node before the script (e.g. `--stack-size`). */
export function runCli(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; nodeOptions?: string[] } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeOptions ?? []), builtCli(), ...args], {
      cwd: options.cwd ?? ROOT,
      env: childEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
