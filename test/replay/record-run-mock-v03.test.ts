/**
 * A2A v0.3 end to end over real sockets, in-process through the public entries (docs/design.md §8,
 * §13): the stock `@a2a-js/sdk` 0.3.14 client, over JSON-RPC and over HTTP+JSON, drives a stock
 * 0.3.14 agent that gates a tool call on approval (test/fixtures/sdk-approval-peer.ts) through the
 * recorder (`startRecorder` with the test key, what `record --key` starts): it streams the ask,
 * approves the call the agent proposed, reads the task, and asks for a task that does not exist.
 * `replayRecordings` against the same agent (what `run --peer` calls) passes — the approval
 * carries the call id the live agent minted — and the mock (`startMockServer`, what `mock`
 * starts) serves the same client what it got through the recorder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from 'a2a-sdk-v03';
import { JsonRpcTransport, RestTransport, type Transport } from 'a2a-sdk-v03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder } from '../../src/public/record.js';
import { GOLDEN_KEY } from '../golden/golden-receipts.js';
import { startMock, stopMock } from '../helpers/mock-in-process.js';
import { replayReport } from '../helpers/run-report.js';
import { REST_PATH, RPC_PATH, startSdkApprovalPeer } from '../fixtures/sdk-approval-peer.js';

type Binding = 'JSONRPC' | 'HTTP+JSON';

const KEY = GOLDEN_KEY;

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
      const warnings: string[] = [];
      const recorder = await startRecorder({
        upstream: agent.url,
        out: recording,
        key: KEY,
        warn: (l) => warnings.push(l),
      });
      try {
        recorded = await approvalSession(transportAt(recorder.url, binding));
      } finally {
        // `record` exits 0 when every line was written.
        expect((await recorder.close()).complete, warnings.join('\n')).toBe(true);
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
      const r = await replayReport([recording], { peer: agent.url, key: KEY });
      expect(r.stdout).toMatch(/^PASS /m);
      expect(r.code).toBe(0);
      expect(agent.refused).toEqual([]);
      expect(agent.ran).toEqual(agent.calls);
    } finally {
      await agent.close();
    }
  });

  it('serves the same client the recorded results from mock', async () => {
    const mock = await startMock([recording]);
    try {
      expect(await approvalSession(transportAt(mock.url, binding))).toEqual(recorded);
    } finally {
      await stopMock(mock);
    }
  });
});
