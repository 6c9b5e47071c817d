/**
 * A {@link SyncGate} (sync-gate.ts) on the fdatasync calls of this process, for a recorder started
 * in it: what `sync-gate-preload.mjs` does in a child, done here while the gate is installed.
 * Every `fs.fdatasync(fd, callback)` (the one way the recorder syncs, src/recording/line-sink.ts)
 * sends the gate `{"id", "path", "size"}` on its socket and runs once the gate answers `id`.
 * {@link GateHere.uninstall} puts `fs.fdatasync` back and lets every sync still waiting run: a
 * test must call it (in a `finally`), leaving nothing of the gate in the process.
 */
import fs, { fstatSync, readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import type { SyncGate } from './sync-gate.js';

export interface GateHere {
  /** Restores `fs.fdatasync` and runs the syncs still waiting; later syncs run at once. */
  uninstall(): void;
}

/** Routes this process's `fs.fdatasync` calls through `gate` until {@link GateHere.uninstall}. */
export async function installSyncGateHere(gate: SyncGate): Promise<GateHere> {
  const socketPath = gate.env.SYNC_GATE_SOCKET;
  if (socketPath === undefined) throw new Error('the sync gate names no socket');
  const original = fs.fdatasync;
  const waiting = new Map<number, () => void>();
  let nextId = 1;
  let open = true;
  const socket = connect(socketPath);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const runAll = (): void => {
    open = false;
    for (const go of waiting.values()) go();
    waiting.clear();
  };
  socket.on('close', runAll);
  socket.on('error', runAll);
  let buffered = '';
  socket.setEncoding('utf8').on('data', (text: string) => {
    buffered += text;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const id = Number(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      waiting.get(id)?.();
      waiting.delete(id);
    }
  });
  const gated = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void => {
    if (!open) {
      original(fd, callback);
      return;
    }
    const id = nextId++;
    waiting.set(id, () => original(fd, callback));
    socket.write(`${JSON.stringify({ id, path: readlinkSync(`/proc/self/fd/${fd}`), size: fstatSync(fd).size })}\n`);
  };
  fs.fdatasync = gated as typeof fs.fdatasync;
  return {
    uninstall() {
      if (fs.fdatasync === (gated as typeof fs.fdatasync)) fs.fdatasync = original;
      runAll();
      socket.destroy();
    },
  };
}
