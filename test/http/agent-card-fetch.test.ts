/**
 * fetchAgentCard (src/http/agent-card-fetch.ts), the card `record` keeps in a recording's header and
 * `run` compares with the live peer's: the reference peer's card over a real socket, and a server of
 * the test's own for what a peer you did not write may do (redirects, credentials, errors, a body
 * that is not JSON, one cut short, an answer that never comes).
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, expect, it } from 'vitest';
import { MAX_REDIRECTS, fetchAgentCard } from '../../src/http/agent-card-fetch.js';
import { startPeer } from '../../src/public/peer.js';

const CARD_PATH = '/.well-known/agent-card.json';
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server on 127.0.0.1 answering with `handle`; its base URL. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const card = { name: 'test agent', version: '1.0.0' };

function sendCard(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
}

it("reads the reference peer's card under its base path", async () => {
  const peer = await startPeer({ deterministic: true });
  try {
    const got = (await fetchAgentCard(peer.url)) as { name?: unknown; supportedInterfaces?: unknown };
    expect(typeof got.name).toBe('string');
    expect(Array.isArray(got.supportedInterfaces)).toBe(true);
  } finally {
    await peer.close();
  }
});

it("asks under the base URL's path and sends its credentials as Basic auth, not in the URL", async () => {
  const seen: { url?: string | undefined; authorization?: string | undefined } = {};
  const base = await serve((req, res) => {
    seen.url = req.url;
    seen.authorization = req.headers.authorization;
    sendCard(res);
  });
  const withUser = base.replace('http://', 'http://ann:s%3Acret@');
  expect(await fetchAgentCard(`${withUser}/a2a/`)).toEqual(card);
  expect(seen).toEqual({
    url: `/a2a${CARD_PATH}`,
    authorization: `Basic ${Buffer.from('ann:s:cret').toString('base64')}`,
  });
});

it('follows redirects, and drops the credentials when one leads to another origin', async () => {
  const seen: (string | undefined)[] = [];
  const other = await serve((req, res) => {
    seen.push(req.headers.authorization);
    sendCard(res);
  });
  const base = await serve((req, res) => {
    seen.push(req.headers.authorization);
    if (req.url === CARD_PATH) res.writeHead(301, { location: '/moved' }).end();
    else if (req.url === '/moved') res.writeHead(307, { location: `${other}/card` }).end();
    else res.writeHead(404).end();
  });
  expect(await fetchAgentCard(base.replace('http://', 'http://ann:pw@'))).toEqual(card);
  const basic = `Basic ${Buffer.from('ann:pw').toString('base64')}`;
  expect(seen).toEqual([basic, basic, undefined]);
});

it(`gives no card past ${MAX_REDIRECTS} redirects, or for a redirect out of HTTP`, async () => {
  let hops = 0;
  const loop = await serve((_req, res) => {
    hops++;
    res.writeHead(302, { location: `/hop-${hops}` }).end();
  });
  expect(await fetchAgentCard(loop)).toBeUndefined();
  expect(hops).toBe(MAX_REDIRECTS + 1);
  const away = await serve((_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
  expect(await fetchAgentCard(away)).toBeUndefined();
});

it('gives no card for an error status, a body that is not JSON, or a body cut short', async () => {
  const missing = await serve((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{}'));
  expect(await fetchAgentCard(missing)).toBeUndefined();
  const html = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));
  expect(await fetchAgentCard(html)).toBeUndefined();
  const cut = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"name":');
    req.socket.destroy();
  });
  expect(await fetchAgentCard(cut)).toBeUndefined();
});

it('gives no card when no answer comes before the deadline, or nothing listens', async () => {
  const silent = await serve(() => undefined);
  expect(await fetchAgentCard(silent, { timeoutMs: 50 })).toBeUndefined();
  const gone = await serve(() => undefined);
  const server = servers.pop() as Server;
  await new Promise((resolve) => server.close(resolve));
  expect(await fetchAgentCard(gone)).toBeUndefined();
});

it('reads a card a server compressed unasked (gzip, deflate, br), and none in a coding it cannot read', async () => {
  const text = Buffer.from(JSON.stringify(card));
  const coded: Record<string, Buffer> = {
    gzip: gzipSync(text),
    deflate: deflateSync(text),
    br: brotliCompressSync(text),
    zstd: text,
  };
  const base = await serve((req, res) => {
    const coding = req.url!.split('/')[1]!;
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding }).end(coded[coding]);
  });
  for (const coding of ['gzip', 'deflate', 'br'])
    expect(await fetchAgentCard(`${base}/${coding}`), coding).toEqual(card);
  expect(await fetchAgentCard(`${base}/zstd`)).toBeUndefined();
});
