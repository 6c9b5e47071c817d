/**
 * The recorder's kept-alive connections to its upstream close when idle (src/intercept/upstream.ts):
 * before the upstream closes them itself, so no request goes out on a connection the upstream is
 * closing at that instant; a request in flight is never cut by that time-out.
 */
import { once } from 'node:events';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openUpstream } from '../../src/intercept/upstream.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; sockets: Socket[] }> {
  // The upstream would keep an idle connection for a minute.
  const server = createServer({ keepAliveTimeout: 60_000 }, handler);
  servers.push(server);
  const sockets: Socket[] = [];
  server.on('connection', (socket: Socket) => sockets.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets };
}

const clientRequest = { method: 'GET', rawHeaders: [] } as unknown as IncomingMessage;

function fetchText(upstream: ReturnType<typeof openUpstream>, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = upstream.send(clientRequest, path, Buffer.alloc(0));
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve(text));
    });
    req.end();
  });
}

describe('the upstream connection pool', () => {
  it('closes a kept-alive connection once it idled, and opens a new one for the next request', async () => {
    const { url, sockets } = await serve((req, res) => res.end(`answer ${req.url}`));
    const upstream = openUpstream(url, {}, 50);
    try {
      expect(await fetchText(upstream, '/one')).toBe('answer /one');
      expect(sockets).toHaveLength(1);
      // The recorder's side ends the connection (the upstream would wait a minute).
      await once(sockets[0]!, 'end');
      expect(await fetchText(upstream, '/two')).toBe('answer /two');
      expect(sockets).toHaveLength(2);
    } finally {
      upstream.destroy();
    }
  });

  it('never cuts a stream in flight that is quiet for longer than the idle time', async () => {
    let second: (() => void) | undefined;
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      second = () => res.end('data: two\n\n');
    });
    const upstream = openUpstream(url, {}, 20);
    try {
      const text = new Promise<string>((resolve, reject) => {
        const req = upstream.send(clientRequest, '/stream', Buffer.alloc(0));
        req.on('error', reject);
        req.on('response', (res) => {
          let seen = '';
          res.setEncoding('utf8').on('data', (d: string) => {
            seen += d;
            if (seen === 'data: one\n\n') {
              // The socket's time-out fires while the stream is open, then the stream goes on.
              req.socket?.once('timeout', () => second?.());
            }
          });
          res.on('end', () => resolve(seen));
          res.on('error', reject);
        });
        req.end();
      });
      expect(await text).toBe('data: one\n\ndata: two\n\n');
    } finally {
      upstream.destroy();
    }
  });
});
