/**
 * A2A v0.3 interruptions end to end (docs/design.md §14.9, §14.10): a stock `@a2a-js/sdk` 0.3.14
 * server asks for approval (a question, and a tool-call gate whose confirmation DataPart comes in
 * the event before `input-required`), the stock 0.3.14 client answers through the recorder of
 * `record --key --principal-from jwt-sub` (`startRecorder`, in the test's process) over real
 * sockets, over v0.3 JSON-RPC and v0.3 HTTP+JSON:
 * one InterruptionReceipt per gate, a ContinuationReceipt naming who answered, an approval never
 * given `never_continued` in `lost`, `audit --kind interruption` listing them, `verify --recording`
 * passing, and `run --peer` against the same agent passing with the receipts derived again. And a
 * 1.3.0 SDK server with its v0.3 compatibility on, asked by a v0.3 client and a v1.0 client in one
 * session: both dialects' interruptions in one log. What `verify`, `audit`, `lost` and `run`
 * conclude is read with the library calls those commands make (test/helpers/verdicts.ts,
 * `replayRecordings`).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, MessageSendParams, Part, Task } from 'a2a-sdk-v03';
import { JsonRpcTransport, RestTransport, type Transport } from 'a2a-sdk-v03/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, hashCanonical } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey, Keyring } from '../../src/receipts/keys.js';
import { loadKeyFile } from '../../src/public/receipts.js';
import { type Recorder, startRecorder } from '../../src/public/record.js';
import { renderRecordingText, replayRecordings } from '../../src/public/replay.js';
import { renderDialects } from '../../cli/lost-render.js';
import { auditVerdict, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { bearer } from '../helpers/jwt.js';
import {
  type SdkV03InputPeer,
  V03_PROMPT_TEXT,
  V03_REST_PATH,
  V03_RPC_PATH,
  startSdkV03InputPeer,
  toolConfirmation,
} from '../fixtures/sdk-v03-input-peer.js';
import { PROMPT_TEXT, type SdkInputPeer, startSdkInputPeer } from '../fixtures/sdk-input-peer.js';

let dir = '';
/** Recorders a test started, closed after it whatever happens (each once). */
const recorders: (() => Promise<unknown>)[] = [];
let peer: SdkV03InputPeer | undefined;
let v10Peer: SdkInputPeer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'interruptions-v03-'));
});
afterEach(async () => {
  for (const close of recorders.splice(0)) await close();
  await peer?.close();
  await v10Peer?.close();
  peer = undefined;
  v10Peer = undefined;
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

/** The stock 0.3.14 transport of `binding` at `endpoint`, sending a JWT naming `sub`. */
function client(binding: 'JSONRPC' | 'HTTP+JSON', endpoint: string, sub: string): Transport {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', bearer(sub));
    return fetch(input, { ...init, headers });
  };
  return binding === 'JSONRPC'
    ? new JsonRpcTransport({ endpoint, fetchImpl })
    : new RestTransport({ endpoint, fetchImpl });
}

const send = (parts: Part[], taskId?: string, contextId?: string): MessageSendParams => ({
  message: {
    kind: 'message',
    messageId: `m-${JSON.stringify(parts).length}-${taskId ?? 'new'}`,
    role: 'user',
    parts,
    ...(taskId === undefined ? {} : { taskId }),
    ...(contextId === undefined ? {} : { contextId }),
  },
});

/** The recorder of `record --key KEY --principal-from jwt-sub` in front of `upstream`, in this process. */
async function recordHere(upstream: string, out: string, key: string): Promise<Recorder> {
  const recorder = await startRecorder({ upstream, out, key, principalFrom: 'jwt-sub', warn: () => undefined });
  let closed: ReturnType<Recorder['close']> | undefined;
  const close = (): ReturnType<Recorder['close']> => (closed ??= recorder.close());
  recorders.push(close);
  return { url: recorder.url, close };
}

/** Closes a recorder: true when it wrote all (`record` exits 0). */
const stopped = async (recorder: Recorder): Promise<boolean> => (await recorder.close()).complete;

/** A keyed recorder in front of the peer; what each binding's client needs. */
async function recordSession(): Promise<{ url: string; key: string; out: string; recorder: Recorder }> {
  peer = await startSdkV03InputPeer();
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'v03' }).keyFile()), { mode: 0o600 });
  const out = join(dir, 'session.jsonl');
  const recorder = await recordHere(peer.url, out, key);
  return { url: recorder.url, key, out, recorder };
}

