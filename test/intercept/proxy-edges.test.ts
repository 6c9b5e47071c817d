/**
 * What only the reverse proxy does: forwarding rules, refusals, a dead upstream, agent card
 * rewriting, streaming without buffering, and surviving bad input and a broken recorder.
 */
import { request as httpRequest } from 'node:http';
import { type Socket, connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CounterIdSource } from '../../src/ids.js';
import { ExchangeRecorder } from '../../src/intercept/exchange-recorder.js';
import {
  CONTROL_REFUSED_MESSAGE,
  type RecordingProxy,
  type RecordingProxyOptions,
  startRecordingProxy,
} from '../../src/intercept/recording-proxy.js';
import { ERROR_INFO_TYPE } from '../../src/protocol/errors.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';
import { type Handler, closeServer, listen, memoryRecorder, testMark } from './harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(handler: Handler, maxBodyBytes?: number, more: Partial<RecordingProxyOptions> = {}) {
  const upstream = await listen(handler);
  const rec = memoryRecorder(upstream.url);
  const proxy = await startRecordingProxy({
    upstream: upstream.url,
    recorder: rec.recorder,
    ...(maxBodyBytes ? { maxBodyBytes } : {}),
    ...more,
  });
  cleanups.push(
    () => closeServer(upstream.server),
    () => proxy.close({ graceMs: 0 }),
  );
  return { upstream, rec, proxy };
}

/**
 * Resolves once every client connection the proxy took so far has closed on its side, and the
 * close has reached the exchanges (their 'close' handlers run on the ticks after the socket's).
 */
