/**
 * The `@a2a-js/sdk`-based peer with a pause wrapper (test/fixtures/sdk-pause-peer.ts), driven by
 * the real SDK client over real sockets: its streams, GetTask and pause methods show pauses as the
 * Harn envelope, its own checks refuse what they must, and its transition log is the ground truth.
 * Then the same kind of session through a keyed recorder (`startRecorder`, what
 * `a2a-replay record --key` runs, in this process): the receipts, and what `lost` and `audit`
 * conclude (the library calls they make), agree with that log, pause by pause.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import {
  type SdkPausePeer,
  type TransitionLine,
  sdkUserMessage,
  startSdkPausePeer,
} from '../fixtures/sdk-pause-peer.js';
import { bearer } from '../helpers/jwt.js';
import { auditVerdict, lostVerdict, expectNoLostInRecording } from '../helpers/verdicts.js';

let dir = '';
let peer: SdkPausePeer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sdk-peer-'));
});
afterEach(async () => {
  await peer?.close();
  peer = undefined;
  await rm(dir, { recursive: true, force: true });
});

interface Reply {
  result?: Record<string, unknown> & { metadata?: { harn?: { pause?: Record<string, unknown> } } };
  error?: { code: number; message: string; data?: unknown[] };
}

/** A raw JSON-RPC call (the SDK client has no typed method for the pause methods). */
async function rpc(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = { 'a2a-version': '1.0' },
): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as Reply;
}

const control = (base: string, method: string, params: unknown) => rpc(`${base}/control`, method, params, {});

interface Collected {
  events: StreamResponse[];
  done: Promise<void>;
  /** Resolves at the first event (seen or to come) for which `match` holds; rejects if the stream ends first. */
  when(match: (event: StreamResponse, index: number) => boolean): Promise<void>;
}

/** Reads a stream in the background, so the test can drive the peer while events arrive. */
function collect(stream: AsyncGenerator<StreamResponse>): Collected {
  const events: StreamResponse[] = [];
  let waiters: Array<{ match: (e: StreamResponse, i: number) => boolean; resolve: () => void }> = [];
  let ended = false;
  const done = (async () => {
    for await (const event of stream) {
      events.push(event);
      waiters = waiters.filter((w) => {
        if (!w.match(event, events.length - 1)) return true;
        w.resolve();
        return false;
      });
    }
    ended = true;
  })();
  const when = (match: (e: StreamResponse, i: number) => boolean): Promise<void> => {
    if (events.some((e, i) => match(e, i))) return Promise.resolve();
    if (ended) return Promise.reject(new Error('the stream ended first'));
    return new Promise<void>((resolve, reject) => {
      waiters.push({ match, resolve });
      void done.then(() => reject(new Error('the stream ended first')), reject);
    });
  };
  return { events, done, when };
}

const harnOf = (event: StreamResponse): string | undefined => {
  const p = event.payload;
  if (p?.$case !== 'statusUpdate') return undefined;
  return (p.value.metadata as { harn?: { pause?: { state?: string } } } | undefined)?.harn?.pause?.state;
};

const changes = (log: readonly TransitionLine[], taskId: string): string[] =>
  log.flatMap((l) =>
    'event' in l
      ? l.taskId === taskId
        ? [`rejected ${l.code}`]
        : []
      : l.taskId === taskId
        ? [`${l.to.replace('TASK_STATE_', '')}${l.cause ? `(${l.cause})` : ''}`]
        : [],
  );