async function receiptsOf(log: string): Promise<Json[]> {
  const lines = (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);
  return lines.filter((l) => l.type !== 'ReceiptLog' && l.type !== 'Checkpoint');
}

describe.each([
  ['JSONRPC', V03_RPC_PATH],
  ['HTTP+JSON', V03_REST_PATH],
] as const)(
  'a stock 0.3.14 agent asking for approval over v0.3 %s, through record --key --principal-from jwt-sub',
  (binding, path) => {
    it('receipts each gate and who answered it; an approval never given is never_continued; run passes', async () => {
      const { url, key, out, recorder } = await recordSession();
      const bob = client(binding, `${url}${path}`, 'bob');
      const alice = client(binding, `${url}${path}`, 'alice');

      // A question, answered by alice with text.
      const asked = (await bob.sendMessage(send([{ kind: 'text', text: 'deploy' }]))) as Task;
      expect(asked.status.state).toBe('input-required');
      const answered = (await alice.sendMessage(
        send([{ kind: 'text', text: 'yes' }], asked.id, asked.contextId),
      )) as Task;
      expect(answered.status.state).toBe('completed');

      // A tool-call gate on a stream, approved by alice with a DataPart naming the agent's call id.
      const events: unknown[] = [];
      for await (const event of bob.sendMessageStream(send([{ kind: 'text', text: 'tool' }]))) events.push(event);
      const last = events.at(-1) as {
        kind: string;
        final: boolean;
        taskId: string;
        contextId: string;
        status: { state: string };
      };
      expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
      const approval: Part = { kind: 'data', data: { callId: 'call-1', outcome: 'approved' } };
      const approved = (await alice.sendMessage(send([approval], last.taskId, last.contextId))) as Task | Message;
      expect((approved as Task).status.state).toBe('completed');

      // A question nobody answers.
      const ignored = (await bob.sendMessage(send([{ kind: 'text', text: 'deploy again' }]))) as Task;
      expect(ignored.status.state).toBe('input-required');
      expect(await stopped(recorder)).toBe(true);

      const log = join(dir, 'session.receipts.jsonl');
      const receipts = await receiptsOf(log);
      const interruptions = receipts.filter((r) => r.type === 'InterruptionReceipt');
      const continuations = receipts.filter((r) => r.type === 'ContinuationReceipt');
      expect(interruptions).toMatchObject([
        {
          taskId: asked.id,
          state: 'TASK_STATE_INPUT_REQUIRED',
          promptHash: hashCanonical([{ text: V03_PROMPT_TEXT }]),
        },
        {
          taskId: last.taskId,
          state: 'TASK_STATE_INPUT_REQUIRED',
          promptHash: hashCanonical([{ data: toolConfirmation('call-1') }]),
        },
        { taskId: ignored.id, state: 'TASK_STATE_INPUT_REQUIRED' },
      ]);
      expect(continuations).toMatchObject([
        { taskId: asked.id, cause: 'message', principal: 'jwt:sub=alice', inputHash: hashCanonical([{ text: 'yes' }]) },
        {
          taskId: last.taskId,
          cause: 'message',
          principal: 'jwt:sub=alice',
          inputHash: hashCanonical([{ data: { callId: 'call-1', outcome: 'approved' } }]),
        },
      ]);
      // The agent's own account: it asked three times and went on twice.
      expect(peer?.acts.map((a) => a.act)).toEqual(['asked', 'continued', 'asked', 'continued', 'asked']);

      const verified = await verifyVerdict([log], key, { checks: { recording: out } });
      expect(verified.code, verified.lines.join('\n')).toBe(0);

      const audit = await auditVerdict([log], key, { kind: 'interruption' });
      expect(audit.code, audit.why ?? '').toBe(0);
      expect(audit.rows).toMatchObject([
        { kind: 'interruption', taskId: asked.id, outcome: 'continued', continuedBy: 'jwt:sub=alice' },
        { kind: 'interruption', taskId: last.taskId, outcome: 'continued', continuedBy: 'jwt:sub=alice' },
        { kind: 'interruption', taskId: ignored.id },
      ]);

      // Each request entry says the version it was read in.
      const requests = (await readFile(out, 'utf8'))
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(l) as Json)
        .filter((e) => e.kind === 'request');
      expect(requests.map((e) => e.a2aVersion)).toEqual(['0.3', '0.3', '0.3', '0.3', '0.3']);

      const lost = await lostVerdict([out]);
      const printed = JSON.stringify(lost.json, null, 2);
      expect(lost.code, printed).toBe(1);
      expect(lost.json).toMatchObject({ understood: true, dialects: { '0.3': 5 } });
      expect(printed).toContain(ignored.id);
      expect(printed).toContain('never_continued');
      expect(printed).not.toContain(asked.id);

      // Replayed against the same agent: the receipts derived again equal the recorded ones.
      const replayed = await replayRecordings([out], {
        peer: peer!.url,
        keyring: new Keyring([(await loadKeyFile(key)).key]),
      });
      const said = replayed.results.map((r) => renderRecordingText(r, { color: false })).join('\n');
      expect(said).toMatch(/^PASS /m);
      expect(replayed.exitCode).toBe(0);
      expect(peer?.acts.map((a) => a.act)).toEqual([
        ...['asked', 'continued', 'asked', 'continued', 'asked'],
        ...['asked', 'continued', 'asked', 'continued', 'asked'],
      ]);
    });
  },
);

