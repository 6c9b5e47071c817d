/**
 * The peer's HTTP limits against real sockets, with short values: 408 for a request that does
 * not arrive in time (body or headers), 503 past the connection cap, a 413 the client reads
 * (chunked or not, by a client reading as it sends or only once it sent everything), and open
 * SSE streams that idleness never cuts.
 */
import { type Socket, connect } from 'node:net';
import { postBig, raw, uploadThenRead } from '../helpers/raw-http.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type PeerOptions, type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { PauseTaskResult } from '../../src/protocol/types.js';
import { PeerClient, label, message } from './peer-client.js';

let peer: RunningPeer | undefined;
let c: PeerClient;

afterEach(async () => {
  c.closeStreams();
  await peer?.close();
  peer = undefined;
});

async function open(options: PeerOptions): Promise<URL> {
  peer = await startPeer({ deterministic: true, ...options });
  c = new PeerClient(peer.url);
  return new URL(peer.url);
}

function errorOf(body: string): { code: number; message: string } {
  return (JSON.parse(body) as { error: { code: number; message: string } }).error;
}

describe('time-outs', () => {
  it('answers 408 and closes when a body does not arrive in time, and keeps an open SSE stream alive', async () => {
    const url = await open({ requestTimeoutMs: 300 });
    const task = await c.start('work:2');
    const s = await c.stream('SubscribeToTask', { id: task.id });
    const p = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id });
    await s.waitUntil((ev) => label(ev) === 'status:TASK_STATE_PAUSED');
    const got = await raw(
      url,
      'POST / HTTP/1.1\r\nHost: peer\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"js',
    );
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(got).toMatch(/\r\nConnection: close\r\n/);
    expect(errorOf(got.slice(got.indexOf('\r\n\r\n') + 4)).message).toMatch(/within 300 ms/);
    // The stream opened before the timed-out request outlived it and still carries the resume.
    expect(s.closed).toBe(false);
    await c.result('ResumeTask', { taskId: task.id, resumeToken: p.pause.resumeToken });
    await c.advance(2000);
    expect((await s.untilClosed()).map(label).slice(-1)).toEqual(['status:TASK_STATE_COMPLETED']);
  });

  it('answers 408 and closes when the headers do not arrive in time', async () => {
    const url = await open({ headersTimeoutMs: 200 });
    const got = await raw(url, 'POST / HTTP/1.1\r\nHost: peer\r\nContent-Ty');
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(errorOf(got.slice(got.indexOf('\r\n\r\n') + 4)).message).toMatch(/headers within 200 ms/);
  });
});

