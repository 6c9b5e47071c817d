/**
 * Every JSON-RPC error the peer sends, from real requests, and its robustness against bad input.
 */
import { describe, expect, it } from 'vitest';
import { REFERENCE_PEER_EXTENSION_URI, referencePeerSettingsOf } from '../../src/peer/agent-card.js';
import { startPeer } from '../../src/peer/start-peer.js';
import { type AgentCard, PAUSE_EXTENSION_URI } from '../../src/protocol/types.js';
import { PeerClient, peerPerTest, type RpcReply, message } from './peer-client.js';

let c: PeerClient;
peerPerTest((client) => (c = client), { deterministic: true, bodyLimitBytes: 4096 });

function errorOf(json: unknown): NonNullable<RpcReply['error']> {
  return (json as RpcReply).error!;
}

describe('JSON-RPC errors', () => {
  it('answers an unparsable body with -32700 and id null', async () => {
    const r = await c.post('/', '{"jsonrpc": "2.0", "id": 1,');
    expect(r.status).toBe(200);
    expect(errorOf(r.json).code).toBe(-32700);
    expect((r.json as RpcReply).id).toBeNull();
    expect(errorOf(r.json).data?.[0]?.reason).toBe('PARSE_ERROR');
  });

  it.each([
    ['a non-object', '42'],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]'],
    ['a wrong jsonrpc version', '{"jsonrpc":"1.0","id":1,"method":"GetTask"}'],
    ['a response', '{"jsonrpc":"2.0","id":1,"result":{}}'],
    ['a notification', '{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"}}'],
    ['scalar params', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":3}'],
  ])('answers %s with -32600', async (_name, body) => {
    const r = await c.post('/', body);
    expect(errorOf(r.json).code).toBe(-32600);
    expect(errorOf(r.json).data?.[0]?.reason).toBe('INVALID_REQUEST');
  });

  it('answers an unknown method with -32601', async () => {
    const r = await c.call('tasks/get', { id: 'x' });
    expect(r.error?.code).toBe(-32601);
    expect(r.error?.message).toMatch(/tasks\/get/);
  });

  it('answers a control method on / and an A2A method on /control with -32601', async () => {
    expect((await c.call('AdvanceClock', { ms: 1 })).error?.message).toMatch(/POST it to \/control/);
    expect((await c.call('GetTask', { id: 'x' }, '/control')).error?.code).toBe(-32601);
  });

  it.each([
    ['PauseTask', { taskId: 't', mode: 'later' }, 'params.mode'],
    ['PauseTask', {}, 'params.taskId'],
    ['ResumeTask', { taskId: 't' }, 'params.resumeToken'],
    ['AwaitTaskResumption', { taskId: 't', conditions: { onEvent: 'x', when: 1 } }, 'params.conditions.when'],
    [
      'AwaitTaskResumption',
      { taskId: 't', conditions: { timeout: { durationMinutes: 0, onTimeout: 'fail' } } },
      'params.conditions.timeout.durationMinutes',
    ],
    [
      'AwaitTaskResumption',
      { taskId: 't', conditions: { timeout: { durationMinutes: 5, onTimeout: 'explode' } } },
      'params.conditions.timeout.onTimeout',
    ],
    [
      'AwaitTaskResumption',
      { taskId: 't', conditions: { trigger: { at: 'tomorrow' } } },
      'params.conditions.trigger.at',
    ],
    ['SendMessage', { message: { role: 'ROLE_USER', parts: [] } }, 'params.message.messageId'],
  ])('answers bad %s params with -32602 naming %j', async (method, params, field) => {
    const r = await c.call(method, params);
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message.startsWith(`${field}:`)).toBe(true);
    expect(r.error?.data?.[0]?.reason).toBe('INVALID_PARAMS');
  });

  it.each([
    ['work:x', /directive 1 of 1, "work:x"/],
    ['work:1 await:', /directive 2 of 2, "await:"/],
    ['await:ev:0', /MINUTES an integer from 1 to 525600/],
    ['await:ev:5:maybe', /"fail" or "resume"/],
    ['sleep-until:noon', /RFC 3339/],
  ])('answers the malformed script %j with -32602 naming the part', async (script, why) => {
    const r = await c.call('SendMessage', { message: message(script) });
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message).toMatch(/^params\.message\.parts\[0\]\.text: /);
    expect(r.error?.message).toMatch(why);
  });

  it('treats text that is not a script as work:3', async () => {
    const task = await c.start('hello there, agent');
    await c.advance(3000);
    expect((await c.getTask(task.id)).artifacts).toHaveLength(3);
  });

  it('answers a request without A2A-Version with -32009', async () => {
    const r = await c.post('/', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } }), {
      'Content-Type': 'application/json',
    });
    expect(errorOf(r.json).code).toBe(-32009);
    expect(errorOf(r.json).data?.[0]?.reason).toBe('VERSION_NOT_SUPPORTED');
    expect((r.json as RpcReply).id).toBe(7);
  });

  it('accepts the version as a query parameter', async () => {
    const r = await c.post(
      '/?A2A-Version=1.0',
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ListTasks', params: {} }),
      {
        'Content-Type': 'application/json',
      },
    );
    expect((r.json as RpcReply).result).toBeDefined();
  });

  it('refuses a body over the limit with HTTP 413 and -32600 naming the limit', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: message('x'.repeat(10_000)) },
    });
    const r = await c.post('/', big);
    expect(r.status).toBe(413);
    expect(errorOf(r.json).code).toBe(-32600);
    expect(errorOf(r.json).message).toMatch(/4096-byte limit/);
    expect((await c.call('ListTasks', {})).result).toBeDefined();
  });

  it('refuses a body nesting deeper than 128 levels with -32600 and loses nothing', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const big = await startPeer({ deterministic: true });
    try {
      const bc = new PeerClient(big.url);
      const r = await bc.post(
        '/',
        `{"jsonrpc":"2.0","id":3,"method":"ResumeTask","params":{"taskId":"t","resumeToken":"x","input":${deep}}}`,
      );
      expect(errorOf(r.json).code).toBe(-32600);
      expect(errorOf(r.json).message).toMatch(/deeper than 128 levels/);
      expect((await bc.call('ListTasks', {})).result).toMatchObject({ totalSize: 0 });
    } finally {
      await big.close();
    }
  });

  it('answers push-notification methods with -32003 and GetExtendedAgentCard with -32004', async () => {
    expect((await c.call('CreateTaskPushNotificationConfig', { taskId: 't', url: 'http://x' })).error?.code).toBe(
      -32003,
    );
    expect((await c.call('GetExtendedAgentCard')).error?.code).toBe(-32004);
  });

  it('answers an unknown path with 404 JSON and a wrong HTTP method with 405', async () => {
    const r = await fetch(`${c.url}/nowhere`);
    expect(r.status).toBe(404);
    expect(((await r.json()) as RpcReply).error?.message).toMatch(/no endpoint/);
    const g = await fetch(`${c.url}/`);
    expect(g.status).toBe(405);
  });

  it('survives garbage of every shape and keeps answering', async () => {
    const bodies = [
      '',
      'null',
      '"x"',
      '{}',
      '{"jsonrpc":"2.0","id":{},"method":"GetTask"}',
      '{"jsonrpc":"2.0","id":1,"method":""}',
      '{"jsonrpc":"2.0","id":1,"method":"SendMessage",' +
        '"params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{}]}}}',
      '{"jsonrpc":"2.0","id":1,"method":"SendMessage",' +
        '"params":{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"work:1"}]}}}',
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageToken":"zzz"}}',
      '{"jsonrpc":"2.0","id":1,"method":"ResumeTask",' +
        '"params":{"taskId":"t","resumeToken":"a","continueTranscript":"yes"}}',
      '\u0000\u0001\u0002',
      '{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}',
    ];
    for (const body of bodies) {
      const r = await c.post('/', body);
      expect(r.status).toBe(200);
      expect(typeof errorOf(r.json).code).toBe('number');
    }
    expect((await c.call('ListTasks', {})).result).toBeDefined();
  });
});