describe('a 1.3.0 SDK server with its v0.3 compatibility on, through record --key --principal-from jwt-sub', () => {
  it('receipts a v0.3 client and a v1.0 client asking and answering in one session, in one log', async () => {
    v10Peer = await startSdkInputPeer({ legacyCompat: true });
    const key = join(dir, 'key.json');
    await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'mixed' }).keyFile()), { mode: 0o600 });
    const out = join(dir, 'mixed.jsonl');
    const recorder = await recordHere(v10Peer.url, out, key);
    const endpoint = `${recorder.url}/a2a/jsonrpc`;

    // The stock 0.3.14 client: message/send, kebab states.
    const old = (await client('JSONRPC', endpoint, 'bob').sendMessage(
      send([{ kind: 'text', text: 'deploy' }]),
    )) as Task;
    expect(old.status.state).toBe('input-required');
    const oldDone = (await client('JSONRPC', endpoint, 'alice').sendMessage(
      send([{ kind: 'text', text: 'yes' }], old.id, old.contextId),
    )) as Task;
    expect(oldDone.status.state).toBe('completed');

    // A v1.0 client on the same endpoint: SendMessage with A2A-Version 1.0.
    const v10 = async (params: Json, sub: string): Promise<{ task: { id: string; status: { state: string } } }> => {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: bearer(sub) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params }),
      });
      return ((await res.json()) as { result: { task: { id: string; status: { state: string } } } }).result;
    };
    const asked = await v10({ message: { messageId: 'n1', role: 'ROLE_USER', parts: [{ text: 'deploy' }] } }, 'carol');
    expect(asked.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const done = await v10(
      { message: { messageId: 'n2', role: 'ROLE_USER', taskId: asked.task.id, parts: [{ text: 'no' }] } },
      'dave',
    );
    expect(done.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await stopped(recorder)).toBe(true);

    const log = join(dir, 'mixed.receipts.jsonl');
    const receipts = await receiptsOf(log);
    const promptHash = hashCanonical([{ text: PROMPT_TEXT }]);
    expect(receipts).toMatchObject([
      { type: 'InterruptionReceipt', taskId: old.id, state: 'TASK_STATE_INPUT_REQUIRED', promptHash },
      {
        type: 'ContinuationReceipt',
        taskId: old.id,
        principal: 'jwt:sub=alice',
        inputHash: hashCanonical([{ text: 'yes' }]),
      },
      { type: 'InterruptionReceipt', taskId: asked.task.id, state: 'TASK_STATE_INPUT_REQUIRED', promptHash },
      {
        type: 'ContinuationReceipt',
        taskId: asked.task.id,
        principal: 'jwt:sub=dave',
        inputHash: hashCanonical([{ text: 'no' }]),
      },
    ]);
    expect(receipts).toHaveLength(4);
    const verified = await verifyVerdict([log], key, { checks: { recording: out } });
    expect(verified.code, verified.lines.join('\n')).toBe(0);
    const lost = await lostVerdict([out]);
    expect(lost.code, JSON.stringify(lost.json)).toBe(0);
    expect(renderDialects(lost.found?.recording?.dialects ?? {})).toBe(
      'dialects: A2A 0.3 (2 exchanges), A2A 1.0 (2 exchanges)\n',
    );
  });
});
