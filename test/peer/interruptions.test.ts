/**
 * The reference peer's `ask:` and `auth:` steps end to end (docs/design.md §4, §14.9): the
 * deterministic peer behind the recorder of `record --key --principal-from jwt-sub`, both in the
 * test's process (`startPeer`, `startRecorder`), over real sockets; what `verify --recording` and
 * `lost --json` conclude is read with the library calls those commands make
 * (test/helpers/verdicts.ts). An `ask:` answered by a client message yields an InterruptionReceipt and a
 * ContinuationReceipt naming who answered; an `auth:` continued by FireEvent `credentials` yields
 * a ContinuationReceipt with cause `out_of_band`; an unanswered `ask:` is `never_continued` and the
 * `--bypass-ask-after` variant's is `bypassed`, in `lost`.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, hashCanonical } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { type PeerOptions, startPeer } from '../../src/public/peer.js';
import { type Recorder, startRecorder } from '../../src/public/record.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { bearer } from '../helpers/jwt.js';

let dir = '';
/** What a test started, closed after it whatever happens (each once). */
const closers: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'peer-interruptions-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
interface TaskView {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: Json[] } };
  history?: Array<{ role: string; parts: Json[] }>;
}

async function rpc(url: string, method: string, params: unknown, sub: string): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: bearer(sub) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as Json;
}

interface Session {
  /** Closes the recorder: true when it wrote all (`record` exits 0). */
  stop(): Promise<boolean>;
  key: string;
  out: string;
  log: string;
  /** A blocking SendMessage of `text` (on `taskId` when given, or in `contextId`): the task it answers with. */
  send(text: string, sub: string, taskId?: string, contextId?: string): Promise<TaskView>;
  control(method: string, params: Json): Promise<Json>;
  getTask(id: string): Promise<TaskView>;
}

/** The deterministic peer (with `peerOptions`) behind the recorder of `record --key --principal-from jwt-sub`. */
async function session(peerOptions: PeerOptions = {}): Promise<Session> {
  const peer = await startPeer({ deterministic: true, ...peerOptions });
  closers.push(() => peer.close());
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'ask' }).keyFile()), { mode: 0o600 });
  const out = join(dir, 'session.jsonl');
  const recorder: Recorder = await startRecorder({
    upstream: peer.url,
    out,
    key,
    principalFrom: 'jwt-sub',
    warn: () => undefined,
  });
  let closed: ReturnType<Recorder['close']> | undefined;
  const close = (): ReturnType<Recorder['close']> => (closed ??= recorder.close());
  closers.push(close);
  let n = 0;
  return {
    stop: async () => (await close()).complete,
    key,
    out,
    log: join(dir, 'session.receipts.jsonl'),
    send: async (text, sub, taskId, contextId) => {
      n++;
      const message = {
        messageId: `m-${n}`,
        role: 'ROLE_USER',
        parts: [{ text }],
        ...(taskId ? { taskId } : {}),
        ...(contextId ? { contextId } : {}),
      };
      const r = (await rpc(recorder.url, 'SendMessage', { message }, sub)) as { result?: { task: TaskView } };
      if (!r.result) throw new Error(`SendMessage failed: ${JSON.stringify(r)}`);
      return r.result.task;
    },
    control: (method, params) => rpc(`${recorder.url}/control`, method, params, 'ops'),
    getTask: async (id) => ((await rpc(recorder.url, 'GetTask', { id }, 'bob')) as { result: TaskView }).result,
  };
}

async function receiptsOf(log: string): Promise<Json[]> {
  return (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json)
    .filter((l) => l.type !== 'ReceiptLog' && l.type !== 'Checkpoint');
}

