/**
 * A2A v0.3 end to end with real processes (docs/design.md §8, §13): the stock `@a2a-js/sdk` 0.3.14
 * client, over JSON-RPC and over HTTP+JSON, drives a stock 0.3.14 agent that gates a tool call on
 * approval (test/fixtures/sdk-approval-peer.ts) through `a2a-replay record`: it streams the ask,
 * approves the call the agent proposed, reads the task, and asks for a task that does not exist.
 * `run --peer` of that recording against the same agent passes — the approval carries the call id
 * the live agent minted — and `mock` of it serves the same client what it got through the recorder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from 'a2a-sdk-v03';
import { JsonRpcTransport, RestTransport, type Transport } from 'a2a-sdk-v03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { startRecordProcess, stopProcess, startMockProcess } from '../helpers/cli-process.js';
import { REST_PATH, RPC_PATH, startSdkApprovalPeer } from '../fixtures/sdk-approval-peer.js';

type Binding = 'JSONRPC' | 'HTTP+JSON';

const KEY = join(ROOT, 'golden', 'test-key.json');

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-run-mock-v03-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function transportAt(base: string, binding: Binding): Transport {
  return binding === 'JSONRPC'
    ? new JsonRpcTransport({ endpoint: `${base}${RPC_PATH}` })
    : new RestTransport({ endpoint: `${base}${REST_PATH}` });
}

/** One approval session as the client sees it: every answer and event, and the error of a missing task. */
async function approvalSession(client: Transport): Promise<unknown[]> {
  const seen: unknown[] = [];
  const ask: Message = { kind: 'message', messageId: 'm-ask', role: 'user', parts: [{ kind: 'text', text: 'deploy' }] };
  for await (const event of client.sendMessageStream({ message: ask })) seen.push(event);
  const proposal = JSON.stringify(seen).match(/"callId":"([^"]+)"/);
  const task = seen[0] as { id: string; contextId: string };
  const approval: Message = {
    kind: 'message',
    messageId: 'm-ok',
    role: 'user',
    taskId: task.id,
    contextId: task.contextId,
    parts: [{ kind: 'data', data: { callId: proposal?.[1] ?? '', outcome: 'approved' } }],
  };
  seen.push(await client.sendMessage({ message: approval }));
  seen.push(await client.getTask({ id: task.id }));
  seen.push(await client.getTask({ id: 'no-such-task' }).catch((error: unknown) => (error as Error).name));
  return seen;
}

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('the stock 0.3.14 client and agent over %s', (binding) => {
  let recording = '';
  let recorded: unknown[] = [];

  beforeAll(async () => {
    recording = join(dir, `${binding === 'JSONRPC' ? 'jsonrpc' : 'rest'}.jsonl`);
    const agent = await startSdkApprovalPeer({ dialect: '0.3' });
    try {
      const recorder = await startRecordProcess(['--upstream', agent.url, '--out', recording, '--key', KEY]);
      try {
        recorded = await approvalSession(transportAt(recorder.url, binding));
      } finally {
        expect(await stopProcess(recorder)).toBe(0);
      }
      expect(agent.ran).toEqual(agent.calls);
    } finally {
      await agent.close();
    }
    expect(recorded.at(-2)).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(recorded.at(-1)).toBe('TaskNotFoundError');
  });

  it('replays the recording against the same agent to a PASS', async () => {
    const agent = await startSdkApprovalPeer({ dialect: '0.3' });
    try {
      const r = await runCli(['run', recording, '--peer', agent.url, '--key', KEY]);
      expect(r.stdout, r.stderr).toMatch(/^PASS /m);
      expect(r.code).toBe(0);
      expect(agent.refused).toEqual([]);
      expect(agent.ran).toEqual(agent.calls);
    } finally {
      await agent.close();
    }
  });

  it('serves the same client the recorded results from mock', async () => {
    const mock = await startMockProcess([recording]);
    try {
      expect(await approvalSession(transportAt(mock.url, binding))).toEqual(recorded);
    } finally {
      expect(await stopProcess(mock)).toBe(0);
    }
  });
});
