/**
 * callPeer (src/http/peer-call.ts), the call `a2a-replay client` makes, against the reference peer
 * over real sockets: a task sent and read over JSON-RPC and HTTP+JSON, the clock moved on /control,
 * a refusal as the peer's error, an unreachable peer and an answer that is not A2A as their errors.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { callPeer, startPeer } from '../../src/public/peer.js';

const send = {
  method: 'SendMessage',
  params: {
    message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    configuration: { returnImmediately: true },
  },
  control: false,
};

it('calls the peer over JSON-RPC, HTTP+JSON and /control, and returns its refusals', async () => {
  const peer = await startPeer({ deterministic: true, control: true });
  try {
    const sent = await callPeer(peer.url, send);
    expect(sent.ok).toBe(true);
    const id = (sent as { result: { task: { id: string } } }).result.task.id;
    const rest = await callPeer(
      peer.restUrl,
      { method: 'GetTask', params: { id }, control: false },
      { binding: 'rest' },
    );
    expect(rest).toMatchObject({ ok: true, result: { id } });
    const clock = await callPeer(peer.url, { method: 'AdvanceClock', params: { ms: 1000 }, control: true });
    expect(clock.ok).toBe(true);
    expect(typeof (clock as { result: { now: unknown } }).result.now).toBe('string');
    const refused = await callPeer(peer.url, { method: 'GetTask', params: { id: 'no-such-task' }, control: false });
    expect(refused.ok).toBe(false);
    expect(typeof (refused as { code: unknown }).code).toBe('number');
  } finally {
    await peer.close();
  }
});

it('says PEER_UNREACHABLE for a peer not answering, PROTOCOL_INVALID for an answer not A2A', async () => {
  await expect(callPeer('http://127.0.0.1:1/', send)).rejects.toMatchObject({ code: 'PEER_UNREACHABLE' });
  const server = createServer((_req, res) => res.end('<html>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await expect(callPeer(url, send)).rejects.toMatchObject({ code: 'PROTOCOL_INVALID' });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