describe('the reference peer asking through record --key', () => {
  it('an ask: answered by a message: its prompt, the answer in the history, receipts naming who answered', async () => {
    const s = await session();
    const asked = await s.send('ask:approve_the_deploy?', 'bob');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.status.message?.parts).toEqual([{ text: 'approve the deploy?' }]);
    const answered = await s.send('yes', 'alice', asked.id);
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.history?.filter((m) => m.role === 'ROLE_USER').map((m) => m.parts)).toEqual([
      [{ text: 'ask:approve_the_deploy?' }],
      [{ text: 'yes' }],
    ]);
    expect(await s.stop()).toBe(true);

    const receipts = await receiptsOf(s.log);
    expect(receipts.map((r) => r.type)).toEqual(['InterruptionReceipt', 'ContinuationReceipt']);
    expect(receipts[0]).toMatchObject({
      taskId: asked.id,
      state: 'TASK_STATE_INPUT_REQUIRED',
      promptHash: hashCanonical([{ text: 'approve the deploy?' }]),
    });
    expect(receipts[1]).toMatchObject({
      taskId: asked.id,
      cause: 'message',
      principal: 'jwt:sub=alice',
      inputHash: hashCanonical([{ text: 'yes' }]),
    });
    const verified = await verifyVerdict([s.log], s.key, { checks: { recording: s.out } });
    expect(verified.code, verified.lines.join('\n')).toBe(0);
  });

  it('an auth: continued by FireEvent credentials: a ContinuationReceipt out_of_band naming who fired it', async () => {
    const s = await session();
    const asked = await s.send('auth:sign_in_to_the_registry', 'bob');
    expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(asked.status.message?.parts).toEqual([{ text: 'sign in to the registry' }]);
    // Another event name, or no task named, continues nothing.
    await s.control('FireEvent', { name: 'other', payload: { taskId: asked.id } });
    await s.control('FireEvent', { name: 'credentials' });
    expect((await s.getTask(asked.id)).status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const fired = await s.control('FireEvent', { name: 'credentials', payload: { taskId: asked.id } });
    expect(fired).toMatchObject({ result: { resumed: [] } });
    expect((await s.getTask(asked.id)).status.state).toBe('TASK_STATE_COMPLETED');
    expect(await s.stop()).toBe(true);

    const receipts = await receiptsOf(s.log);
    expect(receipts.map((r) => r.type)).toEqual(['InterruptionReceipt', 'ContinuationReceipt']);
    expect(receipts[0]).toMatchObject({ taskId: asked.id, state: 'TASK_STATE_AUTH_REQUIRED' });
    expect(receipts[1]).toMatchObject({
      taskId: asked.id,
      cause: 'out_of_band',
      principal: 'jwt:sub=ops',
      inputHash: null,
    });
    const verified = await verifyVerdict([s.log], s.key, { checks: { recording: s.out } });
    expect(verified.code, verified.lines.join('\n')).toBe(0);
  });

  it('an ask: answered in its context without its id: one InterruptionReceipt, continued_as_new_task', async () => {
    const s = await session();
    const asked = await s.send('ask:approve_the_deploy?', 'bob');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const other = await s.send('work:0', 'alice', undefined, asked.contextId);
    expect(other.id).not.toBe(asked.id);
    expect(other.contextId).toBe(asked.contextId);
    // The original task still asks, as it did: the same interruption, lost already.
    expect((await s.getTask(asked.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await s.getTask(asked.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(await s.stop()).toBe(true);

    const receipts = await receiptsOf(s.log);
    expect(receipts.map((r) => [r.type, r.taskId])).toEqual([['InterruptionReceipt', asked.id]]);
    const lost = await lostVerdict([s.out]);
    expect(lost.code).toBe(1);
    expect((lost.json as { lostInterruptions: Json[] }).lostInterruptions).toMatchObject([
      { taskId: asked.id, reason: 'continued_as_new_task', state: 'TASK_STATE_INPUT_REQUIRED' },
    ]);
    expect((lost.json as { lostInterruptions: Json[] }).lostInterruptions).toHaveLength(1);
    const verified = await verifyVerdict([s.log], s.key, { checks: { recording: s.out } });
    expect(verified.code, verified.lines.join('\n')).toBe(0);
  });

  const lostCases: Array<[string, PeerOptions, string]> = [
    ['an unanswered ask: is never_continued', {}, 'never_continued'],
    ['the --bypass-ask-after variant walks past the gate: bypassed', { bypassAskAfterMs: 60_000 }, 'bypassed'],
  ];
  for (const [name, peerOptions, reason] of lostCases) {
    it(name, async () => {
      const s = await session(peerOptions);
      const asked = await s.send('ask:approve? work:1', 'bob');
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      await s.control('AdvanceClock', { ms: 59_999 });
      expect((await s.getTask(asked.id)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      await s.control('AdvanceClock', { ms: 1 });
      const after = await s.getTask(asked.id);
      expect(after.status.state).toBe(reason === 'bypassed' ? 'TASK_STATE_WORKING' : 'TASK_STATE_INPUT_REQUIRED');
      if (reason === 'bypassed') {
        await s.control('AdvanceClock', { ms: 1000 });
        expect((await s.getTask(asked.id)).status.state).toBe('TASK_STATE_COMPLETED');
      }
      expect(await s.stop()).toBe(true);

      const lost = await lostVerdict([s.out]);
      expect(lost.code).toBe(1);
      expect((lost.json as { lostInterruptions: Json[] }).lostInterruptions).toMatchObject([
        { taskId: asked.id, reason, state: 'TASK_STATE_INPUT_REQUIRED' },
      ]);
    });
  }
});
