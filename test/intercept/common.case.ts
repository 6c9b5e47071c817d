/**
 * The recorder behaviour suite: every interceptor (proxy, fetch wrapper, middleware) must record
 * the same traffic as the same entries, byte for byte.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RESPONSE_CUT_MESSAGE } from '../../src/intercept/exchange-recorder.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { type Handler, type Harness, type HarnessFactory, testMark } from './harness.js';

/** Headers a test client sends explicitly, so no fetch default differs between adapters. */
const CLIENT_HEADERS = {
  accept: 'application/json, text/event-stream',
  'accept-encoding': 'identity',
  'accept-language': 'en',
  'user-agent': 'suite/1',
  'a2a-version': '1.0',
};

function post(body: unknown, extra: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { ...CLIENT_HEADERS, 'content-type': 'application/json', ...extra },
    body: JSON.stringify(body),
  };
}

const jwt = (claims: object): string =>
  `${Buffer.from('{"alg":"none"}').toString('base64url')}.` +
  `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const unaryHandler: Handler = (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string };
    res.setHeader('content-type', 'application/json');
    res.setHeader('set-cookie', ['session=abc', 'theme=dark']);
    res.writeHead(200, { 'x-peer': 'unit' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { echoed: call.method } }));
  });
};

const sseHandler: Handler = (req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const frames = [
      'data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1"}}}\n\n',
      ': keep-alive comment\r\n',
      'event: status\r\nid: 2\r\ndata: {"jsonrpc":"2.0",\r\ndata: ' +
        '"id":1,"result":{"statusUpdate":{"taskId":"t1"}}}\r\n\r\n',
      'data: not json',
      '\n\n',
    ];
    void (async () => {
      for (const frame of frames) {
        res.write(frame);
        await tick();
      }
      res.end();
    })();
  });
};

export function recorderSuite(name: string, start: HarnessFactory): void {
  describe(`recorder behaviour: ${name}`, () => {
    let harness: Harness | undefined;
    afterEach(async () => {
      await harness?.close();
      harness = undefined;
    });

    it('records a unary JSON-RPC exchange as one request and one response entry', async () => {
      harness = await start(unaryHandler);
      const res = await harness.fetch(
        '/rpc?tenant=a',
        post({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't1' } }),
      );
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { echoed: 'GetTask' } });
      const entries = await harness.settled();
      expect(entries).toEqual<RecordingEntry[]>([
        {
          seq: 1,
          at: '2026-01-02T03:04:05.000Z',
          xid: entries[0]?.xid ?? '',
          kind: 'request',
          http: {
            method: 'POST',
            path: '/rpc?tenant=a',
            headers: { ...CLIENT_HEADERS, 'content-type': 'application/json' },
          },
          body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't1' } },
        },
        {
          seq: 2,
          at: '2026-01-02T03:04:05.000Z',
          xid: entries[0]?.xid ?? '',
          kind: 'response',
          http: {
            method: 'POST',
            path: '/rpc?tenant=a',
            status: 200,
            headers: {
              'content-type': 'application/json',
              'set-cookie': testMark('session=abc, theme=dark'),
              'x-peer': 'unit',
            },
          },
          body: { jsonrpc: '2.0', id: 1, result: { echoed: 'GetTask' } },
        },
      ]);
      expect(entries[0]?.xid).toMatch(/^x-[0-9a-f]{8}-0001$/);
    });

    it('takes the principal from a bearer JWT, then redacts the credentials', async () => {
      harness = await start(unaryHandler);
      const token = jwt({ sub: 'alice' });
      await harness.fetch(
        '/',
        post(
          { jsonrpc: '2.0', id: 2, method: 'GetTask' },
          { authorization: `Bearer ${token}`, cookie: 'k=v', 'x-api-key': 'secret' },
        ),
      );
      const [request] = await harness.settled();
      expect(request?.principal).toBe('jwt:sub=alice');
      expect(request?.http.headers).toMatchObject({
        authorization: testMark(`Bearer ${token}`),
        cookie: testMark('k=v'),
        'x-api-key': testMark('secret'),
      });
      expect(await harness.text()).not.toContain(token);
    });

    it('records an SSE response as a head, one entry per event, and end', async () => {
      harness = await start(sseHandler);
      const res = await harness.fetch('/rpc', post({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage' }));
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      const text = await res.text();
      expect(text).toContain('data: not json');
      const entries = await harness.settled();
      expect(entries.map((e) => e.kind)).toEqual(['request', 'response', 'event', 'event', 'event', 'end']);
      expect(entries[1]).toMatchObject({
        http: { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } },
      });
      expect(entries[1]).not.toHaveProperty('body');
      expect(entries[2]).toMatchObject({ body: { jsonrpc: '2.0', id: 1, result: { task: { id: 't1' } } } });
      expect(entries[2]).not.toHaveProperty('sse');
      expect(entries[3]).toMatchObject({
        sse: { event: 'status', id: '2' },
        body: { result: { statusUpdate: { taskId: 't1' } } },
      });
      expect(entries[4]).toMatchObject({ bodyText: 'not json' });
      expect(entries[5]).toEqual({
        seq: 6,
        at: entries[5]?.at,
        xid: entries[0]?.xid,
        kind: 'end',
        http: { method: 'POST', path: '/rpc' },
      });
    });

    it('records a stream the upstream cuts off with an error entry after the events it sent', async () => {
      harness = await start((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: {"n":1}\n\n', () => setImmediate(() => res.socket?.destroy()));
        });
      });
      const res = await harness.fetch('/rpc', post({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask' }));
      await expect(res.text()).rejects.toThrow();
      const entries = await harness.settled();
      expect(entries.map((e) => e.kind)).toEqual(['request', 'response', 'event', 'error']);
      expect(entries[3]?.error).toBe(RESPONSE_CUT_MESSAGE);
    });

    it('passes an upstream HTTP error through and records it as the response', async () => {
      harness = await start((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}');
        });
      });
      const res = await harness.fetch('/rpc', post({ jsonrpc: '2.0', id: 1, method: 'GetTask' }));
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } });
      const entries = await harness.settled();
      expect(entries[1]).toMatchObject({ kind: 'response', http: { status: 500 }, body: { error: { code: -32603 } } });
    });

    it('keeps a body that is not JSON as bodyText and records GETs without a body', async () => {
      harness = await start((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('plain words');
      });
      const res = await harness.fetch('/.well-known/agent-card.json', { headers: CLIENT_HEADERS });
      expect(await res.text()).toBe('plain words');
      const entries = await harness.settled();
      expect(entries[0]).toEqual({
        seq: 1,
        at: entries[0]?.at,
        xid: entries[0]?.xid,
        kind: 'request',
        http: { method: 'GET', path: '/.well-known/agent-card.json', headers: CLIENT_HEADERS },
      });
      expect(entries[1]).toMatchObject({ kind: 'response', bodyText: 'plain words' });
    });

    it('writes the same recording text for the same session', async () => {
      harness = await start(unaryHandler);
      for (const id of [1, 2, 3])
        await (await harness.fetch('/', post({ jsonrpc: '2.0', id, method: 'GetTask' }))).text();
      await harness.settled();
      const text = await harness.text();
      const lines = text.trimEnd().split('\n');
      expect(lines).toHaveLength(7);
      expect(JSON.parse(lines[0] ?? '')).toMatchObject({
        type: 'recording',
        version: 1,
        id: expect.stringMatching(/^rec-/) as unknown,
      });
      // One file shared by the three adapters: they must write exactly these entry lines.
      await expect(lines.slice(1).join('\n')).toMatchFileSnapshot('./__snapshots__/same-session.entries.jsonl');
    });
  });
}
