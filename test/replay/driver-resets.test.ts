import { type Server, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordingEntry } from '../../src/recording/format.js';
import { driveRecording } from '../../src/replay/driver.js';
import { entry, result, rpc } from './fixtures.js';

/**
 * A peer that answers every call with the task it names, and resets connections as `reset` says:
 * given the number of the request (1-based, over all connections) and whether it came on a
 * connection that served one before, true destroys that connection with the request read and
 * unanswered.
 */
async function resettingPeer(
  reset: (n: number, reused: boolean) => boolean,
): Promise<{ server: Server; url: string; requests: () => number; resets: () => number }> {
  let requests = 0;
  let resets = 0;
  const served = new WeakSet<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      if (reset(requests, served.has(req.socket))) {
        resets += 1;
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; params: { id?: string } };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(result({ id: call.params.id ?? 't', status: { state: 'TASK_STATE_WORKING' } }, call.id)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, requests: () => requests, resets: () => resets };
}

/** One lane of `n` calls of `method` on one task. */
function recording(method: string, n: number): RecordingEntry[] {
  const entries: RecordingEntry[] = [];
  for (let i = 0; i < n; i++) {
    const seq = 2 * i + 1;
    const params = method === 'GetTask' ? { id: 'task-1' } : { taskId: 'task-1', reason: 'r' };
    entries.push(entry(seq, `x-${i}`, 'request', rpc(method, params, seq)));
    entries.push(
      entry(seq + 1, `x-${i}`, 'response', result({ id: 'task-1', status: { state: 'TASK_STATE_WORKING' } }, seq)),
    );
  }
  return entries;
}

let open: Server | undefined;
afterEach(() => {
  open?.closeAllConnections();
  open?.close();
  open = undefined;
});

describe('connection resets to the peer', () => {
  it('sends a GetTask again on a new connection when the peer resets the first one: no drift', async () => {
    const peer = await resettingPeer((n) => n === 1);
    open = peer.server;
    const drive = await driveRecording(recording('GetTask', 3), { peerUrl: peer.url, maxSockets: 1 });
    expect(peer.resets()).toBe(1);
    expect(peer.requests()).toBe(4);
    expect(drive.drift).toEqual([]);
    expect(drive.replayed.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('sends any request again when the peer resets a kept-alive connection it had served on', async () => {
    // The second request comes on the connection the first was answered on; the peer drops it.
    const peer = await resettingPeer((n, reused) => n === 2 && reused);
    open = peer.server;
    const drive = await driveRecording(recording('PauseTask', 2), { peerUrl: peer.url, maxSockets: 1 });
    expect(peer.resets()).toBe(1);
    expect(drive.drift).toEqual([]);
  });

  it('does not send a PauseTask again after a reset on a new connection: the peer may have paused', async () => {
    const peer = await resettingPeer((n) => n === 1);
    open = peer.server;
    await expect(driveRecording(recording('PauseTask', 2), { peerUrl: peer.url, maxSockets: 1 })).rejects.toThrow(
      /\(recorded seq 1\); not sent again: the peer may have acted on it/,
    );
    expect(peer.requests()).toBe(1);
  });

  it('gives up on a read the peer keeps resetting, as the peer being unreachable', async () => {
    const peer = await resettingPeer(() => true);
    open = peer.server;
    await expect(driveRecording(recording('GetTask', 1), { peerUrl: peer.url })).rejects.toMatchObject({
      code: 'PEER_UNREACHABLE',
    });
    expect(peer.requests()).toBe(3);
  });
});
