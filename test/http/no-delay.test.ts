/**
 * Every server port of the project turns Nagle's algorithm off on the connections it accepts, as
 * node:http does on its own. The ports hand their sockets to node:http by `emit('connection')`,
 * which skips `http.createServer`'s `noDelay`; with Nagle on, the last small write of an SSE
 * stream on a kept-alive connection waited for the client's delayed ACK (about 40 ms a stream).
 *
 * Node keeps what `setNoDelay` last set on a socket under the symbol `kSetNoDelay`, and sets it
 * too when a server's `noDelay` option applied; a TLS socket's TCP socket is its `_parent`.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { type IncomingMessage, createServer as createHttpServer, request } from 'node:http';
import { request as requestHttps } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSniffingServer } from '../../src/http/transport-sniff.js';
import { startRecordingProxy } from '../../src/intercept/recording-proxy.js';
import { startPeer } from '../../src/peer/start-peer.js';
import { makeTestCertificate } from '../helpers/test-certificate.js';
import { closeServer, listen, memoryRecorder } from '../intercept/harness.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Whether Nagle's algorithm is off on `socket` (or on the TCP socket under a TLS one). */
function nagleOff(socket: Socket): boolean {
  const tcp = (socket as Socket & { _parent?: Socket | null })._parent ?? socket;
  const symbol = Object.getOwnPropertySymbols(tcp).find((s) => s.description === 'kSetNoDelay');
  if (symbol === undefined)
    throw new Error('this Node keeps no kSetNoDelay on its sockets: the test needs a new probe');
  return (tcp as unknown as Record<symbol, unknown>)[symbol] === true;
}

/** One GET over a kept-alive connection; resolves with the status. */
function get(url: string, ca?: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? requestHttps : request;
    send(url, { headers: { connection: 'keep-alive' }, ...(ca ? { ca } : {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

describe('Nagle is off on every accepted connection', () => {
  it('on a sniffing port, on both routes', async () => {
    const routed: Socket[] = [];
    const http1 = createHttpServer((_req, res) => res.end('h1'));
    const server = createSniffingServer(
      {
        http1: (socket) => {
          routed.push(socket);
          http1.emit('connection', socket);
        },
        h2c: (socket) => {
          routed.push(socket);
          socket.destroy();
        },
      },
      { silentMs: 60_000 },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    cleanups.push(async () => {
      for (const socket of routed) socket.destroy();
    });
    const port = (server.address() as AddressInfo).port;
    expect(await get(`http://127.0.0.1:${port}/`)).toBe(200);
    expect(routed).toHaveLength(1);
    expect(nagleOff(routed[0]!)).toBe(true);
  });

  it('on the recorder, in cleartext and over TLS', async () => {
    const upstream = await listen((_req, res) => res.end('{}'));
    cleanups.push(() => closeServer(upstream.server));
    const dir = await mkdtemp(join(tmpdir(), 'no-delay-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const certificate = makeTestCertificate(dir);
    for (const tls of [undefined, { cert: certificate.cert, key: certificate.key }]) {
      const rec = memoryRecorder(upstream.url);
      const proxy = await startRecordingProxy({
        upstream: upstream.url,
        recorder: rec.recorder,
        ...(tls ? { tls } : {}),
      });
      cleanups.push(() => proxy.close({ graceMs: 0 }));
      const accepted: Socket[] = [];
      proxy.server.on('connection', (socket: Socket) => accepted.push(socket));
      expect(await get(`${proxy.url}/`, certificate.cert)).toBe(200);
      expect(accepted).toHaveLength(1);
      expect(nagleOff(accepted[0]!)).toBe(true);
    }
  });

  it('on the reference peer', async () => {
    const sockets: Socket[] = [];
    const peer = await startPeer({
      deterministic: true,
      wrapHandler: (handler) => (req: IncomingMessage, res) => {
        sockets.push(req.socket);
        handler(req, res);
      },
    });
    cleanups.push(() => peer.close());
    expect(await get(`${peer.url}/.well-known/agent-card.json`)).toBe(200);
    expect(sockets.length).toBeGreaterThan(0);
    expect(sockets.every(nagleOff)).toBe(true);
  });
});
