/**
 * The recorder (`startRecorder`, in this process) under slow or hostile parties, against real
 * sockets with short option values:
 * an upstream that never answers (504 naming it; read on until the stop records it as an error), a
 * client whose body or headers do not arrive in time (408), connections past the cap (503; gRPC
 * connections count, and a gRPC call past the cap gets UNAVAILABLE), a 50 MB chunked body (a
 * 413 the client reads), and a gzip answer passed through untouched but recorded decoded. The
 * recorder's own answers are HTTP+JSON errors on a route of that binding, JSON-RPC elsewhere.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { type RequestListener, type Server, type ServerResponse, createServer } from 'node:http';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { AgentCard } from '@a2a-js/sdk';
import { RestTransportFactory } from '@a2a-js/sdk/client';
import { Client as GrpcClient, Metadata, credentials, status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRestError } from '../../src/protocol/rest-binding.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { postBig, raw, uploadThenRead } from '../helpers/raw-http.js';
import type { RecorderOptions } from '../../src/public/record.js';
import { type TestRecorder, startTestRecorder } from '../helpers/in-process.js';

let dir = '';
const recorders: TestRecorder[] = [];
const servers: Server[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-limits-'));
});
afterEach(async () => {
  for (const s of servers) s.closeAllConnections();
  for (const r of recorders.splice(0)) await r.close();
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

/**
 * An upstream on 127.0.0.1 run by `handler`. It has no agent card (404) unless `card` says the
 * handler serves it: the recorder reads the card at its start, and a handler that never answers
 * would hold that start for the card fetch's time-out.
 */
async function upstream(handler: RequestListener, { card = false } = {}): Promise<string> {
  const server = createServer((req, res) => {
    if (!card && req.url === '/.well-known/agent-card.json') {
      res.writeHead(404).end();
      return;
    }
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

/** A recorder without a key in front of `target`, with `options`. */
async function record(
  target: string,
  options: Omit<RecorderOptions, 'upstream' | 'out'> = {},
): Promise<{ proc: TestRecorder; out: string; url: URL }> {
  const out = join(dir, `r${recorders.length}.jsonl`);
  const proc = await startTestRecorder({ upstream: target, out, ...options });
  recorders.push(proc);
  return { proc, out, url: new URL(proc.url) };
}

function rpc(method: string, params: unknown = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 7, method, params });
}

function bodyOf(answer: string): { error: { code: number; message: string } } {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: number; message: string } };
}

async function entriesOf(proc: TestRecorder, out: string) {
  await proc.close();
  return (await readRecording(out)).entries;
}

describe('the upstream card', () => {
  it('warns when the card names another server, which clients would reach past the recorder', async () => {
    const card = (url: string) => ({
      name: 'public',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    });
    const answer = (url: string | null) =>
      upstream(
        (req, res) => {
          req.resume();
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(card(url ?? `http://${req.headers.host ?? ''}/`)));
        },
        { card: true },
      );
    const publicUrl = 'https://agent.example.com/a2a';
    const behind = await record(await answer(publicUrl));
    expect(behind.proc.warnings.join('\n')).toContain(
      `the upstream's agent card names ${publicUrl}, not the upstream: a client that follows it talks to ` +
        'that server directly, and nothing of it is recorded',
    );
    const own = await answer(null);
    const direct = await record(own);
    expect(direct.proc.warnings.join('\n')).not.toContain("the upstream's agent card names");
  });
});