describe('--max-connections', () => {
  /** A raw request: the request line and headers for a JSON-RPC call of `method`. */
  function rpcBytes(method: string, params: unknown, close = false): string {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    return (
      `POST / HTTP/1.1\r\nHost: peer\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n` +
      `${close ? 'Connection: close\r\n' : ''}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    );
  }

  /** Opens a stream on a fresh connection; resolves once its first event arrived. */
  function holdStream(url: URL): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(rpcBytes('SendStreamingMessage', { message: message('await:go') })),
      );
      socket.setEncoding('utf8').once('data', (d: string) => {
        if (d.startsWith('HTTP/1.1 200 ')) resolve(socket);
        else reject(new Error(`no stream: ${d}`));
      });
      socket.on('error', reject);
    });
  }

  it('answers 503 with Retry-After on a connection past the cap, and serves again once one closes', async () => {
    const url = await open({ maxConnections: 2 });
    const first = await holdStream(url);
    const second = await holdStream(url);
    const over = await raw(url, rpcBytes('ListTasks', {}));
    expect(over).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(over).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(over).toMatch(/\r\nConnection: close\r\n/i);
    expect(errorOf(over.slice(over.indexOf('\r\n\r\n') + 4)).message).toMatch(/at most 2 connections/);
    const closed = new Promise((resolve) => first.once('close', resolve));
    first.destroy();
    await closed;
    // The peer sees the close on its own schedule: ask again until it serves (bounded).
    let served = '';
    for (let i = 0; i < 200 && !served.startsWith('HTTP/1.1 200 '); i++) {
      served = await raw(url, rpcBytes('ListTasks', {}, true));
    }
    expect(served).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(JSON.parse(served.slice(served.indexOf('\r\n\r\n') + 4))).toMatchObject({ result: { totalSize: 2 } });
    second.destroy();
  });
});

describe('body limit', () => {
  it.each([
    ['chunked', true],
    ['with a Content-Length', false],
  ])('answers a 5 MiB body sent %s with a 413 the client reads, then keeps serving', async (_name, chunked) => {
    const url = await open({ bodyLimitBytes: 64 * 1024 });
    const answer = await postBig(url, 5 * 1024 * 1024, chunked);
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(errorOf(answer.body)).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/65536-byte limit/) as unknown,
    });
    expect((await c.start('work:1')).status.state).toBe('TASK_STATE_WORKING');
  });

  it('answers a 50 MiB chunked body with a 413 that fetch reads', async () => {
    await open({});
    const res = await fetch(peer!.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: new Uint8Array(50 * 1024 * 1024),
    });
    expect(res.status).toBe(413);
    expect(errorOf(await res.text()).message).toMatch(/1048576-byte limit/);
    expect((await c.start('work:1')).status.state).toBe('TASK_STATE_WORKING');
  });

  it('answers a client that writes a 50 MB chunked body before it reads with a 413 it reads', async () => {
    const url = await open({});
    const { got, uploadError } = await uploadThenRead(url, 50 * 1024 * 1024);
    expect(uploadError).toBeUndefined();
    expect(got).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(got).toMatch(/\r\nConnection: close\r\n/i);
    expect(errorOf(got.slice(got.indexOf('\r\n\r\n') + 4)).message).toMatch(/1048576-byte limit/);
    expect((await c.start('work:1')).status.state).toBe('TASK_STATE_WORKING');
  });

  it('closes after drainTimeoutMs a connection whose body over the limit stops arriving, its 413 read', async () => {
    // The whole request may take a minute: only the drain's own bound can end this one.
    const url = await open({ bodyLimitBytes: 1024, drainTimeoutMs: 200, requestTimeoutMs: 60_000 });
    const got = await raw(
      url,
      'POST / HTTP/1.1\r\nHost: peer\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
        `800\r\n${' '.repeat(0x800)}\r\n`,
    );
    expect(got).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(errorOf(got.slice(got.indexOf('\r\n\r\n') + 4)).message).toMatch(/1024-byte limit/);
  });
});

describe('the limits under /rest', () => {
  const restBody = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;
  const restError = (code: number, status: string, reason: string, message: RegExp) => ({
    error: {
      code,
      status,
      message: expect.stringMatching(message) as unknown,
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }],
    },
  });

  it('answers 408 for a body that does not arrive in time as an HTTP+JSON error', async () => {
    const url = await open({ requestTimeoutMs: 300, headersTimeoutMs: 200 });
    const got = await raw(
      url,
      'POST /rest/message:send HTTP/1.1\r\nHost: peer\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n' +
        'Content-Length: 100\r\n\r\n{"m',
    );
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(restBody(got)).toMatchObject(
      restError(408, 'INVALID_ARGUMENT', 'INVALID_REQUEST', /the whole request within 300 ms/),
    );
  });

  it('answers 503 past the cap as an HTTP+JSON error', async () => {
    const url = await open({ maxConnections: 1 });
    const held = await new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write('GET /rest/tasks HTTP/1.1\r\nHost: p\r\n'),
      );
      socket.once('connect', () => setImmediate(() => resolve(socket)));
      socket.on('error', reject);
    });
    // The held connection is counted once the peer accepted it: ask until the cap answers (bounded).
    let over = '';
    for (let i = 0; i < 200 && !over.startsWith('HTTP/1.1 503 '); i++) {
      over = await raw(url, 'GET /rest/tasks HTTP/1.1\r\nHost: peer\r\nA2A-Version: 1.0\r\nConnection: close\r\n\r\n');
    }
    held.destroy();
    expect(over).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(restBody(over)).toMatchObject(restError(503, 'INTERNAL', 'INTERNAL', /at most 1 connections/));
  });

  it('answers 413 with the HTTP status as the error code', async () => {
    const url = await open({ bodyLimitBytes: 1024 });
    const res = await fetch(new URL('/rest/message:send', url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: { parts: [{ text: 'x'.repeat(5000) }] } }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject(restError(413, 'INVALID_ARGUMENT', 'INVALID_REQUEST', /1024-byte limit/));
  });
});
