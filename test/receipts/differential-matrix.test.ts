/**
 * The differential matrix: what the recorder derives with a key (`startRecorder`: receipts, and
 * the verdicts of `lost` and `audit` over them, as library calls) must agree, row by row, with the
 * peer's own ground truth (its transition log), whatever way the client watches the task. The peer
 * and the recorder run in this process. Client styles: a stream (SendStreamingMessage), a resubscribe
 * (SendMessage then SubscribeToTask), polling (GetTask after every step) and the `@a2a-js/sdk`
 * client polling through its own transport. Peers: the reference peer (native PAUSED), the
 * reference peer with `--legacy-pause` (WORKING + metadata), and a peer built on `@a2a-js/sdk`'s
 * server with a pause wrapper at `/a2a/jsonrpc` (test/fixtures/sdk-pause-peer.ts). Scenarios: a
 * self-park woken by its event, a caller pause with a refused and an accepted resume by named
 * principals, a pause ended by CancelTask, and a self-park woken by an external event naming the
 * task. 4 client styles × 3 peers × 4 scenarios = 48 cases. One more row, for interruptions
 * (docs/design.md §14.9): a stock `@a2a-js/sdk` server whose executor asks for input with its native
 * INPUT_REQUIRED (test/fixtures/sdk-input-peer.ts), answered by the stock SDK client: the
 * InterruptionReceipt and ContinuationReceipt agree with what the agent says it did.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Part, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JsonValue, hashCanonical } from '../../src/canonical/canonical-json.js';
import { SseParser } from '../../src/intercept/sse-parser.js';
import { startPeer } from '../../src/public/peer.js';
import { Keyring, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { type SdkInputAct, startSdkInputPeer } from '../fixtures/sdk-input-peer.js';
import { sdkUserMessage, startSdkPausePeer } from '../fixtures/sdk-pause-peer.js';
import { bearer } from '../helpers/jwt.js';
import { auditVerdict, expectNoLostInRecording, lostVerdict } from '../helpers/verdicts.js';

const STYLES = ['stream', 'resubscribe', 'poll', 'sdk'] as const;
type Style = (typeof STYLES)[number];
const PEERS = ['reference', 'reference --legacy-pause', 'sdk server'] as const;
const SCENARIOS = [
  'self-park woken by its event',
  'caller pause and resume',
  'canceled while paused',
  'external event',
];

const key = generateReceiptKey({ kid: 'matrix' });
const keys = new Keyring([key]);
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'differential-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
let nextId = 1;

async function rpc(url: string, method: string, params: unknown, sub?: string): Promise<Json> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  if (sub) headers.authorization = bearer(sub);
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  return (await res.json()) as Json;
}

/** What an answer or event shows of a task: its state, and whether a pause is shown (either way). */
function viewOf(value: unknown): { taskId?: string; state?: string; paused: boolean } {
  const v = (value ?? {}) as Json;
  const task = (v.task ?? (v.status ? v : undefined)) as Json | undefined;
  const update = v.statusUpdate as Json | undefined;
  const holder = update ?? task;
  const status = holder?.status as Json | undefined;
  const state = status?.state as string | undefined;
  const harn = ((holder?.metadata as Json | undefined)?.harn as Json | undefined)?.pause as Json | undefined;
  const taskId = (update?.taskId ?? task?.id) as string | undefined;
  return {
    ...(taskId ? { taskId } : {}),
    ...(state ? { state } : {}),
    paused: state === 'TASK_STATE_PAUSED' || harn?.state === 'paused',
  };
}

/** A stream read in the background; `until` resolves at the first event matching. */
function readStream(res: Response) {
  const events: unknown[] = [];
  let waiters: { match: (e: unknown) => boolean; resolve: () => void }[] = [];
  const parser = new SseParser();
  const reader = res.body!.getReader();
  const done = (async () => {
    for (;;) {
      const { done: end, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (end || value === undefined) break;
      for (const { data } of parser.push(value)) {
        if (!data) continue;
        const event = (JSON.parse(data) as { result?: unknown }).result;
        events.push(event);
        waiters = waiters.filter((w) => (w.match(event) ? (w.resolve(), false) : true));
      }
    }
  })();
  const until = (match: (e: unknown) => boolean): Promise<void> =>
    events.some(match)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiters.push({ match, resolve });
          void done.then(() => reject(new Error(`the stream ended first: ${JSON.stringify(events)}`)));
        });
  return { events, done, until };
}