describe('the SDK peer with a pause wrapper', () => {
  it('streams a self-park and its resume by FireEvent to the real SDK client, as the Harn envelope', async () => {
    peer = await startSdkPausePeer();
    const client: Client = await new ClientFactory().createFromUrl(peer.url);
    const stream = collect(
      client.sendMessageStream({
        tenant: '',
        message: sdkUserMessage('work:1 await:approval work:1', 'sdk-m1'),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    await stream.when((_, i) => i >= 1);
    await control(peer.url, 'AdvanceClock', { ms: 1000 });
    await stream.when((e) => harnOf(e) === 'paused');
    const fired = await control(peer.url, 'FireEvent', { name: 'approval' });
    const taskId = (stream.events[0]?.payload?.value as Task).id;
    expect(fired.result).toEqual({ resumed: [taskId] });
    await control(peer.url, 'AdvanceClock', { ms: 1000 });
    await stream.done;
    const cases = stream.events.map((e) => `${e.payload?.$case}${harnOf(e) ? `:${harnOf(e)}` : ''}`);
    expect(cases).toEqual([
      'task',
      'statusUpdate',
      'artifactUpdate',
      'statusUpdate:paused',
      'statusUpdate:resumed',
      'artifactUpdate',
      'statusUpdate',
    ]);
    expect(changes(peer.transitions(), taskId)).toEqual([
      'SUBMITTED',
      'WORKING',
      'PAUSED',
      'WORKING(condition_fired)',
      'COMPLETED',
    ]);
  });

  it('answers the pause methods itself: its version check, -32001, -32011, -32010, consume-once tokens', async () => {
    peer = await startSdkPausePeer();
    const client: Client = await new ClientFactory().createFromUrl(peer.url);
    const sent = (await client.sendMessage({
      tenant: '',
      message: sdkUserMessage('work:3', 'sdk-m2'),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        historyLength: undefined,
        returnImmediately: true,
      },
      metadata: undefined,
    })) as Task;
    await control(peer.url, 'AdvanceClock', { ms: 1000 });
    expect((await rpc(peer.rpcUrl, 'PauseTask', { taskId: sent.id }, {})).error?.code).toBe(-32009);
    expect((await rpc(peer.rpcUrl, 'PauseTask', { taskId: 'no-such-task' })).error?.code).toBe(-32001);
    const paused = await rpc(peer.rpcUrl, 'PauseTask', { taskId: sent.id, reason: 'review' });
    const envelope = paused.result?.metadata?.harn?.pause;
    expect(envelope).toMatchObject({ state: 'paused', initiator: 'client', reason: 'review', mode: 'finish_step' });
    // The SDK's own GetTask shows the pause, from the status metadata merged into its task store.
    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect((got.metadata as { harn?: { pause?: { handle?: string } } }).harn?.pause?.handle).toBe(envelope?.handle);
    expect((await rpc(peer.rpcUrl, 'ResumeTask', { taskId: sent.id, resumeToken: 'wrong' })).error?.code).toBe(-32011);
    const resumed = await rpc(peer.rpcUrl, 'ResumeTask', { taskId: sent.id, resumeToken: envelope?.handle });
    expect(resumed.result?.metadata?.harn?.pause).toMatchObject({ state: 'resumed', cause: 'explicit_resume' });
    const again = await rpc(peer.rpcUrl, 'ResumeTask', { taskId: sent.id, resumeToken: envelope?.handle });
    expect(again.error?.code).toBe(-32010);
    await control(peer.url, 'AdvanceClock', { ms: 3000 });
    const done = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(changes(peer.transitions(), sent.id)).toEqual([
      'SUBMITTED',
      'WORKING',
      'PAUSED',
      'rejected -32011',
      'WORKING(explicit_resume)',
      'rejected -32010',
      'COMPLETED',
    ]);
  });
});

describe('the SDK peer through record --key', () => {
  it('yields receipts, lost and audit that agree with the peer transition log', async () => {
    const transitionsFile = join(dir, 'transitions.jsonl');
    peer = await startSdkPausePeer({ transitionsFile });
    const keyFile = join(dir, 'key.json');
    let n = 0;
    const key = generateReceiptKey({ kid: 'sdk', random: (size) => new Uint8Array(size).map(() => n++) });
    await writeFile(keyFile, JSON.stringify(key.keyFile()));
    const recording = join(dir, 'sdk.jsonl');
    const recorder = await startRecorder({ upstream: peer.url, out: recording, key: keyFile, warn: () => undefined });
    const rpcUrl = `${recorder.url}/a2a/jsonrpc`;
    const ids: string[] = [];
    try {
      const client: Client = await new ClientFactory().createFromUrl(recorder.url);
      // A streamed self-park resumed by its event.
      const stream = collect(
        client.sendMessageStream({
          tenant: '',
          message: sdkUserMessage('work:1 await:approval work:1', 'rec-m1'),
          configuration: undefined,
          metadata: undefined,
        }),
      );
      await stream.when((_, i) => i >= 1);
      ids.push((stream.events[0]?.payload?.value as Task).id);
      await control(recorder.url, 'AdvanceClock', { ms: 1000 });
      await stream.when((e) => harnOf(e) === 'paused');
      await control(recorder.url, 'FireEvent', { name: 'approval' });
      await control(recorder.url, 'AdvanceClock', { ms: 1000 });
      await stream.done;
      // A polled caller pause, a rejected resume and the right one, by named principals.
      const start = async (text: string, messageId: string): Promise<string> => {
        const task = (await client.sendMessage({
          tenant: '',
          message: sdkUserMessage(text, messageId),
          configuration: {
            acceptedOutputModes: [],
            taskPushNotificationConfig: undefined,
            historyLength: undefined,
            returnImmediately: true,
          },
          metadata: undefined,
        })) as Task;
        ids.push(task.id);
        return task.id;
      };
      const polled = await start('work:3', 'rec-m2');
      await control(recorder.url, 'AdvanceClock', { ms: 1000 });
      const bob = { 'a2a-version': '1.0', authorization: bearer('bob') };
      const p = await rpc(rpcUrl, 'PauseTask', { taskId: polled, reason: 'review' }, bob);
      const token = p.result?.metadata?.harn?.pause?.handle;
      await client.getTask({ tenant: '', id: polled, historyLength: undefined });
      await rpc(
        rpcUrl,
        'ResumeTask',
        { taskId: polled, resumeToken: 'wrong' },
        { 'a2a-version': '1.0', authorization: bearer('eve') },
      );
      await rpc(
        rpcUrl,
        'ResumeTask',
        { taskId: polled, resumeToken: token },
        { 'a2a-version': '1.0', authorization: bearer('carol') },
      );
      await control(recorder.url, 'AdvanceClock', { ms: 3000 });
      await client.getTask({ tenant: '', id: polled, historyLength: undefined });
      // A polled pause canceled through the SDK's CancelTask.
      const canceled = await start('work:3', 'rec-m3');
      await control(recorder.url, 'AdvanceClock', { ms: 1000 });
      await rpc(rpcUrl, 'PauseTask', { taskId: canceled }, bob);
      await client.cancelTask({ tenant: '', id: canceled, metadata: undefined });
      // A self-park seen by GetTask only, resumed by an external event naming the task.
      const external = await start('work:1 await:review work:1', 'rec-m4');
      await control(recorder.url, 'AdvanceClock', { ms: 1000 });
      await client.getTask({ tenant: '', id: external, historyLength: undefined });
      await control(recorder.url, 'FireEvent', { name: 'operator.override', payload: { taskId: external } });
      await control(recorder.url, 'AdvanceClock', { ms: 1000 });
      await client.getTask({ tenant: '', id: external, historyLength: undefined });
    } finally {
      await recorder.close();
    }

    const truth = (await readFile(transitionsFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TransitionLine | { type: string });
    expect(truth[0]).toEqual({ type: 'peer-transitions', version: 1 });
    const lines = truth.slice(1) as TransitionLine[];
    const receipts = (await readFile(recording.replace(/\.jsonl$/, '.receipts.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // Row by row: every pause the peer made is one SuspensionReceipt with its token and initiator.
    const pauses = lines.flatMap((l) => ('event' in l || l.to !== 'TASK_STATE_PAUSED' ? [] : [l]));
    const suspensions = receipts.filter((r) => r.type === 'SuspensionReceipt');
    expect(suspensions.map((s) => [s.taskId, s.resumeTokenHash, s.initiatedBy, s.via])).toEqual(
      pauses.map((l) => [l.taskId, l.resumeTokenHash, l.initiator, 'legacy-metadata']),
    );
    // Every way out of PAUSED is one ResumptionReceipt with the peer's cause and outcome; every refusal a rejected one.
    const outcomeOf = (to: string) =>
      to === 'TASK_STATE_WORKING' ? 'resumed' : to === 'TASK_STATE_CANCELED' ? 'canceled' : 'failed';
    const expected = lines.flatMap((l) =>
      'event' in l
        ? [[l.taskId, 'explicit_resume', 'rejected', l.code, l.principal]]
        : l.from === 'TASK_STATE_PAUSED'
          ? [[l.taskId, l.cause, outcomeOf(l.to), null, l.principal]]
          : [],
    );
    const resumptions = receipts.filter((r) => r.type === 'ResumptionReceipt');
    expect(resumptions.map((r) => [r.taskId, r.cause, r.outcome, r.errorCode, r.principal])).toEqual(expected);
    expect(expected.map((e) => e[1])).toEqual([
      'condition_fired',
      'explicit_resume',
      'explicit_resume',
      'canceled',
      'external_event',
    ]);

    const lost = await lostVerdict([recording]);
    expect(lost.json).toMatchObject({ lost: [], complete: true, read: true, understood: true });
    // What makes `lost` print exactly `no lost pauses in FILE (recording)`.
    expectNoLostInRecording(lost.found);
    expect(lost.code).toBe(0);
    const audit = await auditVerdict([recording.replace(/\.jsonl$/, '.receipts.jsonl')], key);
    const rows = audit.rows as unknown as { taskId: string; outcome: string; rejectedAttempts: number }[];
    expect(rows.map((r) => [r.taskId, r.outcome, r.rejectedAttempts])).toEqual([
      [ids[0], 'resumed', 0],
      [ids[1], 'resumed', 1],
      [ids[2], 'canceled', 0],
      [ids[3], 'resumed', 0],
    ]);
  });
});