describe('agent card and control channel', () => {
  it('serves the agent card with the bound URL and the pause capabilities', async () => {
    const card = (await (await fetch(`${c.url}/.well-known/agent-card.json`)).json()) as AgentCard;
    expect(card.supportedInterfaces[0]).toEqual({ url: c.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card.capabilities).toMatchObject({
      streaming: true,
      supportsPause: true,
      supportsAwaitResumption: true,
      resumeCauses: ['explicit_resume', 'condition_fired', 'timeout', 'external_event'],
    });
    expect(card.capabilities.extensions?.map((e) => e.uri)).toEqual([
      PAUSE_EXTENSION_URI,
      REFERENCE_PEER_EXTENSION_URI,
    ]);
    expect(referencePeerSettingsOf(card)).toEqual({
      a2aVersion: 'both',
      deterministic: true,
      seed: 0,
      stepMs: 1000,
      legacyPause: false,
    });
  });

  it('declares the settings a replay needs, so an identical peer can be started from a recorded card', async () => {
    const other = await startPeer({ seed: 7, stepMs: 250, legacyPause: true });
    try {
      const card = (await (await fetch(`${other.url}/.well-known/agent-card.json`)).json()) as unknown;
      expect(referencePeerSettingsOf(card)).toEqual({
        a2aVersion: 'both',
        deterministic: false,
        seed: 7,
        stepMs: 250,
        legacyPause: true,
      });
      expect(
        referencePeerSettingsOf({
          capabilities: { extensions: [{ uri: REFERENCE_PEER_EXTENSION_URI, params: { seed: 'x' } }] },
        }),
      ).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('answers /control with 404 unless enabled, and AdvanceClock with -32004 on the real clock', async () => {
    const real = await startPeer();
    const withControl = await startPeer({ control: true });
    try {
      const r = await new PeerClient(real.url).post(
        '/control',
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetClock' }),
      );
      expect(r.status).toBe(404);
      const wc = new PeerClient(withControl.url);
      expect((await wc.call('AdvanceClock', { ms: 5 }, '/control')).error?.code).toBe(-32004);
      expect((await wc.call<{ resumed: string[] }>('FireEvent', { name: 'x' }, '/control')).result).toEqual({
        resumed: [],
      });
    } finally {
      await real.close();
      await withControl.close();
    }
  });

  it('answers bad AdvanceClock params with -32602', async () => {
    expect((await c.call('AdvanceClock', { ms: -1 }, '/control')).error?.message).toMatch(/^params\.ms:/);
  });

  it('starts the virtual clock at 2026-01-01T00:00:00.000Z', async () => {
    expect(await c.control('GetClock')).toEqual({ now: '2026-01-01T00:00:00.000Z' });
  });
});
