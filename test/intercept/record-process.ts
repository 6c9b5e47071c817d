/**
 * Runs `a2a-replay record` (or any CLI server command: `peer`) as a child process the way users
 * do, for whole-process tests.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { ROOT, builtCli, childEnv } from '../helpers/cli.js';

export interface RecordProcess {
  url: string;
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `a2a-replay ARGS` (a server command); resolves on its `listening on` line. */
export function startCliProcess(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { cwd?: string } = {},
): Promise<RecordProcess> {
  const child = spawn(process.execPath, [builtCli(), ...args], {
    cwd: options.cwd ?? ROOT,
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!out.includes('\n')) return;
      const m = /^listening on (https?:\/\/[^\s]+)$/.exec(out.split('\n')[0] ?? '');
      if (m?.[1]) resolve({ url: m[1], child, stderr: () => err, exited });
      else reject(new Error(`unexpected first line: ${out}`));
    });
    child.on('exit', (code) => reject(new Error(`${args[0] ?? 'a2a-replay'} exited with ${code}: ${err}`)));
  });
}

/** Starts `a2a-replay record ARGS`; resolves on its `listening on` line. */
export function startRecordProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RecordProcess> {
  return startCliProcess(['record', ...args], env);
}

/** Sends SIGTERM (unless it already exited) and resolves with the exit code. */
export async function stopProcess(proc: RecordProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill(signal);
  return proc.exited;
}
