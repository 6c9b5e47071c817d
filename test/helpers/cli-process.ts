/**
 * The CLI's server commands (`peer`, `record`, `mock`) as child processes, the way users run
 * them, for the whole-process tests: the one way to start one (the built CLI, the test
 * environment of {@link childEnv}), wait for its `listening on URL` line, keep all it writes, and
 * stop it. A one-shot command is {@link runCli}'s.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { ROOT, builtCli, childEnv } from './cli.js';

export interface CliProcess {
  /** The URL of its `listening on` line. */
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** All it wrote to standard output so far, the listening line included. */
  stdout: () => string;
  /** All it wrote to standard error so far. */
  stderr: () => string;
  /** Its exit code; null when a signal ended it. */
  exited: Promise<number | null>;
  /** Sends `signal` (default SIGTERM) unless it has exited; resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/**
 * Starts `a2a-replay ARGS` (a server command) with `env` added to the test environment; resolves
 * on its `listening on` line, and rejects when the first line is another, or it exits or cannot
 * be spawned first (with what it wrote to standard error).
 */
export function startCliProcess(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { cwd?: string } = {},
): Promise<CliProcess> {
  const child = spawn(process.execPath, [builtCli(), ...args], {
    cwd: options.cwd ?? ROOT,
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const stop = (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      const waiting = !out.includes('\n');
      out += d;
      if (!waiting || !out.includes('\n')) return;
      const first = out.slice(0, out.indexOf('\n'));
      const m = /^listening on (https?:\/\/\S+)$/.exec(first);
      if (m?.[1]) resolve({ url: m[1], child, stdout: () => out, stderr: () => err, exited, stop });
      else reject(new Error(`${args[0] ?? 'a2a-replay'}: unexpected first line: ${first}\n${err}`));
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${args[0] ?? 'a2a-replay'} exited with ${code}: ${err}`)));
  });
}

/** Starts `a2a-replay record ARGS`; resolves on its `listening on` line. */
export function startRecordProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliProcess> {
  return startCliProcess(['record', ...args], env);
}

/** Starts `a2a-replay mock ARGS`; resolves on its `listening on` line. */
export function startMockProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliProcess> {
  return startCliProcess(['mock', ...args], env);
}

/** Sends `signal` (default SIGTERM) unless it has exited, and resolves with the exit code. */
export function stopProcess(proc: CliProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return proc.stop(signal);
}