/** The token of a pause, from whichever shape the peer answered PauseTask in. */
function tokenOf(answer: Json): string {
  const text = JSON.stringify(answer.result ?? {});
  const m = /"(?:resumeToken|handle)":"([^"]+)"/.exec(text);
  if (!m?.[1]) throw new Error(`no resume token in ${text}`);
  return m[1];
}

/** How one client style starts a task and watches it. */
interface Watcher {
  taskId: string;
  /** After a step: look at the task (poll), or wait until a stream showed what the step did. */
  look(expect: 'paused' | 'any'): Promise<void>;
  /** Once the task ended. */
  end(): Promise<void>;
}

async function startWatching(style: Style, base: string, rpcUrl: string, script: string): Promise<Watcher> {
  const message = { messageId: `m-${nextId}`, role: 'ROLE_USER', parts: [{ text: script }] };
  if (style === 'stream' || style === 'resubscribe') {
    let taskId: string;
    let res: Response;
    const streamOf = (method: string, params: unknown) =>
      fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      });
    if (style === 'stream') {
      res = await streamOf('SendStreamingMessage', { message });
      const stream = readStream(res);
      await stream.until((e) => viewOf(e).taskId !== undefined);
      taskId = viewOf(stream.events.find((e) => viewOf(e).taskId)).taskId as string;
      return watcherOf(taskId, stream);
    }
    const sent = await rpc(rpcUrl, 'SendMessage', { message, configuration: { returnImmediately: true } });
    taskId = viewOf(sent.result).taskId as string;
    res = await streamOf('SubscribeToTask', { id: taskId });
    const stream = readStream(res);
    await stream.until(() => true);
    return watcherOf(taskId, stream);
  }
  if (style === 'poll') {
    const sent = await rpc(rpcUrl, 'SendMessage', { message, configuration: { returnImmediately: true } });
    const taskId = viewOf(sent.result).taskId as string;
    const look = async (): Promise<void> => {
      await rpc(rpcUrl, 'GetTask', { id: taskId });
    };
    return { taskId, look, end: look };
  }
  const client = await new ClientFactory().createFromUrl(base);
  const task = (await client.sendMessage({
    tenant: '',
    message: sdkUserMessage(script, `sdk-${nextId++}`),
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      historyLength: undefined,
      returnImmediately: true,
    },
    metadata: undefined,
  })) as Task;
  const look = async (): Promise<void> => {
    // The SDK may refuse to parse a state it does not know (PAUSED): the recorder saw the answer anyway.
    await client.getTask({ tenant: '', id: task.id, historyLength: undefined }).catch(() => undefined);
  };
  return { taskId: task.id, look, end: look };
}

function watcherOf(taskId: string, stream: ReturnType<typeof readStream>): Watcher {
  return {
    taskId,
    look: (what) => (what === 'paused' ? stream.until((e) => viewOf(e).paused) : Promise.resolve()),
    end: () => stream.done,
  };
}

/** Runs the four scenarios through `base` (the recorder); returns their task ids in order. */
async function scenarios(style: Style, base: string, rpcPath: string): Promise<string[]> {
  const rpcUrl = `${base}${rpcPath}`;
  const control = (method: string, params: unknown) => rpc(`${base}/control`, method, params);
  const ids: string[] = [];

  const parked = await startWatching(style, base, rpcUrl, 'work:1 await:approval work:1');
  ids.push(parked.taskId);
  await control('AdvanceClock', { ms: 1000 });
  await parked.look('paused');
  await control('FireEvent', { name: 'approval' });
  await control('AdvanceClock', { ms: 1000 });
  await parked.end();

  const caller = await startWatching(style, base, rpcUrl, 'work:3');
  ids.push(caller.taskId);
  await control('AdvanceClock', { ms: 1000 });
  const paused = await rpc(rpcUrl, 'PauseTask', { taskId: caller.taskId, reason: 'review' }, 'bob');
  await caller.look('paused');
  await rpc(rpcUrl, 'ResumeTask', { taskId: caller.taskId, resumeToken: 'wrong' }, 'eve');
  await rpc(rpcUrl, 'ResumeTask', { taskId: caller.taskId, resumeToken: tokenOf(paused) }, 'carol');
  await caller.look('any');
  await control('AdvanceClock', { ms: 3000 });
  await caller.end();

  const canceled = await startWatching(style, base, rpcUrl, 'work:3');
  ids.push(canceled.taskId);
  await control('AdvanceClock', { ms: 1000 });
  await rpc(rpcUrl, 'PauseTask', { taskId: canceled.taskId }, 'bob');
  await canceled.look('paused');
  await rpc(rpcUrl, 'CancelTask', { id: canceled.taskId }, 'bob');
  await canceled.end();

  const external = await startWatching(style, base, rpcUrl, 'work:1 await:review work:1');
  ids.push(external.taskId);
  await control('AdvanceClock', { ms: 1000 });
  await external.look('paused');
  await control('FireEvent', { name: 'operator.override', payload: { taskId: external.taskId } });
  await control('AdvanceClock', { ms: 1000 });
  await external.end();
  return ids;
}

