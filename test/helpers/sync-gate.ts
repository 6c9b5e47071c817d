/**
 * A gate on the fdatasync calls of a child process (`sync-gate-preload.mjs`, loaded with
 * `--import`): the test sees each sync before it runs — which file, and how many bytes of it the
 * sync will cover — and lets it run when it says, so "was this answer sent before the sync that
 * covers its receipt returned?" is decided by the test's own steps, never by timing.
 */
import { rm } from 'node:fs/promises';
import { type Socket, createServer } from 'node:net';
import { join } from 'node:path';

/** A sync the child asked for: the file, and its size when asked (what the sync covers). */
export interface SyncRequest {
  id: number;
  path: string;
  size: number;
}

export interface SyncGate {
  /** The environment that loads the gate into a child (pass it to startRecordProcess). */
  readonly env: NodeJS.ProcessEnv;
  /** While true, syncs wait for {@link release}; while false, each runs when asked. */
  holding: boolean;
  /** Syncs asked for and not released, oldest first. */
  readonly pending: readonly SyncRequest[];
  /** Resolves once a sync is pending (at once when one is). */
  untilPending(): Promise<void>;
  /** Lets the oldest pending sync run; returns it. */
  releaseOldest(): SyncRequest | undefined;
  /** Lets the pending sync at `index` of {@link pending} run (the others stay held); returns it. */
  releaseAt(index: number): SyncRequest | undefined;
  /** Bytes of `path` that released syncs cover: nothing past this was durable before it. */
  released(path: string): number;
  /** {@link released} of every file synced so far, as it stands now. */
  releasedAll(): ReadonlyMap<string, number>;
  close(): Promise<void>;
}

const PRELOAD = new URL('./sync-gate-preload.mjs', import.meta.url).href;

/** Starts a gate listening on a unix socket in `dir`. */
export async function startSyncGate(dir: string): Promise<SyncGate> {
  const socketPath = join(dir, `sync-gate-${process.pid}.sock`);
  const pending: SyncRequest[] = [];
  const covered = new Map<string, number>();
  const sockets = new Set<Socket>();
  let onPending: (() => void)[] = [];
  let holding = false;
  const release = (socket: Socket, request: SyncRequest): void => {
    covered.set(request.path, Math.max(covered.get(request.path) ?? 0, request.size));
    socket.write(`${request.id}\n`);
  };
  const owners = new Map<SyncRequest, Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.setEncoding('utf8').on('data', (text: string) => {
      buffered += text;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const request = JSON.parse(buffered.slice(0, newline)) as SyncRequest;
        buffered = buffered.slice(newline + 1);
        if (!holding) {
          release(socket, request);
          continue;
        }
        pending.push(request);
        owners.set(request, socket);
        for (const wake of onPending.splice(0)) wake();
      }
    });
  });
  const releaseAt = (index: number): SyncRequest | undefined => {
    const [request] = index < 0 ? [] : pending.splice(index, 1);
    if (request === undefined) return undefined;
    const socket = owners.get(request);
    owners.delete(request);
    if (socket !== undefined) release(socket, request);
    return request;
  };
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    env: {
      SYNC_GATE_SOCKET: socketPath,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${PRELOAD}`].filter(Boolean).join(' '),
    },
    get holding() {
      return holding;
    },
    set holding(value: boolean) {
      holding = value;
    },
    pending,
    untilPending() {
      if (pending.length > 0) return Promise.resolve();
      return new Promise((resolve) => onPending.push(resolve));
    },
    releaseOldest() {
      return releaseAt(0);
    },
    releaseAt,
    released(path) {
      return covered.get(path) ?? 0;
    },
    releasedAll() {
      return new Map(covered);
    },
    async close() {
      holding = false;
      onPending = [];
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(socketPath, { force: true });
    },
  };
}

/**
 * Lets the held syncs of `gate` run one at a time, oldest first, until `done()`: before each,
 * `settle()` gives whatever the recorder already sent the time to arrive, so an answer released
 * early shows up before the sync that should have held it. `changed()` resolves when `done()`
 * may have turned true.
 */
export async function releaseOneByOne(
  gate: SyncGate,
  done: () => boolean,
  settle: () => Promise<void>,
  changed: () => Promise<void>,
): Promise<void> {
  await settle();
  while (!done()) {
    if (gate.pending.length === 0) {
      await Promise.race([gate.untilPending(), changed()]);
      continue;
    }
    gate.releaseOldest();
    await settle();
  }
}
