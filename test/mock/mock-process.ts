/**
 * Runs `a2a-replay mock ARGS` as a child process the way users do, keeping all of its output, for
 * whole-process tests of the mock.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { ROOT, builtCli, childEnv } from '../helpers/cli.js';

export interface MockProcess {
  url: string;
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `a2a-replay mock ARGS`; resolves on its `listening on` line. */
export function startMockProcess(args: string[]): Promise<MockProcess> {
  const child = spawn(process.execPath, [builtCli(), 'mock', ...args], { cwd: ROOT, env: childEnv(), stdio: 'pipe' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      const first = !out.includes('\n');
      out += d;
      if (!first || !out.includes('\n')) return;
      const m = /^listening on (http:\/\/\S+)$/.exec(out.split('\n')[0] ?? '');
      if (m?.[1]) resolve({ url: m[1], child, stdout: () => out, stderr: () => err, exited });
      else reject(new Error(`unexpected first line: ${out}`));
    });
    child.on('exit', (code) => reject(new Error(`mock exited with ${code}: ${err}`)));
  });
}

/** Sends SIGTERM and resolves with the exit code once the mock printed its summary and exited. */
export async function stopMock(mock: MockProcess): Promise<number | null> {
  if (mock.child.exitCode === null && mock.child.signalCode === null) mock.child.kill('SIGTERM');
  return mock.exited;
}
