/**
 * Interop: the real `@a2a-js/sdk` 1.3.0 client against the reference peer, unchanged. The SDK
 * has no typed pause methods: PauseTask / ResumeTask go through a plain fetch and through the
 * JSON-RPC transport's untyped `callExtensionMethod` (reference notes §4.6).
 */
import { type Message, Role, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type RunningPeer, startPeer } from '../../src/peer/start-peer.js';
import type { PauseTaskResult, Task } from '../../src/protocol/types.js';
import { PeerClient } from './peer-client.js';

let peer: RunningPeer;
let client: Client;
let raw: PeerClient;
let n = 0;

beforeEach(async () => {
  peer = await startPeer({ stepMs: 5 });
  client = await new ClientFactory().createFromUrl(peer.url);
  raw = new PeerClient(peer.url);
});
afterEach(async () => {
  raw.closeStreams();
  await peer.close();
});

function sdkMessage(text: string, taskId = ''): Message {
  return {
    messageId: `sdk-${++n}`,
    contextId: '',
    taskId,
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

interface ExtensionTransport {
  callExtensionMethod(
    method: string,
    params: unknown,
    options?: { serviceParameters?: Record<string, string> },
  ): Promise<{ result?: unknown }>;
}

it('sends, gets, lists, cancels and streams through ClientFactory / Client', async () => {
  const sent = await client.sendMessage({
    tenant: '',
    message: sdkMessage('work:2'),
    configuration: undefined,
    metadata: undefined,
  });
  if (!('status' in sent)) throw new Error('expected a task');
  expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(sent.artifacts).toHaveLength(2);

  const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
  expect(got.id).toBe(sent.id);
  expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

  const listed = await client.listTasks({
    tenant: '',
    contextId: '',
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: undefined,
    pageToken: '',
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: undefined,
  });
  expect(listed.tasks.map((t) => t.id)).toContain(sent.id);

  const waiting = await client.sendMessage({
    tenant: '',
    message: sdkMessage('input'),
    configuration: undefined,
    metadata: undefined,
  });
  if (!('status' in waiting)) throw new Error('expected a task');
  expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const canceled = await client.cancelTask({ tenant: '', id: waiting.id, metadata: undefined });
  expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

  const cases: string[] = [];
  for await (const ev of client.sendMessageStream({
    tenant: '',
    message: sdkMessage('work:1'),
    configuration: undefined,
    metadata: undefined,
  })) {
    cases.push(ev.payload?.$case ?? 'none');
  }
  expect(cases).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
});

it('pauses and resumes through fetch and callExtensionMethod while the SDK streams the task', async () => {
  const det = await startPeer({ deterministic: true });
  try {
    const sdk = await new ClientFactory().createFromUrl(det.url);
    const c = new PeerClient(det.url);
    const task = await c.start('work:1 await:go work:1');
    const events: string[] = [];
    let subscribed!: () => void;
    const firstEvent = new Promise<void>((resolve) => (subscribed = resolve));
    const streaming = (async () => {
      for await (const ev of sdk.resubscribeTask({ tenant: '', id: task.id })) {
        const p = ev.payload;
        events.push(p?.$case === 'statusUpdate' ? `status:${p.value.status?.state}` : (p?.$case ?? 'none'));
        subscribed();
      }
    })();
    await firstEvent;
    // A plain fetch: PauseTask.
    const paused = await c.result<PauseTaskResult>('PauseTask', { taskId: task.id, mode: 'interrupt_immediate' });
    expect(paused.state).toBe('TASK_STATE_PAUSED');
    // The SDK decodes the unknown state as UNRECOGNIZED (-1): its typed paths lose PAUSED.
    expect((await sdk.getTask({ tenant: '', id: task.id, historyLength: undefined })).status?.state).toBe(
      TaskState.UNRECOGNIZED,
    );

    // The SDK's transport: ResumeTask.
    const transport = sdk.transport as unknown as ExtensionTransport;
    expect(typeof transport.callExtensionMethod).toBe('function');
    const version = { serviceParameters: { 'A2A-Version': '1.0' } };
    const resumed = await transport.callExtensionMethod(
      'ResumeTask',
      { taskId: task.id, resumeToken: paused.pause.resumeToken },
      version,
    );
    expect(resumed.result).toMatchObject({ taskId: task.id, state: 'TASK_STATE_WORKING', cause: 'explicit_resume' });

    // The script then self-parks on `await:go`; resume that pause through the transport too.
    await c.advance(1000);
    const parked = await c.getTask(task.id);
    expect(parked.status.pause?.initiatedBy).toBe('PAUSE_INITIATOR_AGENT');
    await transport.callExtensionMethod(
      'ResumeTask',
      { taskId: task.id, resumeToken: parked.status.pause?.resumeToken },
      version,
    );
    await c.advance(1000);
    await streaming;
    expect(events).toEqual([
      'task',
      `status:${TaskState.UNRECOGNIZED}`,
      `status:${TaskState.TASK_STATE_WORKING}`,
      'artifactUpdate',
      `status:${TaskState.UNRECOGNIZED}`,
      `status:${TaskState.TASK_STATE_WORKING}`,
      'artifactUpdate',
      `status:${TaskState.TASK_STATE_COMPLETED}`,
    ]);
    expect((await c.getTask(task.id)) satisfies Task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
  } finally {
    await det.close();
  }
});