describe('time-outs', () => {
  it('answers 504 naming the upstream when it sends no response head in time, and records the error', async () => {
    const silent = await upstream(() => undefined);
    // The answer is read on after the 504 for followMs, which a stop waits for too: short here.
    const { proc, out, url } = await record(silent, { upstreamTimeoutMs: 200, followMs: 300 });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: rpc('GetTask'),
    });
    expect(res.status).toBe(504);
    const answer = (await res.json()) as { id: number; error: { code: number; message: string } };
    expect(answer.id).toBe(7);
    expect(answer.error.code).toBe(-32603);
    expect(answer.error.message).toBe(`upstream ${silent} sent no response within 200 ms`);
    const entries = await entriesOf(proc, out);
    expect(entries.map((e) => e.kind)).toEqual(['request', 'error']);
    expect(entries[1]?.error).toMatch(/sent no response within 200 ms/);
  });

  it('answers 408 and closes when a request body does not arrive in time', async () => {
    const peer = await upstream((_req, res) => res.end('{}'));
    const { url } = await record(peer, { requestTimeoutMs: 300, headersTimeoutMs: 200 });
    const got = await raw(
      url,
      'POST / HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"',
    );
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(bodyOf(got).error.message).toMatch(/the whole request within 300 ms/);
  });

  it('answers 408 and closes when the headers do not arrive in time', async () => {
    const peer = await upstream((_req, res) => res.end('{}'));
    const { url } = await record(peer, { headersTimeoutMs: 200 });
    const got = await raw(url, 'POST / HTTP/1.1\r\nHost: r\r\nContent-Ty');
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(bodyOf(got).error.message).toMatch(/headers within 200 ms/);
  });

  it('never cuts an open SSE stream for idleness', async () => {
    const streaming = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
      setTimeout(() => res.end('data: {"n":2}\n\n'), 900);
    });
    const { url } = await record(streaming, { requestTimeoutMs: 200, headersTimeoutMs: 100, upstreamTimeoutMs: 200 });
    const res = await fetch(url, { method: 'POST', body: rpc('SendStreamingMessage') });
    expect(await res.text()).toBe('data: {"n":1}\n\ndata: {"n":2}\n\n');
  });
});

describe('maxConnections', () => {
  it('answers 503 with Retry-After on a connection past the cap', async () => {
    const peer = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {}\n\n');
    });
    // The upstream's streams never end: the stop cuts them, with no grace.
    const { proc, out, url } = await record(peer, { maxConnections: 2, graceMs: 0 });
    const held: Socket[] = [];
    for (let i = 0; i < 2; i++) {
      held.push(
        await new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(url.port), url.hostname, () =>
            socket.write(`POST / HTTP/1.1\r\nHost: r\r\nContent-Length: 2\r\n\r\n{}`),
          );
          socket.once('data', () => resolve(socket));
          socket.on('error', reject);
        }),
      );
    }
    const body = rpc('ListTasks');
    const over = await raw(url, `POST / HTTP/1.1\r\nHost: r\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(over).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(over).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(bodyOf(over).error.message).toMatch(/at most 2 connections/);
    for (const socket of held) socket.destroy();
    const entries = await entriesOf(proc, out);
    expect(entries.filter((e) => e.kind === 'error').map((e) => e.error)).toContainEqual(
      expect.stringMatching(/at most 2 connections/),
    );
  });

  it('counts silent connections: a fourth past three silent ones gets 503, until they are closed', async () => {
    const peer = await upstream((_req, res) => res.end('{"jsonrpc":"2.0","id":7,"result":{}}'));
    const { url } = await record(peer, { maxConnections: 3, headersTimeoutMs: 500 });
    const silent = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<{ closed: Promise<void> }>((resolve, reject) => {
            const socket = connect(Number(url.port), url.hostname, () =>
              resolve({ closed: new Promise((done) => socket.once('close', () => done())) }),
            );
            socket.on('error', reject);
          }),
      ),
    );
    const body = rpc('ListTasks');
    const request = `POST / HTTP/1.1\r\nHost: r\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const over = await raw(url, request);
    expect(over).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(bodyOf(over).error.message).toMatch(/at most 3 connections/);
    // The recorder closes each silent connection after the headers time-out; then there is room.
    await Promise.all(silent.map((s) => s.closed));
    // Connection: close, so the answer ends with its socket, not at the keep-alive time-out.
    const last = request.replace('Host: r\r\n', 'Host: r\r\nConnection: close\r\n');
    expect(await raw(url, last)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });
});

/** One unary gRPC call of `bytes` on `client` to `path`; resolves with its status and details. */
function grpcCall(client: GrpcClient, path: string, bytes: Buffer): Promise<{ code: number; details: string }> {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (value: Buffer) => value,
      (value: Buffer) => value,
      bytes,
      metadata,
      (error) => resolve(error ? { code: error.code, details: error.details } : { code: status.OK, details: '' }),
    );
  });
}

