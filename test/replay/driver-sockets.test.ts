import { type Server, createServer } from 'node:http';
import { type AddressInfo, type Server as NetServer, connect, createServer as createNetServer } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { RecordingEntry } from '../../src/recording/format.js';
import { driveRecording } from '../../src/replay/driver.js';
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

/** A peer that answers GetTask like {@link countingPeer} and notes the target of every request. */
async function targetsPeer(): Promise<{ server: Server; url: string; targets: string[] }> {
  const targets: string[] = [];
  const server = createServer((req, res) => {
    targets.push(req.url ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; params: { id: string } };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(result({ id: call.params.id, status: { state: 'TASK_STATE_WORKING' } }, call.id)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, targets };
}

it('sends every recorded target to the --peer host, under its path, as the recorder forwarded it', async () => {
  const peer = await targetsPeer();
  const other = await targetsPeer();
  try {
    const otherHost = new URL(other.url).host;
    // What a client may have sent through the recorder: origin-form targets that read as another
    // host when resolved as a URL reference ("//host/…"), an absolute-form one, a plain one.
    const recorded = [`//${otherHost}/x?q=1`, `${other.url}/y`, '/z', '/'];
    const entries = recorded.flatMap((path, i) => {
      const request = entry(i * 2 + 1, `x-${i}`, 'request', rpc('GetTask', { id: `task-${i}` }, i), path);
      const answer = entry(
        i * 2 + 2,
        `x-${i}`,
        'response',
        result({ id: `task-${i}`, status: { state: 'TASK_STATE_WORKING' } }, i),
        path,
      );
      return [request, answer];
    });
    for (const [base, prefix] of [
      [peer.url, ''],
      [`${peer.url}/a2a/`, '/a2a'],
    ] as const) {
      peer.targets.length = 0;
      const drive = await driveRecording(entries, { peerUrl: base, maxSockets: 1 });
      expect(drive.drift).toEqual([]);
      expect(peer.targets.sort()).toEqual(
        [`${prefix}//${otherHost}/x?q=1`, `${prefix}/${other.url}/y`, `${prefix}/z`, `${prefix}/`].sort(),
      );
    }
    expect(other.targets).toEqual([]);
  } finally {
    peer.server.close();
    other.server.close();
  }
});

it('ends with drift in its deadline when the peer keeps a stream open with events the recording lacks', async () => {
  // The recorded stream: its task, then `end`. The live one sends the task, then a heartbeat
  // event every 20 ms and never ends: events that settle nothing must not hold the replay open.
  const task = { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } };
  const entries: RecordingEntry[] = [
    entry(
      1,
      'x-s',
      'request',
      rpc('SendStreamingMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }),
    ),
    entry(2, 'x-s', 'response'),
    entry(3, 'x-s', 'event', result({ task })),
    entry(4, 'x-s', 'end'),
  ];
  const beats: NodeJS.Timeout[] = [];
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify(result({ task }))}\n\n`);
    beats.push(setInterval(() => res.write(`data: ${JSON.stringify(result({ heartbeat: true }))}\n\n`), 20));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open = server;
  try {
    const { port } = server.address() as AddressInfo;
    const drive = await driveRecording(entries, { peerUrl: `http://127.0.0.1:${port}`, timeoutMs: 300 });
    expect(drive.drift.length).toBeGreaterThan(0);
    expect(JSON.stringify(drive.drift)).toContain('no live entry answered it within 300 ms');
  } finally {
    for (const beat of beats) clearInterval(beat);
    server.closeAllConnections();
  }
}, 20_000);

it('drifts when the peer answers a string call id with another one: the envelope id is not a minted id', async () => {
  const task = { id: 'task-1', status: { state: 'TASK_STATE_WORKING' } };
  const entries: RecordingEntry[] = [
    entry(1, 'x-1', 'request', rpc('GetTask', { id: 'task-1' }, 'rpc-1')),
    entry(2, 'x-1', 'response', result(task, 'rpc-1')),
  ];
  for (const [answerId, drifts] of [
    ['rpc-1', false],
    ['rpc-1-WRONG', true],
  ] as const) {
    const server = createServer((req, res) => {
      req.resume();
      res.setHeader('content-type', 'application/json');
      // A peer that mints its own task ids is mapped; its call id must be the client's.
      res.end(JSON.stringify(result({ ...task, id: 'live-task-9' }, answerId)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const drive = await driveRecording(entries, { peerUrl: `http://127.0.0.1:${port}` });
      expect(drive.ids.liveOf('task-1')).toBe('live-task-9');
      expect(drive.ids.liveOf('rpc-1')).toBe('rpc-1');
      if (drifts) expect(JSON.stringify(drive.drift)).toContain('rpc-1-WRONG');
      else expect(drive.drift).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }
});

/**
 * An HTTP server behind a TCP relay that keeps every byte arriving from clients: what the server
 * parsed (method, target, body) and what was on the wire, side by side.
 */
async function wirePeer(): Promise<{
  url: string;
  seen: string[];
  wire: () => string;
  close: () => void;
}> {
  const seen: string[] = [];
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${Buffer.concat(chunks).toString('latin1')}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(result({ id: 'task-1', status: { state: 'TASK_STATE_WORKING' } })));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const httpPort = (http.address() as AddressInfo).port;
  const received: Buffer[] = [];
  const relay: NetServer = createNetServer((client) => {
    const upstream = connect(httpPort, '127.0.0.1');
    client.on('data', (chunk: Buffer) => {
      received.push(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    wire: () => Buffer.concat(received).toString('latin1'),
    close: () => {
      http.closeAllConnections();
      http.close();
      relay.close();
    },
  };
}

it('frames the recorded body of a GET with Content-Length, so the peer never reads it as requests', async () => {
  // A recorded GET whose body reads as a second request when sent unframed.
  const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
  const task = { id: 'task-1', status: { state: 'TASK_STATE_WORKING' } };
  const get = entry(1, 'x-1', 'request', undefined, '/rest/tasks/task-1');
  get.http.method = 'GET';
  get.bodyText = smuggled;
  const answer = entry(2, 'x-1', 'response', result(task), '/rest/tasks/task-1');
  answer.http.method = 'GET';
  const post = entry(3, 'x-2', 'request', rpc('GetTask', { id: 'task-1' }));
  const posted = entry(4, 'x-2', 'response', result(task));
  const peer = await wirePeer();
  try {
    const drive = await driveRecording([get, answer, post, posted], { peerUrl: peer.url, maxSockets: 1 });
    expect(peer.seen).toEqual([
      `GET /rest/tasks/task-1 ${smuggled}`,
      `POST / ${JSON.stringify(rpc('GetTask', { id: 'task-1' }))}`,
    ]);
    const length = (body: string): string => `content-length: ${Buffer.byteLength(body)}\r\n`;
    expect(peer.wire()).toContain(length(smuggled));
    expect(peer.wire()).toContain(length(JSON.stringify(rpc('GetTask', { id: 'task-1' }))));
    expect(peer.wire()).not.toContain('transfer-encoding');
    expect(drive.drift).toEqual([]);
    expect(drive.notes).toEqual([
      `seq 1: GET /rest/tasks/task-1 was recorded with a ${smuggled.length}-byte body; ` +
        'sent as recorded, framed by Content-Length',
    ]);
  } finally {
    peer.close();
  }
});
