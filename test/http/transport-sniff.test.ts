/**
 * One port for HTTP/1.1 and h2c, told apart by the HTTP/2 preface (src/http/transport-sniff.ts),
 * over real sockets: a preface split across packets, a request shorter than the preface, a
 * client that sends nothing, and real node:http and node:http2 servers behind one port.
 */
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { connect as connectHttp2, createServer as createHttp2Server } from 'node:http2';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HTTP2_PREFACE,
  type SniffOptions,
  createSniffingServer,
  readPreface,
  sniffTransport,
} from '../../src/http/transport-sniff.js';

interface Routed {
  route: 'http1' | 'h2c';
  socket: Socket;
  /** What the new owner read, collected from the instant it got the socket, as a server does. */
  read: Buffer[];
}

interface Harness {
  port: number;
  /** Bytes the server side has received so far on each accepted connection (observed beside the sniffer). */
  received: Buffer[][];
  /** Settles with each connection's route, in order. */
  routed: Promise<Routed>[];
  /** Server-side sockets, in order of arrival. */
  accepted: Socket[];
}

const servers: Server[] = [];
const clients: Socket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function harness(options: SniffOptions): Promise<Harness> {
  const h: Harness = { port: 0, received: [], routed: [], accepted: [] };
  const resolvers: ((r: Routed) => void)[] = [];
  for (let i = 0; i < 4; i++) h.routed.push(new Promise((resolve) => resolvers.push(resolve)));
  const server = createServer((socket) => {
    const index = h.accepted.length;
    h.accepted.push(socket);
    const seen: Buffer[] = [];
    h.received.push(seen);
    socket.on('data', (chunk: Buffer) => seen.push(chunk));
    const done = resolvers[index]!;
    const own = (route: Routed['route'], s: Socket): void => {
      const read: Buffer[] = [];
      s.on('data', (chunk: Buffer) => read.push(chunk));
      done({ route, socket: s, read });
    };
    sniffTransport(socket, { http1: (s) => own('http1', s), h2c: (s) => own('h2c', s) }, options);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  h.port = (server.address() as AddressInfo).port;
  return h;
}

async function dial(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  clients.push(socket);
  await once(socket, 'connect');
  socket.setNoDelay(true);
  return socket;
}

/** What the owner of a routed socket read, once `length` bytes arrived. */
async function readBytes(routed: Routed, length: number): Promise<Buffer> {
  while (Buffer.concat(routed.read).length < length) await once(routed.socket, 'data');
  return Buffer.concat(routed.read);
}

/** Waits until the server side has received `length` bytes on connection `index`. */
async function untilReceived(h: Harness, index: number, length: number): Promise<void> {
  for (;;) {
    const seen = h.received[index];
    if (seen && Buffer.concat(seen).length >= length) return;
    const socket = h.accepted[index];
    if (socket) await once(socket, 'data');
    else await new Promise((r) => setImmediate(r));
  }
}

const HOUR = 3_600_000;

describe('readPreface', () => {
  it('decides HTTP/1 at the first byte that differs from the preface', () => {
    expect(readPreface(Buffer.from('G'))).toBe('http1');
    expect(readPreface(Buffer.from('PRI /x HTTP/1.1'))).toBe('http1');
    expect(readPreface(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r'))).toBe('undecided');
    expect(readPreface(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'))).toBe('h2c');
    expect(readPreface(Buffer.concat([HTTP2_PREFACE, Buffer.from([0, 0, 0, 4])]))).toBe('h2c');
    expect(readPreface(Buffer.alloc(0))).toBe('undecided');
  });
});

describe('sniffTransport over real sockets', () => {
  it('waits for a preface split across packets, then hands over h2c with every byte put back', async () => {
    const h = await harness({ silentMs: HOUR });
    const client = await dial(h.port);
    const settled = { value: false };
    void h.routed[0]!.then(() => (settled.value = true));
    client.write(HTTP2_PREFACE.subarray(0, 10));
    await untilReceived(h, 0, 10);
    await new Promise((r) => setImmediate(r));
    expect(settled.value).toBe(false);

    const rest = Buffer.concat([HTTP2_PREFACE.subarray(10), Buffer.from('frames')]);
    client.write(rest);
    const routed = await h.routed[0]!;
    const { route } = routed;
    expect(route).toBe('h2c');
    const bytes = await readBytes(routed, HTTP2_PREFACE.length + 6);
    expect(bytes.toString('latin1')).toBe(`${HTTP2_PREFACE.toString('latin1')}frames`);
  });

  it('hands a request shorter than the preface to HTTP/1 at once', async () => {
    const h = await harness({ silentMs: HOUR });
    const client = await dial(h.port);
    const head = 'GET / HTTP/1.0\r\n\r\n';
    expect(head.length).toBeLessThan(HTTP2_PREFACE.length);
    client.write(head);
    const routed = await h.routed[0]!;
    const { route } = routed;
    expect(route).toBe('http1');
    expect((await readBytes(routed, head.length)).toString('latin1')).toBe(head);
  });

  it('hands a client that sends nothing to HTTP/1 once it stayed silent', async () => {
    const h = await harness({ silentMs: 20 });
    const client = await dial(h.port);
    const routed = await h.routed[0]!;
    const { route } = routed;
    expect(route).toBe('http1');
    expect(Buffer.concat(h.received[0]!).length).toBe(0);
    // The new owner reads what the client sends next.
    client.write('GET / HTTP/1.1\r\n');
    expect((await readBytes(routed, 16)).toString('latin1')).toBe('GET / HTTP/1.1\r\n');
  });

  it('hands a client that stops inside the preface to HTTP/1 with what it sent', async () => {
    const h = await harness({ silentMs: 20 });
    const client = await dial(h.port);
    client.write('PRI * HT');
    const routed = await h.routed[0]!;
    const { route } = routed;
    expect(route).toBe('http1');
    expect((await readBytes(routed, 8)).toString('latin1')).toBe('PRI * HT');
  });

  it('routes nowhere a connection that closes before it said anything', async () => {
    const h = await harness({ silentMs: HOUR });
    const client = await dial(h.port);
    let routed = false;
    void h.routed[0]!.then(() => (routed = true));
    client.end();
    while (h.accepted.length === 0) await new Promise((r) => setImmediate(r));
    const serverSide = h.accepted[0]!;
    if (!serverSide.destroyed) await once(serverSide, 'close');
    await new Promise((r) => setImmediate(r));
    expect(routed).toBe(false);
  });
});

describe('createSniffingServer', () => {
  it('serves node:http and node:http2 requests on one port', async () => {
    const http1 = createHttpServer((req, res) => res.end(`h1 ${req.url}`));
    const http2 = createHttp2Server((req, res) => res.end(`h2 ${req.url}`));
    const server = createSniffingServer(
      { http1: (s) => http1.emit('connection', s), h2c: (s) => void http2.emit('connection', s) },
      { silentMs: HOUR },
    );
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;

    const viaHttp1 = await new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/one', agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });
    expect(viaHttp1).toBe('h1 /one');

    const session = connectHttp2(`http://127.0.0.1:${port}`);
    try {
      for (const path of ['/two', '/three']) {
        const body = await new Promise<string>((resolve, reject) => {
          const stream = session.request({ ':path': path });
          let text = '';
          stream.setEncoding('utf8').on('data', (d: string) => (text += d));
          stream.on('end', () => resolve(text));
          stream.on('error', reject);
          stream.end();
        });
        expect(body).toBe(`h2 ${path}`);
      }
    } finally {
      session.close();
      http1.closeAllConnections();
    }
  });

  it('holds an h2c connection whose route loads its server first, losing nothing sent meanwhile', async () => {
    const http2 = createHttp2Server((req, res) => res.end(`h2 ${req.url}`));
    let load!: () => void;
    const loaded = new Promise<void>((resolve) => (load = resolve));
    let arrived = false;
    const server = createSniffingServer(
      {
        http1: (s) => s.destroy(),
        h2c: async (s) => {
          arrived = true;
          await loaded;
          http2.emit('connection', s);
        },
      },
      { silentMs: HOUR },
    );
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const session = connectHttp2(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      // The request (preface, settings, headers and end) goes out while the route still loads.
      const stream = session.request({ ':path': '/held' });
      let text = '';
      stream.setEncoding('utf8').on('data', (d: string) => (text += d));
      const ended = once(stream, 'end');
      stream.end();
      while (!arrived) await new Promise((r) => setImmediate(r));
      load();
      await ended;
      expect(text).toBe('h2 /held');
    } finally {
      session.close();
    }
  });
});