/** An HTTP/1 connection to `url` holding an open answer of the upstream (it counts until destroyed). */
function holdConnection(url: URL): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () =>
      socket.write(`POST / HTTP/1.1\r\nHost: r\r\nContent-Length: 2\r\n\r\n{}`),
    );
    socket.once('data', () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('maxConnections counts gRPC connections', () => {
  const GET_TASK = '/lf.a2a.v1.A2AService/GetTask';
  // GetTaskRequest { id: "t-1" } (field 2, a string), encoded by hand.
  const getTask = Buffer.from([0x12, 0x03, 0x74, 0x2d, 0x31]);
  const clients: GrpcClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });
  const grpcClient = (url: URL): GrpcClient => {
    const client = new GrpcClient(url.host, credentials.createInsecure());
    clients.push(client);
    return client;
  };
  const sse = (_req: unknown, res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {}\n\n');
  };

  it('refuses a gRPC call on a connection past the cap with UNAVAILABLE saying so, and records it', async () => {
    const peer = await upstream(sse);
    // The upstream's stream never ends: the stop cuts it, with no grace.
    const { proc, out, url } = await record(peer, { maxConnections: 1, grpcUpstream: '127.0.0.1:1', graceMs: 0 });
    const held = await holdConnection(url);
    const refused = await grpcCall(grpcClient(url), GET_TASK, getTask);
    held.destroy();
    expect(refused.code).toBe(status.UNAVAILABLE);
    expect(refused.details).toMatch(/serves at most 1 connections at once/);
    const entries = await entriesOf(proc, out);
    const grpc = entries.filter((e) => e.grpc !== undefined);
    expect(grpc).toMatchObject([
      { kind: 'request', http: { path: GET_TASK }, body: { id: 't-1' } },
      {
        kind: 'error',
        grpc: { status: status.UNAVAILABLE },
        error: expect.stringMatching(/at most 1 connections/) as unknown,
      },
    ]);
    expect(proc.warnings.join('\n')).toMatch(/gRPC call refused: .*at most 1 connections/);
  });

  it('counts an open gRPC connection: an HTTP/1 request past the cap gets 503', async () => {
    const peer = await upstream((req, res) => {
      req.resume();
      res.end('{}');
    });
    const { proc, out, url } = await record(peer, { maxConnections: 1 });
    // A call the recorder answers itself (no such method): its connection stays open.
    const client = grpcClient(url);
    expect((await grpcCall(client, '/other.Service/Do', getTask)).code).toBe(status.UNIMPLEMENTED);
    const body = rpc('ListTasks');
    const over = await raw(url, `POST / HTTP/1.1\r\nHost: r\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(over).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(bodyOf(over).error.message).toMatch(/at most 1 connections/);
    client.close();
    const entries = await entriesOf(proc, out);
    expect(entries.filter((e) => e.kind === 'error').map((e) => e.error)).toContainEqual(
      expect.stringMatching(/at most 1 connections/),
    );
  });
});

describe('bodies', () => {
  // 50 MB through the recorder on a loaded 2-core machine can take a while: a generous deadline.
  it(
    'answers a 50 MB chunked body with a 413 the client reads, records the refusal, and keeps serving',
    { timeout: 180_000 },
    async () => {
      let forwarded = 0;
      const peer = await upstream((req, res) => {
        // The recorder fetches the agent card as it starts: only POSTs are forwarded calls.
        if (req.method === 'POST') forwarded++;
        req.resume();
        req.on('end', () => res.end('{"jsonrpc":"2.0","id":1,"result":{}}'));
      });
      const { proc, out, url } = await record(peer, { maxBodyBytes: 65536 });
      const answer = await postBig(url, 50 * 1024 * 1024, true);
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32600 } });
      expect(forwarded).toBe(0);
      const after = await fetch(url, { method: 'POST', body: rpc('ListTasks') });
      expect(after.status).toBe(200);
      const entries = await entriesOf(proc, out);
      expect(entries[1]?.error).toMatch(/over the recorder's limit of 65536 bytes/);
    },
  );

  it(
    'answers a client that writes a 50 MB chunked body before it reads with a 413 it reads',
    { timeout: 180_000 },
    async () => {
      const peer = await upstream((req, res) => {
        req.resume();
        req.on('end', () => res.end('{"jsonrpc":"2.0","id":1,"result":{}}'));
      });
      const { proc, out, url } = await record(peer, { maxBodyBytes: 65536 });
      const { got, uploadError } = await uploadThenRead(url, 50 * 1024 * 1024);
      expect(uploadError).toBeUndefined();
      expect(got).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
      expect(bodyOf(got).error.message).toMatch(/over the recorder's limit of 65536 bytes/);
      const entries = await entriesOf(proc, out);
      expect(entries.map((e) => e.kind)).toEqual(['request', 'error']);
    },
  );

  it('closes after drainTimeoutMs a connection whose over-limit body stops arriving, its 413 read', async () => {
    const peer = await upstream((_req, res) => res.end('{}'));
    const { url } = await record(peer, { maxBodyBytes: 1024, drainTimeoutMs: 200, requestTimeoutMs: 60000 });
    const got = await raw(
      url,
      'POST / HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
        `800\r\n${' '.repeat(0x800)}\r\n`,
    );
    expect(got).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(bodyOf(got).error.message).toMatch(/over the recorder's limit of 1024 bytes/);
  });

  it('passes an SSE event over maxBodyBytes to the client whole and records its first characters', async () => {
    const big = `{"n":"${'x'.repeat(3 * 65536)}"}`;
    const peer = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The big event in pieces, one of them a line that never ends inside a chunk.
      res.write('data: {"n":1}\n\ndata: ');
      for (let at = 0; at < big.length; at += 10_000) res.write(big.slice(at, at + 10_000));
      res.end('\n\ndata: {"n":3}\n\n');
    });
    const { proc, out, url } = await record(peer, { maxBodyBytes: 65536 });
    const res = await fetch(url, { method: 'POST', body: rpc('SendStreamingMessage') });
    expect(await res.text()).toBe(`data: {"n":1}\n\ndata: ${big}\n\ndata: {"n":3}\n\n`);
    const events = (await entriesOf(proc, out)).filter((e) => e.kind === 'event');
    expect(events.map((e) => e.body ?? e.bodyText?.length)).toEqual([{ n: 1 }, 65536, { n: 3 }]);
    expect(events[1]?.bodyText).toBe(big.slice(0, 65536));
  });

  it('passes a gzip answer to the client untouched and records it decoded', async () => {
    const json = { jsonrpc: '2.0', id: 7, result: { artifacts: ['a', 'b'] } };
    const compressed = gzipSync(JSON.stringify(json));
    const peer = await upstream((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': compressed.length,
      });
      res.end(compressed);
    });
    const { proc, out, url } = await record(peer);
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(`GET /x HTTP/1.1\r\nHost: r\r\nConnection: close\r\n\r\n`),
      );
      const chunks: Buffer[] = [];
      socket.on('data', (d: Buffer) => chunks.push(d));
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
    });
    const head = bytes.subarray(0, bytes.indexOf('\r\n\r\n') + 4).toString('latin1');
    expect(head).toMatch(/content-encoding: gzip/i);
    expect(bytes.subarray(head.length).equals(compressed)).toBe(true);
    const entries = await entriesOf(proc, out);
    const response = entries.find((e) => e.kind === 'response');
    expect(response?.body).toEqual(json);
    expect(response?.http.headers?.['content-encoding']).toBe('gzip');
    const text = await readFile(out, 'utf8');
    for (const magic of ['\\u001f\\u008b', '\u001f\u008b']) expect(text).not.toContain(magic);
  });

  it.each([
    ['br', brotliCompressSync(Buffer.from('{"ok":true}')), /^$/],
    [
      'gzip',
      Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad]),
      /not valid data of that encoding; sha256:[0-9a-f]{64}\]$/,
    ],
    ['zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00]), /an encoding the recorder does not decode/],
  ])('records a %s answer decoded, or says why not, never as binary text', async (encoding, bytes, why) => {
    const peer = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(bytes);
    });
    const { proc, out, url } = await record(peer);
    const res = await fetch(url, { headers: { 'accept-encoding': 'identity' } }).catch(() => undefined);
    await res?.arrayBuffer().catch(() => undefined);
    const response = (await entriesOf(proc, out)).find((e) => e.kind === 'response');
    if (encoding === 'br') expect(response?.body).toEqual({ ok: true });
    else expect(response?.bodyText).toMatch(why);
    // Compressed bytes read as UTF-8 would bring control characters or U+FFFD.
    expect([...(response?.bodyText ?? '')].some((ch) => ch.charCodeAt(0) < 0x09 || ch === '\ufffd')).toBe(false);
  });
});

describe("the recorder's own answers on an HTTP+JSON route", () => {
  /** The body of an HTTP+JSON error answer, read from raw bytes. */
  const restBodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;
  const restError = (code: number, status: string, reason: string, message: RegExp | string) => ({
    error: {
      code,
      status,
      message: typeof message === 'string' ? message : (expect.stringMatching(message) as unknown),
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }],
    },
  });

  it('answers 504 as an HTTP+JSON error the SDK REST client reads, naming the upstream', async () => {
    const silent = await upstream(() => undefined);
    // The answer is read on after the 504 for followMs, which a stop waits for too: short here.
    const { proc, out, url } = await record(silent, { upstreamTimeoutMs: 200, followMs: 300 });
    const why = `upstream ${silent} sent no response within 200 ms`;
    const res = await fetch(new URL('/rest/tasks/t-1', url));
    expect(res.status).toBe(504);
    const body = (await res.json()) as { error: { details: { metadata?: unknown }[] } };
    expect(body).toMatchObject(restError(504, 'INTERNAL', 'INTERNAL', why));
    expect(body.error.details[0]?.metadata).toEqual({ upstream: silent });
    expect(body).not.toHaveProperty('jsonrpc');
    expect(readRestError(body)).toEqual({ code: -32603, reason: 'INTERNAL', message: why });

    const transport = await new RestTransportFactory().create(new URL('/rest', url).href, {} as AgentCard);
    const failure = await transport.getTask({ id: 't-2', tenant: '' } as Parameters<typeof transport.getTask>[0]).then(
      () => undefined,
      (error: unknown) => error as { message: string; statusCode: number },
    );
    expect(failure?.message).toBe(why);
    expect(failure?.statusCode).toBe(504);
    const entries = await entriesOf(proc, out);
    expect(entries.filter((e) => e.kind === 'error').map((e) => e.http.path)).toEqual([
      '/rest/tasks/t-1',
      '/rest/tasks/t-2',
    ]);
  });

  it('answers 408 for a body that does not arrive in time in the binding of the target it read', async () => {
    const peer = await upstream((_req, res) => res.end('{}'));
    const { url } = await record(peer, { requestTimeoutMs: 300, headersTimeoutMs: 200 });
    const got = await raw(
      url,
      'POST /rest/message:send HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"m',
    );
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(restBodyOf(got)).toMatchObject(
      restError(408, 'INVALID_ARGUMENT', 'INVALID_REQUEST', /the whole request within 300 ms/),
    );
  });

  it('answers 503 past the cap as an HTTP+JSON error on a route, with Retry-After', async () => {
    const peer = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {}\n\n');
    });
    const { url } = await record(peer, { maxConnections: 1 });
    const held = await new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(`POST / HTTP/1.1\r\nHost: r\r\nContent-Length: 2\r\n\r\n{}`),
      );
      socket.once('data', () => resolve(socket));
      socket.on('error', reject);
    });
    const over = await raw(url, 'GET /a2a/rest/tasks?pageSize=1 HTTP/1.1\r\nHost: r\r\n\r\n');
    held.destroy();
    expect(over).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(over).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(restBodyOf(over)).toMatchObject(restError(503, 'INTERNAL', 'INTERNAL', /at most 1 connections/));
  });

  it('answers 413 as an HTTP+JSON error on a route and as JSON-RPC elsewhere', async () => {
    const peer = await upstream((req, res) => {
      req.resume();
      res.end('{}');
    });
    const { url } = await record(peer, { maxBodyBytes: 1024 });
    const big = JSON.stringify({ message: { parts: [{ text: 'x'.repeat(5000) }] } });
    const send = (path: string) =>
      fetch(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    const rest = await send('/rest/message:send');
    expect(rest.status).toBe(413);
    expect(await rest.json()).toMatchObject(
      restError(413, 'INVALID_ARGUMENT', 'INVALID_REQUEST', /over the recorder's limit of 1024 bytes/),
    );
    const rpcAnswer = await send('/');
    expect(rpcAnswer.status).toBe(413);
    expect(await rpcAnswer.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });
});
