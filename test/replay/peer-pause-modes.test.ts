/**
 * The three caller-pause golden scenarios tell the pause modes apart: the replay `run --peer`
 * makes (`replayRecordings`, rendered as `run` prints it: test/helpers/run-report.ts) passes each
 * against the reference peer, and against a peer that treats every pause as `finish_step` it
 * passes only the `finish_step` one. The mode-ignoring peer is the real reference peer behind a
 * small forwarding proxy that rewrites PauseTask's `mode` (and its agent card's URL), streams
 * included.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import { ROOT } from '../helpers/cli.js';
import { replayReport } from '../helpers/run-report.js';

const GOLDEN = join(ROOT, 'golden');
const KEY = join(GOLDEN, 'test-key.json');

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** Rewrites a JSON-RPC PauseTask body to `finish_step`; any other body passes as it is. */
function ignoringMode(body: Buffer): Buffer {
  try {
    const call = JSON.parse(body.toString('utf8')) as { method?: unknown; params?: Record<string, unknown> };
    if (call.method !== 'PauseTask' || call.params === undefined) return body;
    call.params.mode = 'finish_step';
    return Buffer.from(JSON.stringify(call));
  } catch {
    return body;
  }
}

/** The reference peer behind a proxy that makes it treat every pause as finish_step. */
async function modeIgnoringPeer(): Promise<string> {
  const peer: RunningPeer = await startPeer({ deterministic: true, a2aVersion: '1.0' });
  open.push(peer);
  const upstream = new URL(peer.url);
  let self = '';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = ignoringMode(Buffer.concat(chunks));
      const headers = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (answer) => {
          if (req.url?.startsWith('/.well-known/agent-card.json')) {
            const parts: Buffer[] = [];
            answer.on('data', (c: Buffer) => parts.push(c));
            answer.on('end', () => {
              const card = Buffer.concat(parts).toString('utf8').split(peer.url).join(self);
              res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
              res.end(card);
            });
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  return self;
}

const recording = (name: string): string => join(GOLDEN, name, 'recording.jsonl');

// The golden scenarios were recorded against a peer serving A2A 1.0 alone: a peer serving both
// dialects (the default) shows another card, which run reports as drift naming a2aVersion.
describe('the caller-pause golden scenarios', () => {
  it.each(['caller-pause-finish-step', 'caller-pause-interrupt-immediate', 'caller-pause-wait-for-completion'])(
    '%s passes against the reference peer',
    async (name) => {
      const peer = await startPeer({ deterministic: true, a2aVersion: '1.0' });
      open.push(peer);
      const r = await replayReport([recording(name)], { key: KEY, peer: peer.url });
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout).toMatch(/^PASS /m);
    },
  );

  it('caller-pause-finish-step passes against a peer that treats every pause as finish_step', async () => {
    const url = await modeIgnoringPeer();
    const r = await replayReport([recording('caller-pause-finish-step')], { key: KEY, peer: url });
    expect(r.code, r.stdout).toBe(0);
  });

  it.each(['caller-pause-interrupt-immediate', 'caller-pause-wait-for-completion'])(
    '%s fails (exit 1) against a peer that treats every pause as finish_step',
    async (name) => {
      const url = await modeIgnoringPeer();
      const r = await replayReport([recording(name)], { key: KEY, peer: url, timeoutMs: 1000 });
      expect(r.code, r.stdout).toBe(1);
      expect(r.stdout).toMatch(/^(DRIFT|FAIL) /m);
    },
  );
});