/** One ground-truth row, in a form both transition logs and receipts can be brought to. */
type Row = (string | number | null)[];

const outcomeOf = (to: string): string =>
  to === 'TASK_STATE_WORKING' ? 'resumed' : to === 'TASK_STATE_CANCELED' ? 'canceled' : 'failed';

/** The reference peer's log and the SDK fixture's log, as rows: pauses, ends and refusals, in order. */
function truthRows(lines: Json[]): Row[] {
  return lines.flatMap((l): Row[] => {
    if (l.event === 'rejected')
      return [[l.taskId as string, 'rejected', (l.errorCode ?? l.code) as number, l.principal as string | null]];
    if (l.event !== undefined && l.event !== 'transition') return [];
    if (l.to === 'TASK_STATE_PAUSED')
      return [[l.taskId as string, 'paused', l.initiator as string, l.resumeTokenHash as string]];
    if (l.from === 'TASK_STATE_PAUSED')
      return [[l.taskId as string, l.cause as string, outcomeOf(l.to as string), l.principal as string | null]];
    return [];
  });
}

/** The receipts, as the same rows. */
function receiptRows(receipts: Json[]): Row[] {
  return receipts.flatMap((r): Row[] => {
    if (r.type === 'SuspensionReceipt')
      return [[r.taskId as string, 'paused', r.initiatedBy as string, r.resumeTokenHash as string]];
    if (r.type !== 'ResumptionReceipt') return [];
    if (r.outcome === 'rejected')
      return [[r.taskId as string, 'rejected', r.errorCode as number, r.principal as string | null]];
    return [[r.taskId as string, r.cause as string, r.outcome as string, r.principal as string | null]];
  });
}

const jsonl = async (file: string): Promise<Json[]> =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);

describe('receipts, lost and audit agree with the peer ground truth', () => {
  for (const peerKind of PEERS) {
    for (const style of STYLES) {
      it(`${style} client × ${peerKind} peer (${SCENARIOS.length} scenarios)`, async () => {
        const tag = `${peerKind.replace(/\W+/g, '-')}-${style}`;
        const transitions = join(dir, `${tag}.transitions.jsonl`);
        const out = join(dir, `${tag}.jsonl`);
        let upstream: string;
        let stopPeer: () => Promise<unknown>;
        let rpcPath = '/';
        if (peerKind === 'sdk server') {
          const sdk = await startSdkPausePeer({ transitionsFile: transitions });
          upstream = sdk.url;
          rpcPath = '/a2a/jsonrpc';
          stopPeer = () => sdk.close();
        } else {
          const peer = await startPeer({
            deterministic: true,
            transitionsFile: transitions,
            legacyPause: peerKind === 'reference --legacy-pause',
          });
          upstream = peer.url;
          stopPeer = () => peer.close();
        }
        let recorder: Awaited<ReturnType<typeof startRecorder>>;
        try {
          recorder = await startRecorder({ upstream, out, key, env: {} });
        } catch (error) {
          await stopPeer();
          throw error;
        }
        let ids: string[];
        try {
          ids = await scenarios(style, recorder.url, rpcPath);
        } finally {
          // Every line reached its file and the log closed with its checkpoint: `record` exits 0.
          expect((await recorder.close()).complete).toBe(true);
          await stopPeer();
        }

        const truth = await jsonl(transitions);
        const truthLines = truth.filter((l) => l.type === undefined);
        const expected = truthRows(truthLines);
        const log = out.replace(/\.jsonl$/, '.receipts.jsonl');
        const receipts = await jsonl(log);
        expect(receiptRows(receipts)).toEqual(expected);
        // The scenarios' ends, as the peer saw them.
        expect(expected.filter((r) => r[1] !== 'paused').map((r) => r[1])).toEqual([
          'condition_fired',
          'rejected',
          'explicit_resume',
          'canceled',
          'external_event',
        ]);
        expect(expected.filter((r) => r[1] === 'paused').map((r) => r[0])).toEqual(ids);
        // Inferred from what the recording proves only where the client did not see the peer say it.
        for (const r of receipts.filter((x) => x.type === 'ResumptionReceipt'))
          expect(typeof r.inferred).toBe('boolean');

        // What `lost RECORDING` and `audit LOG --key K --json` conclude (test/helpers/verdicts.ts).
        const lost = await lostVerdict([out]);
        expectNoLostInRecording(lost.found);
        expect(lost.code).toBe(0);
        const audit = await auditVerdict([log], keys);
        expect(audit.code).toBe(0);
        const rows = audit.rows as { taskId: string; outcome: string; rejectedAttempts: number }[];
        expect(rows.map((r) => [r.taskId, r.outcome, r.rejectedAttempts])).toEqual([
          [ids[0], 'resumed', 0],
          [ids[1], 'resumed', 1],
          [ids[2], 'canceled', 0],
          [ids[3], 'resumed', 0],
        ]);
      });
    }
  }
});

