import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { type RecordingEntry, driveRecording } from '../../src/internal.js';
import { entry, result, rpc } from './fixtures.js';

/** A peer that answers every GetTask with the task it names after `delayMs`, counting calls in flight. */
async function countingPeer(delayMs: number): Promise<{ server: Server; url: string; maxInFlight: () => number }> {
  let inFlight = 0;
  let max = 0;
  const server = createServer((req, res) => {
    inFlight++;
    max = Math.max(max, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; params: { id: string } };
      setTimeout(() => {
        inFlight--;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(result({ id: call.params.id, status: { state: 'TASK_STATE_WORKING' } }, call.id)));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, maxInFlight: () => max };
}

/** `tasks` lanes of `gets` GetTasks each, interleaved as a concurrent client records them. */
function getTaskRecording(tasks: number, gets: number): RecordingEntry[] {
  const entries: RecordingEntry[] = [];
  let seq = 1;
  for (let g = 0; g < gets; g++) {
    for (let t = 0; t < tasks; t++) {
      const xid = `x-${t}-${g}`;
      const id = seq;
      entries.push(entry(seq++, xid, 'request', rpc('GetTask', { id: `task-${t}` }, id)));
      entries.push(
        entry(seq++, xid, 'response', result({ id: `task-${t}`, status: { state: 'TASK_STATE_WORKING' } }, id)),
      );
    }
  }
  return entries;
}

let open: Server | undefined;
afterEach(() => {
  open?.close();
  open = undefined;
});

it('keeps at most maxSockets unary calls in flight and answers every lane', async () => {
  const peer = await countingPeer(5);
  open = peer.server;
  const entries = getTaskRecording(40, 3);
  const drive = await driveRecording(entries, { peerUrl: peer.url, maxSockets: 3 });
  expect(drive.drift).toEqual([]);
  expect(drive.liveEntries).toBe(120);
  expect(drive.replayed.map((e) => e.seq)).toEqual(entries.map((e) => e.seq));
  expect(peer.maxInFlight()).toBe(3);
});

it('fails the replay with the error of a request node refuses to build, sent at once or after a wait', async () => {
  const peer = await countingPeer(5);
  open = peer.server;
  for (const bad of [0, 2]) {
    const entries = getTaskRecording(4, 1);
    const request = entries[bad * 2] as RecordingEntry;
    request.http.headers = { 'x-note': 'bad\u0001value' };
    const drive = driveRecording(entries, { peerUrl: peer.url, maxSockets: 1 });
    await expect(drive).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
  }
});