function watchClients(proxy: RecordingProxy): () => Promise<void> {
  const open: Promise<void>[] = [];
  proxy.server.on('connection', (socket: Socket) => open.push(new Promise((resolve) => socket.once('close', resolve))));
  return async () => {
    await Promise.all(open);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
}

/**
 * A client on a raw socket that sends a GetTask and resolves once the first bytes of the answer
 * came (`untilAnswer`) or the upstream has it (the caller waits for that); `leave` resets the
 * connection, as a client that exits with bytes unread does (a FIN alone reads as a half-close).
 */
function rawClient(proxy: RecordingProxy, id: number): { firstBytes: Promise<void>; leave(): void } {
  const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1');
  socket.on('error', () => undefined);
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'GetTask', params: { id: 't' } });
  socket.write(`POST / HTTP/1.1\r\nHost: r\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  return {
    firstBytes: new Promise<void>((resolve) => socket.once('data', () => resolve())),
    leave: () => socket.resetAndDestroy(),
  };
}

const rpc = (id: number) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id, method: 'GetTask', params: { id: 't' } }),
});

describe('recording proxy', () => {
  it('answers a dead upstream with HTTP 502 and a JSON-RPC error naming it, and records the failure', async () => {
    const { upstream, rec, proxy } = await setup((_req, res) => res.end());
    await closeServer(upstream.server);
    const res = await fetch(proxy.url, rpc(41));
    expect(res.status).toBe(502);
    const body = (await res.json()) as { id: number; error: { code: number; message: string } };
    expect(body.id).toBe(41);
    expect(body.error.code).toBe(-32603);
    expect(body.error.message).toContain(`upstream ${upstream.url} failed`);
    expect(body.error.message).toContain('ECONNREFUSED');
    const entries = await rec.settled();
    expect(entries.map((e) => e.kind)).toEqual(['request', 'error']);
    expect(entries[1]?.error).toContain('ECONNREFUSED');
  });

  it('answers a dead upstream on an HTTP+JSON route with 502 as an HTTP+JSON error naming it', async () => {
    const { upstream, rec, proxy } = await setup((_req, res) => res.end());
    await closeServer(upstream.server);
    const res = await fetch(`${proxy.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { message: string; details: { metadata?: unknown }[] } };
    expect(body).toMatchObject({
      error: { code: 502, status: 'INTERNAL', details: [{ reason: 'INTERNAL', domain: 'a2a-protocol.org' }] },
    });
    expect(body).not.toHaveProperty('jsonrpc');
    expect(body.error.message).toContain(`upstream ${upstream.url} failed`);
    expect(body.error.details[0]?.metadata).toEqual({ upstream: upstream.url });
    const entries = await rec.settled();
    expect(entries.map((e) => e.kind)).toEqual(['request', 'error']);
  });

  it('never writes or sends the user-info of its upstream URL, and does not forward it as credentials', async () => {
    const seen: (string | undefined)[] = [];
    const upstream = await listen((req, res) => {
      seen.push(req.headers.authorization);
      req.resume();
      res.setHeader('content-type', 'application/json');
      res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
    const withUserInfo = upstream.url.replace('http://', 'http://admin:pw-9f3k@');
    const rec = memoryRecorder(withUserInfo);
    const proxy = await startRecordingProxy({ upstream: withUserInfo, recorder: rec.recorder });
    cleanups.push(() => proxy.close({ graceMs: 0 }));
    expect((await fetch(proxy.url, rpc(1))).status).toBe(200);
    expect(seen).toEqual([undefined]);
    await closeServer(upstream.server);
    const res = await fetch(proxy.url, rpc(2));
    expect(res.status).toBe(502);
    const body = await res.text();
    expect(body).toContain(`upstream ${upstream.url} failed`);
    await rec.settled();
    await rec.writer.flush();
    const written = rec.sink.text();
    expect(rec.writer.header.target.url).toBe(upstream.url);
    expect(written).toContain('ECONNREFUSED');
    for (const text of [body, written]) {
      expect(text).not.toContain('admin');
      expect(text).not.toContain('pw-9f3k');
    }
  });

  it('records secret query values redacted and forwards the request target unchanged', async () => {
    const targets: (string | undefined)[] = [];
    const { rec, proxy } = await setup((req, res) => {
      targets.push(req.url);
      req.resume();
      res.end('{}');
    });
    const outer = memoryRecorder(proxy.url, { redactQuery: ['Tenant'] });
    const other = await startRecordingProxy({ upstream: proxy.url, recorder: outer.recorder });
    cleanups.push(() => other.close({ graceMs: 0 }));
    const sent = '/.well-known/agent-card.json?api_key=QS-77x&tenant=acme&page=2';
    expect((await fetch(`${other.url}${sent}`)).status).toBe(200);
    expect(targets).toEqual([sent]);
    const r = (v: string): string => encodeURIComponent(testMark(v));
    // the outer proxy redacts the extra name `tenant` too, the inner one the secret-looking names only
    expect((await outer.settled())[0]?.http.path).toBe(
      `/.well-known/agent-card.json?api_key=${r('QS-77x')}&tenant=${r('acme')}&page=2`,
    );
    expect((await rec.settled())[0]?.http.path).toBe(
      `/.well-known/agent-card.json?api_key=${r('QS-77x')}&tenant=acme&page=2`,
    );
    expect(outer.sink.text()).not.toContain('QS-77x');
    expect(rec.sink.text()).not.toContain('QS-77x');
  });

  it('takes an absolute-form target (a client that treats it as a forward proxy) as its path and query', async () => {
    const targets: (string | undefined)[] = [];
    const upstream = await listen((req, res) => {
      targets.push(req.url);
      req.resume();
      res.setHeader('content-type', 'application/json');
      res.end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
    // Under a base path, as `record --upstream URL/a2a` forwards.
    const rec = memoryRecorder(`${upstream.url}/a2a`);
    const proxy = await startRecordingProxy({ upstream: `${upstream.url}/a2a/`, recorder: rec.recorder });
    cleanups.push(
      () => closeServer(upstream.server),
      () => proxy.close({ graceMs: 0 }),
    );
    const { port } = new URL(proxy.url);
    const send = (path: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(rpc(1).body);
      });
    // What an HTTP client sends when HTTP_PROXY names the recorder, a plain path, and a path
    // that only looks like an authority: the last is path text and stays so.
    expect(await send(`http://agent.example:8080/rpc?x=1`)).toBe(200);
    expect(await send('/rpc')).toBe(200);
    expect(await send('//agent.example/rpc')).toBe(200);
    expect(targets).toEqual(['/a2a/rpc?x=1', '/a2a/rpc', '/a2a//agent.example/rpc']);
    const paths = (await rec.settled()).filter((e) => e.kind === 'request').map((e) => e.http.path);
    expect(paths).toEqual(['/rpc?x=1', '/rpc', '//agent.example/rpc']);
  });

  it('forwards /control between loopback ends only; otherwise answers 403 and records the refusal', async () => {
    const seen: string[] = [];
    const handler: Handler = (req, res) => {
      seen.push(req.url ?? '');
      req.resume();
      res.setHeader('content-type', 'application/json');
      res.end('{"jsonrpc":"2.0","id":1,"result":{"now":"2026-01-01T00:00:00.000Z"}}');
    };
    const loopback = await setup(handler);
    expect(loopback.proxy.forwardsControl).toBe(true);
    const clock = { ...rpc(5), body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'GetClock', params: {} }) };
    expect((await fetch(`${loopback.proxy.url}/control`, clock)).status).toBe(200);
    expect(seen).toEqual(['/control']);

    const upstream = await listen(handler);
    cleanups.push(() => closeServer(upstream.server));
    const rec = memoryRecorder(upstream.url);
    const guarded = await startRecordingProxy({
      upstream: upstream.url,
      recorder: rec.recorder,
      forwardControl: false,
    });
    cleanups.push(() => guarded.close({ graceMs: 0 }));
    expect(guarded.forwardsControl).toBe(false);
    const res = await fetch(`${guarded.url}/control`, clock);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32600, message: CONTROL_REFUSED_MESSAGE },
    });
    for (const path of ['/control/x', '/Control?ms=1', '/./control', '/a/../control', '//control', '/%63ontrol']) {
      expect((await fetch(`${guarded.url}${path}`, clock)).status).toBe(403);
    }
    // a refused target whose path names an HTTP+JSON route gets its refusal in that binding
    const restRefusal = await fetch(`${guarded.url}/control/tasks/t-1`);
    expect(restRefusal.status).toBe(403);
    expect(await restRefusal.json()).toEqual({
      error: {
        code: 403,
        status: 'INVALID_ARGUMENT',
        message: CONTROL_REFUSED_MESSAGE,
        details: [{ '@type': ERROR_INFO_TYPE, reason: 'INVALID_REQUEST', domain: 'a2a-protocol.org' }],
      },
    });
    // everything else is forwarded as before
    expect((await fetch(`${guarded.url}/controls`, clock)).status).toBe(200);
    expect((await fetch(guarded.url, rpc(6))).status).toBe(200);
    expect(seen).toEqual(['/control', '/controls', '/']);
    const entries = await rec.settled();
    expect(entries.slice(0, 2).map((e) => [e.kind, e.http.path, e.error])).toEqual([
      ['request', '/control', undefined],
      ['error', '/control', CONTROL_REFUSED_MESSAGE],
    ]);
    expect(entries[0]?.body).toMatchObject({ method: 'GetClock' });
  });

  it('does not forward /control by default when the upstream or the listen address is not loopback', async () => {
    const remote = await startRecordingProxy({
      upstream: 'http://192.0.2.1:9',
      recorder: memoryRecorder('x').recorder,
    });
    cleanups.push(() => remote.close({ graceMs: 0 }));
    expect(remote.forwardsControl).toBe(false);
    // refused at the proxy: the unreachable upstream is never tried
    expect((await fetch(`${remote.url}/control`, { method: 'POST', body: '{}' })).status).toBe(403);
    const upstream = await listen((_req, res) => res.end());
    cleanups.push(() => closeServer(upstream.server));
    const wide = await startRecordingProxy({
      upstream: upstream.url,
      recorder: memoryRecorder('x').recorder,
      host: '0.0.0.0',
    });
    cleanups.push(() => wide.close({ graceMs: 0 }));
    expect(wide.forwardsControl).toBe(false);
    const named = await startRecordingProxy({
      upstream: upstream.url.replace('127.0.0.1', 'localhost'),
      recorder: memoryRecorder('x').recorder,
      host: 'localhost',
    });
    cleanups.push(() => named.close({ graceMs: 0 }));
    expect(named.forwardsControl).toBe(true);
  });

  it('refuses a body over the limit with HTTP 413 and does not forward it', async () => {
    let forwarded = 0;
    const { rec, proxy } = await setup((req, res) => {
      forwarded++;
      req.resume();
      res.end('{}');
    }, 1000);
    const res = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ big: 'x'.repeat(5000) }),
    });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error).toMatchObject({ code: -32600 });
    expect(body.error.message).toMatch(/over the recorder's limit of 1000 bytes/);
    const ok = await fetch(proxy.url, rpc(1));
    expect(ok.status).toBe(200);
    expect(forwarded).toBe(1);
    const entries = await rec.settled();
    expect(entries[1]).toMatchObject({ kind: 'error', error: expect.stringContaining('not forwarded') as unknown });
  });

  it('forwards end-to-end headers and drops hop-by-hop ones both ways', async () => {
    let seen: Record<string, string | string[] | undefined> = {};
    const { proxy } = await setup((req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'content-type': 'application/json', connection: 'x-hop', 'x-hop': '1', 'x-end': '2' });
      res.end('{}');
    });
    const res = await new Promise<{ headers: Record<string, unknown> }>((resolve, reject) => {
      const req = httpRequest(
        `${proxy.url}/p?q=1`,
        {
          method: 'GET',
          headers: { connection: 'x-drop', 'x-drop': '1', te: 'trailers', 'x-keep': 'yes', upgrade: 'h2c' },
        },
        (r) => {
          r.resume();
          r.on('end', () => resolve({ headers: r.headers }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(seen['x-keep']).toBe('yes');
    expect(seen).not.toHaveProperty('x-drop');
    expect(seen).not.toHaveProperty('te');
    expect(seen).not.toHaveProperty('upgrade');
    expect(res.headers['x-end']).toBe('2');
    expect(res.headers).not.toHaveProperty('x-hop');
  });

  it("rewrites the agent card's interface URLs to the proxy and records the card as sent", async () => {
    let base = '';
    const { rec, proxy, upstream } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'a',
          supportedInterfaces: [
            { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC' },
            { url: 'http://elsewhere:1/x' },
            { url: new URL(base).host, protocolBinding: 'GRPC' },
            { url: 'elsewhere:1', protocolBinding: 'GRPC' },
          ],
        }),
      );
    });
    base = upstream.url;
    const card = (await (await fetch(`${proxy.url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string }[];
    };
    // A gRPC target on the upstream moves to the proxy too: a gRPC client never bypasses it.
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual([
      `${proxy.url}/a2a/jsonrpc`,
      'http://elsewhere:1/x',
      new URL(proxy.url).host,
      'elsewhere:1',
    ]);
    const entries = await rec.settled();
    expect(entries[1]?.body).toMatchObject({
      supportedInterfaces: [
        { url: `${base}/a2a/jsonrpc` },
        { url: 'http://elsewhere:1/x' },
        { url: new URL(base).host },
        { url: 'elsewhere:1' },
      ],
    });
  });

  it('rewrites a card again for another Host or another card, and gives the same card the same bytes', async () => {
    let base = '';
    let version = '1';
    const { rec, proxy, upstream } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'a',
          version,
          supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC' }],
        }),
      );
    });
    base = upstream.url;
    const { port } = new URL(proxy.url);
    const fetchCard = (host?: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const headers = host === undefined ? {} : { host };
        httpRequest({ host: '127.0.0.1', port, path: '/.well-known/agent-card.json', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        })
          .on('error', reject)
          .end();
      });
    const urlOf = (text: string): string =>
      (JSON.parse(text) as { supportedInterfaces: { url: string }[] }).supportedInterfaces[0]!.url;
    const first = await fetchCard(`127.0.0.1:${port}`);
    expect(urlOf(first)).toBe(`http://127.0.0.1:${port}/a2a`);
    expect(await fetchCard(`127.0.0.1:${port}`)).toBe(first);
    // Another name for the proxy: the card names it, not the one rewritten before.
    expect(urlOf(await fetchCard(`localhost:${port}`))).toBe(`http://localhost:${port}/a2a`);
    expect(await fetchCard(`127.0.0.1:${port}`)).toBe(first);
    // The peer's card changed: the client gets the new one, rewritten.
    version = '2';
    const second = await fetchCard(`127.0.0.1:${port}`);
    expect(JSON.parse(second)).toMatchObject({
      version: '2',
      supportedInterfaces: [{ url: `http://127.0.0.1:${port}/a2a` }],
    });
    // The recording holds every card as the peer sent it.
    const cards = (await rec.settled()).filter((e) => e.kind === 'response').map((e) => e.body);
    expect(cards).toHaveLength(5);
    for (const card of cards) expect(card).toMatchObject({ supportedInterfaces: [{ url: `${base}/a2a` }] });
  });

  it('streams each SSE event to the client before the upstream sends the next', async () => {
    let clientGot: (() => void) | undefined;
    const clientHasFirst = new Promise<void>((resolve) => (clientGot = resolve));
    const { rec, proxy } = await setup((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
      void clientHasFirst.then(() => res.end('data: {"n":2}\n\n'));
    });
    const res = await fetch(proxy.url, rpc(1));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: {"n":1}\n\n');
    clientGot?.();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toBe('data: {"n":2}\n\n');
    expect((await rec.settled()).map((e) => e.kind)).toEqual(['request', 'response', 'event', 'event', 'end']);
  });

  it('reads a stream on to its end after its client leaves, and marks its end undelivered', async () => {
    let clientLeft: (() => void) | undefined;
    const left = new Promise<void>((resolve) => (clientLeft = resolve));
    const { rec, proxy } = await setup((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
      void left.then(() => res.end('data: {"n":2}\n\n'));
    });
    const clientsClosed = watchClients(proxy);
    const client = rawClient(proxy, 1);
    await client.firstBytes;
    client.leave();
    await clientsClosed();
    clientLeft?.();
    const entries = await rec.settled();
    expect(entries.map((e) => e.kind)).toEqual(['request', 'response', 'event', 'event', 'end']);
    expect(entries[3]?.body).toEqual({ n: 2 });
    expect(entries[4]).toMatchObject({ undelivered: 'the client closed its connection before the answer ended' });
    expect(entries[4]).not.toHaveProperty('incomplete');
  });

  it('stops reading an answer its client left once --follow-ms passed, and records why', async () => {
    let upstreamClosed: (() => void) | undefined;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const { rec, proxy } = await setup(
      (req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"n":1}\n\n');
        res.on('close', () => upstreamClosed?.());
      },
      undefined,
      { followMs: 100 },
    );
    const client = rawClient(proxy, 1);
    await client.firstBytes;
    client.leave();
    await closed;
    const entries = await rec.settled();
    expect(entries.at(-1)).toMatchObject({
      kind: 'error',
      error:
        "the client closed its connection before the answer ended; the upstream's answer did not end within " +
        '100 ms after that (--follow-ms), so the recorder stopped reading it',
      undelivered: 'the client closed its connection before the answer ended',
    });
  });

  it('records whole an answer that comes after its client closed the connection, not as incomplete', async () => {
    let clientLeft: (() => void) | undefined;
    const left = new Promise<void>((resolve) => (clientLeft = resolve));
    let arrived: (() => void) | undefined;
    const atUpstream = new Promise<void>((resolve) => (arrived = resolve));
    const { rec, proxy } = await setup((req, res) => {
      req.resume();
      arrived?.();
      void left.then(() => res.end('{"jsonrpc":"2.0","id":3,"result":{"id":"t"}}'));
    });
    const clientsClosed = watchClients(proxy);
    const client = rawClient(proxy, 3);
    await atUpstream;
    client.leave();
    await clientsClosed();
    expect(proxy.inFlight).toBe(1);
    clientLeft?.();
    const entries = await rec.settled();
    expect(entries.map((e) => e.kind)).toEqual(['request', 'response']);
    expect(entries[1]).toMatchObject({
      body: { jsonrpc: '2.0', id: 3, result: { id: 't' } },
      undelivered: 'the client closed its connection before the answer ended',
    });
    expect(entries[1]).not.toHaveProperty('incomplete');
  });

  it('answers 504 when the upstream is slow, then records the answer that comes after it', async () => {
    let answerNow: (() => void) | undefined;
    const late = new Promise<void>((resolve) => (answerNow = resolve));
    const { upstream, rec, proxy } = await setup(
      (req, res) => {
        req.resume();
        void late.then(() => res.end('{"jsonrpc":"2.0","id":41,"result":{"id":"t"}}'));
      },
      undefined,
      { upstreamTimeoutMs: 100 },
    );
    const res = await fetch(proxy.url, rpc(41));
    expect(res.status).toBe(504);
    answerNow?.();
    const entries = await rec.settled();
    expect(entries.map((e) => e.kind)).toEqual(['request', 'response']);
    expect(entries[1]).toMatchObject({
      http: { status: 200 },
      body: { jsonrpc: '2.0', id: 41, result: { id: 't' } },
      undelivered: `the recorder answered the client 504: upstream ${upstream.url} sent no response within 100 ms`,
    });
  });

  it('answers a client that half-closes after its request, as nc -N does, then ends the connection', async () => {
    let answerNow: (() => void) | undefined;
    const late = new Promise<void>((resolve) => (answerNow = resolve));
    const { rec, proxy } = await setup((req, res) => {
      req.resume();
      answerNow?.();
      void late.then(() => res.end('{"jsonrpc":"2.0","id":5,"result":{"id":"t"}}'));
    });
    const got = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8').on('data', (d: string) => (text += d));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      const body = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'GetTask', params: { id: 't' } });
      socket.end(`POST / HTTP/1.1\r\nHost: r\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    });
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got.endsWith('{"jsonrpc":"2.0","id":5,"result":{"id":"t"}}')).toBe(true);
    const entries = await rec.settled();
    expect(entries.map((e) => e.kind)).toEqual(['request', 'response']);
    expect(entries[1]).not.toHaveProperty('undelivered');
  });

  it('answers malformed HTTP with 400 and keeps serving', async () => {
    const { proxy } = await setup((req, res) => {
      req.resume();
      res.end('{}');
    });
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1', () =>
        socket.write('NOT HTTP AT ALL\r\n\r\n'),
      );
      let text = '';
      socket.setEncoding('utf8').on('data', (d: string) => (text += d));
      socket.on('close', () => resolve(text));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect((await fetch(proxy.url, rpc(2))).status).toBe(200);
  });

  it('keeps forwarding when the recording sink fails, and reports the failure once', async () => {
    const upstream = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    const errors: unknown[] = [];
    const writer = new RecordingWriter({
      sink: { write: () => Promise.reject(new Error('EIO')), close: () => Promise.resolve() },
      clock: new ManualClock(0),
      ids: new CounterIdSource(1),
      target: upstream.url,
      onError: (e) => errors.push(e),
    });
    const proxy: RecordingProxy = await startRecordingProxy({
      upstream: upstream.url,
      recorder: new ExchangeRecorder({ writer, ids: new CounterIdSource(1) }),
    });
    cleanups.push(
      () => closeServer(upstream.server),
      () => proxy.close({ graceMs: 0 }),
    );
    for (let i = 0; i < 3; i++) expect(await (await fetch(proxy.url, rpc(i))).json()).toEqual({ ok: true });
    await writer.flush();
    expect(errors).toHaveLength(1);
  });
});