/** The agent's acts as rows: an ask (its state, its prompt's hash), a continuation (by a message, its parts' hash). */
function actRows(acts: readonly SdkInputAct[]): Row[] {
  // The parts as the SDK puts them on the wire, which is what the recorder hashes.
  const hash = (parts: readonly Part[]): string => hashCanonical(parts.map((p) => Part.toJSON(p) as JsonValue));
  return acts.map((a): Row =>
    a.act === 'asked'
      ? [a.taskId, 'interrupted', a.state, hash(a.prompt)]
      : [a.taskId, 'continued', 'message', hash(a.input)],
  );
}

/** The interruption receipts as the same rows. */
function interruptionRows(receipts: Json[]): Row[] {
  return receipts.flatMap((r): Row[] => {
    if (r.type === 'InterruptionReceipt')
      return [[r.taskId as string, 'interrupted', r.state as string, r.promptHash as string | null]];
    if (r.type === 'ContinuationReceipt')
      return [[r.taskId as string, 'continued', r.cause as string, r.inputHash as string | null]];
    return [];
  });
}

describe('interruption receipts agree with what an SDK agent asking for input did', () => {
  it('sdk client × sdk server asking for input (INPUT_REQUIRED answered on the task)', async () => {
    const peer = await startSdkInputPeer();
    const out = join(dir, 'sdk-input.jsonl');
    let recorder: Awaited<ReturnType<typeof startRecorder>>;
    try {
      recorder = await startRecorder({ upstream: peer.url, out, key, env: {} });
    } catch (error) {
      await peer.close();
      throw error;
    }
    const send = (text: string, messageId: string, task?: Task) => ({
      tenant: '',
      message: { ...sdkUserMessage(text, messageId, task?.id ?? ''), contextId: task?.contextId ?? '' },
      configuration: undefined,
      metadata: undefined,
    });
    let asked: Task;
    let answered: Task;
    try {
      const client = await new ClientFactory().createFromUrl(recorder.url);
      asked = (await client.sendMessage(send('deploy to production', 'sdk-input-1'))) as Task;
      answered = (await client.sendMessage(send('yes', 'sdk-input-2', asked))) as Task;
    } finally {
      expect((await recorder.close()).complete).toBe(true);
      await peer.close();
    }
    expect(answered.id).toBe(asked.id);

    const expected = actRows(peer.acts);
    expect(expected.map((r) => [r[0], r[1]])).toEqual([
      [asked.id, 'interrupted'],
      [asked.id, 'continued'],
    ]);
    const log = out.replace(/\.jsonl$/, '.receipts.jsonl');
    const receipts = await jsonl(log);
    expect(interruptionRows(receipts)).toEqual(expected);
    expect(receipts.filter((r) => r.type === 'SuspensionReceipt' || r.type === 'ResumptionReceipt')).toEqual([]);

    const lost = await lostVerdict([out]);
    expect(lost.code, JSON.stringify(lost.json)).toBe(0);
    expect((lost.json as { lostInterruptions: unknown[] }).lostInterruptions).toEqual([]);
    const audit = await auditVerdict([log], keys, { kind: 'interruption' });
    expect(audit.code, audit.why ?? '').toBe(0);
    const rows = audit.rows as { taskId: string; outcome: string; cause: string }[];
    expect(rows.map((r) => [r.taskId, r.outcome, r.cause])).toEqual([[asked.id, 'continued', 'message']]);
  });
});
