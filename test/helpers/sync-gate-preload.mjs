/**
 * Loaded into a child process with `--import` by tests only (see sync-gate.ts): every
 * `FileHandle.datasync()` and `fs.fdatasync(fd, callback)` waits until the test lets it run.
 * Before it runs, the child sends the test one line `{"id", "path", "size"}` on the unix socket
 * named by SYNC_GATE_SOCKET (the file the sync is for, and its size then: what the sync will
 * cover), and waits for the line `id`.
 * Once the socket closes, syncs run at once.
 */
import fs, { fstatSync, readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect } from 'node:net';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const socketPath = process.env.SYNC_GATE_SOCKET;
if (socketPath) {
  const probe = await open(fileURLToPath(import.meta.url), 'r');
  const proto = Object.getPrototypeOf(probe);
  await probe.close();
  const datasync = proto.datasync;
  const waiting = new Map();
  let nextId = 1;
  let closed = false;
  const socket = connect(socketPath);
  socket.unref();
  let buffered = '';
  socket.setEncoding('utf8').on('data', (text) => {
    buffered += text;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const id = Number(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      waiting.get(id)?.();
      waiting.delete(id);
    }
    if (waiting.size === 0) socket.unref();
  });
  const openAll = () => {
    closed = true;
    for (const go of waiting.values()) go();
    waiting.clear();
  };
  socket.on('close', openAll);
  socket.on('error', openAll);
  /** Asks the test for a sync of `fd`; `go` once it says so. */
  const gate = (fd, go) => {
    if (closed) {
      go();
      return;
    }
    const id = nextId++;
    const path = readlinkSync(`/proc/self/fd/${fd}`);
    const { size } = fstatSync(fd);
    waiting.set(id, go);
    socket.ref();
    socket.write(`${JSON.stringify({ id, path, size })}\n`);
  };
  proto.datasync = async function gatedDatasync() {
    await new Promise((resolve) => gate(this.fd, resolve));
    return datasync.call(this);
  };
  const fdatasync = fs.fdatasync;
  fs.fdatasync = function gatedFdatasync(fd, callback) {
    gate(fd, () => fdatasync(fd, callback));
  };
}
