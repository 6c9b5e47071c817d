/**
 * @module replay/peer-process
 * `--peer-cmd "CMD"`: runs the user's peer for a replay. The command runs in a shell, in its own
 * process group, with `PORT` set to a free loopback port; it is ready when
 * `GET http://127.0.0.1:PORT/.well-known/agent-card.json` answers 200. Not ready within the
 * deadline, or exited before → a clear error quoting the end of its stderr. Stopping sends SIGTERM
 * to the whole group (SIGKILL after a grace period); {@link stopAllPeerProcesses} does it for every
 * running peer, for Ctrl-C handlers, and an `exit` hook kills what is left, so no peer outlives us.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { A2aReplayError } from '../errors.js';
import { AGENT_CARD_PATH } from '../protocol/types.js';
import { redactUrl } from '../recording/redaction.js';

/** Default time a peer command gets to answer its agent card. */
export const DEFAULT_READY_MS = 15_000;
const STDERR_KEEP = 4000;
const POLL_MS = 50;
const KILL_GRACE_MS = 3000;

export interface PeerProcessOptions {
  readyTimeoutMs?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface PeerProcess {
  url: string;
  /** The last few KB the peer wrote to stderr. */
  stderr(): string;
  /** PEER_CRASHED once the process exited without being asked to. */
  failure(): A2aReplayError | undefined;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Stops every peer process still running (for SIGINT / SIGTERM handlers). */
export async function stopAllPeerProcesses(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child)));
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      running.delete(child);
      return resolve();
    }
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      running.delete(child);
      resolve();
    });
    killGroup(child, 'SIGTERM');
  });
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function cardAnswers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(`${url}${AGENT_CARD_PATH}`, { timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

function quote(stderr: string): string {
  const text = stderr.trim();
  return text === '' ? ' (it wrote nothing to stderr)' : `; its stderr:\n${text}`;
}

/** Starts `command` as the live peer and waits until it is ready. */
export async function startPeerProcess(command: string, options: PeerProcessOptions = {}): Promise<PeerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(command, {
    shell: true,
    detached: true,
    cwd: options.cwd,
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const c of running) killGroup(c, 'SIGKILL');
    });
  }
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-STDERR_KEEP);
  });
  let stopping = false;
  let exited: string | undefined;
  let spawnError: Error | undefined;
  child.on('error', (error) => (spawnError = error));
  child.on('exit', (code, signal) => {
    running.delete(child);
    exited = signal ? `was killed by ${signal}` : `exited with code ${code ?? '?'}`;
  });
  /** What ended the command (`exited with code 7`, `could not start (...)`), once something did. */
  const ending = (): string | undefined => (spawnError ? `could not start (${spawnError.message})` : exited);
  const failure = (): A2aReplayError | undefined => {
    if (stopping) return undefined;
    const what = ending();
    if (what === undefined) return undefined;
    return new A2aReplayError(
      'PEER_CRASHED',
      `the peer command "${command}" ${what}${spawnError ? '' : quote(stderr)}`,
    );
  };
  const stop = async (): Promise<void> => {
    stopping = true;
    await stopChild(child);
  };

  const deadlineMs = options.readyTimeoutMs ?? DEFAULT_READY_MS;
  let waited = 0;
  for (;;) {
    const early = ending();
    if (early !== undefined) {
      await stop();
      throw new A2aReplayError(
        'PEER_CRASHED',
        `the peer command "${command}" ${early} before its agent card answered at ${url}${quote(stderr)}`,
      );
    }
    if (await cardAnswers(url)) break;
    if (waited >= deadlineMs) {
      await stop();
      throw new A2aReplayError(
        'DEADLINE_EXCEEDED',
        `the peer command "${command}" did not answer ${AGENT_CARD_PATH} on ${url} within ` +
          `${deadlineMs} ms (is it listening on $PORT?)${quote(stderr)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    waited += POLL_MS;
  }
  return { url, stderr: () => stderr, failure, stop };
}

/**
 * Checks that something answers HTTP at `url` (any status). PEER_UNREACHABLE, naming the URL and
 * the socket error, when nothing does.
 */
export function probePeer(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(AGENT_CARD_PATH, url);
    } catch {
      reject(new A2aReplayError('INVALID_ARGUMENT', `--peer: ${JSON.stringify(redactUrl(url))} is not a URL`));
      return;
    }
    const req = get(target, { timeout: 5000 }, (res) => {
      res.resume();
      resolve();
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5000 ms')));
    req.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        new A2aReplayError(
          'PEER_UNREACHABLE',
          `cannot reach the peer at ${redactUrl(url)} (${error.code ?? error.message})`,
        ),
      );
    });
  });
}
