/**
 * Interruptions end to end (docs/design.md §6, §14.9): a stock `@a2a-js/sdk` server asks for input
 * with its native INPUT_REQUIRED and a client answers it through the library's recorder (the
 * options of `record --key --principal-from jwt-sub`, in this process), over real sockets: one
 * InterruptionReceipt, one ContinuationReceipt naming who answered, a log that verifies, `audit
 * --kind interruption` saying who continued, when and with what; and `lost` on sessions made to
 * lose one. What `verify`, `audit --json` and `lost` conclude is the library calls the commands make
 * (test/helpers/verdicts.ts); the built CLI prints the audit's tables and the lost interruption's.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JsonObject, canonicalJson, hashCanonical } from '../../src/canonical/canonical-json.js';
import { Keyring, generateReceiptKey } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { runCli } from '../helpers/cli.js';
import { bearer } from '../helpers/jwt.js';
import { auditVerdict, expectNoLostInRecording, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { PROMPT_TEXT, type SdkInputPeer, startSdkInputPeer } from '../fixtures/sdk-input-peer.js';
import { CTX, Entries, TASK } from '../observe/entries.js';

let dir = '';
/** Recorders a test started, closed after it even when an assertion stopped it early. */
const recorders: { close(): Promise<unknown> }[] = [];
let peer: SdkInputPeer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'interruptions-'));
});
afterEach(async () => {
  for (const r of recorders.splice(0)) await r.close().catch(() => undefined);
  await peer?.close();
  peer = undefined;
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

async function rpc(url: string, method: string, params: unknown, sub: string): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: bearer(sub) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as Json;
}

const message = (text: string, taskId?: string): JsonObject => ({
  messageId: `m-${text}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...(taskId === undefined ? {} : { taskId }),
});

describe('a stock SDK server asking for input, through record --key --principal-from jwt-sub', () => {
  it('logs one interruption and one continuation naming who answered, and audits them', async () => {
    peer = await startSdkInputPeer();
    const key = join(dir, 'key.json');
    const signer = generateReceiptKey({ kid: 'ask' });
    const keyring = new Keyring([signer]);
    await writeFile(key, canonicalJson(signer.keyFile()), { mode: 0o600 });
    const out = join(dir, 'session.jsonl');
    const recorder = await startRecorder({ upstream: peer.url, out, key, principalFrom: 'jwt-sub', env: {} });
    recorders.push(recorder);
    const url = `${recorder.url}/a2a/jsonrpc`;
    const asked = (await rpc(url, 'SendMessage', { message: message('deploy') }, 'bob')) as {
      result: { task: { id: string; status: { state: string } } };
    };
    const taskId = asked.result.task.id;
    expect(asked.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answered = (await rpc(url, 'SendMessage', { message: message('yes', taskId) }, 'alice')) as {
      result: { task: { status: { state: string } } };
    };
    expect(answered.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    // Every line written and the log closed with its checkpoint: `record` exits 0.
    expect((await recorder.close()).complete).toBe(true);

    const log = join(dir, 'session.receipts.jsonl');
    const lines = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    const receipts = lines.filter((l) => l.type !== 'ReceiptLog' && l.type !== 'Checkpoint');
    expect(receipts.map((r) => r.type)).toEqual(['InterruptionReceipt', 'ContinuationReceipt']);
    expect(receipts[0]).toMatchObject({
      taskId,
      state: 'TASK_STATE_INPUT_REQUIRED',
      promptHash: hashCanonical([{ text: PROMPT_TEXT }]),
    });
    expect(receipts[1]).toMatchObject({
      taskId,
      cause: 'message',
      principal: 'jwt:sub=alice',
      inputHash: hashCanonical([{ text: 'yes' }]),
    });

    const verified = await verifyVerdict([log], keyring, { checks: { recording: out } });
    expect(verified.code, verified.lines.join('\n')).toBe(0);

    const json = await auditVerdict([log], keyring, { kind: 'interruption' });
    expect(json.code, json.why ?? '').toBe(0);
    expect(json.rows).toMatchObject([
      {
        kind: 'interruption',
        taskId,
        outcome: 'continued',
        cause: 'message',
        continuedBy: 'jwt:sub=alice',
        inputHash: hashCanonical([{ text: 'yes' }]),
      },
    ]);
    const table = await runCli(['audit', log, '--key', key, '--kind', 'interruption']);
    expect(table.stdout.split('\n')[0]).toMatch(/^TASK +STATE +PROMPT +INTERRUPTED AT +CONTINUED +FLAG +TRACE$/);
    expect(table.stdout).toMatch(/continued \(message\) at \S+ by jwt:sub=alice with sha256:[0-9a-f]{64}/);
    const both = await runCli(['audit', log, '--key', key]);
    expect(both.stdout.split('\n')[0]).toMatch(/^KIND +TASK +INITIATED BY/);
    expect(both.stdout.split('\n')[1]).toMatch(/^interruption +/);
    const pauses = (await auditVerdict([log], keyring, { kind: 'pause' })).rows;
    expect(pauses).toEqual([]);

    const lostLog = await lostVerdict([log], { keys: keyring });
    expect(lostLog.code, JSON.stringify(lostLog.json)).toBe(0);
    const lost = await lostVerdict([out]);
    expectNoLostInRecording(lost.found);
    expect(lost.code).toBe(0);
  });
});

/** A recording file of `entries`. */
async function recordingOf(name: string, entries: readonly RecordingEntry[]): Promise<string> {
  const file = join(dir, `${name}.jsonl`);
  const header = {
    type: 'recording',
    version: 1,
    id: `rec-${name}`,
    createdAt: '2026-04-30T12:34:50.000Z',
    target: { url: 'http://127.0.0.1:1/' },
    tool: 'a2a-replay@test',
  };
  await writeFile(file, [header, ...entries].map((l) => `${JSON.stringify(l)}\n`).join(''));
  return file;
}

function asks(e: Entries): void {
  e.request('m0', 'SendMessage', { message: { ...message('deploy'), contextId: CTX } });
  e.result('m0', {
    task: {
      id: TASK,
      contextId: CTX,
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: { messageId: 'p', role: 'ROLE_AGENT', parts: [{ text: PROMPT_TEXT }] },
      },
    },
  });
}

describe('lost interruptions', () => {
  const cases: Array<[string, (e: Entries) => void, string, string]> = [
    ['never-continued', () => undefined, 'never_continued', 'interrupted/end-never-continued'],
    [
      'new-task',
      (e) => {
        e.request('m1', 'SendMessage', { message: { ...message('yes'), contextId: CTX } });
        e.result('m1', { task: { id: 'task-new', contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } } });
      },
      'continued_as_new_task',
      'interrupted/answered-as-new-task',
    ],
    [
      'bypassed',
      (e) => {
        e.request('g1', 'GetTask', { id: TASK });
        e.result('g1', { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } });
      },
      'bypassed',
      'interrupted/bypassed',
    ],
  ];
  for (const [name, then, reason, rule] of cases) {
    it(`reports ${reason} with its rule, in the table and in --json`, async () => {
      const e = new Entries();
      asks(e);
      then(e);
      const file = await recordingOf(name, e.list);
      const found = await lostVerdict([file]);
      expect(found.code).toBe(1);
      expect(found.found.interruptions).toHaveLength(1);
      const json = found.json as { lostInterruptions: Json[] };
      expect(json.lostInterruptions).toMatchObject([
        { taskId: TASK, reason, rule, state: 'TASK_STATE_INPUT_REQUIRED' },
      ]);
      if (name !== 'never-continued') return;
      // The command's table of that listing (one case is enough to show it prints what was found).
      const table = await runCli(['lost', file]);
      expect(table.code).toBe(1);
      expect(table.stdout).toContain(`1 lost interruption in ${file}`);
      expect(table.stdout).toMatch(new RegExp(`${TASK} +INPUT_REQUIRED +${reason} +${rule.replace('/', '\\/')}`));
    });
  }

  it('reports nothing on a clean session', async () => {
    const e = new Entries();
    asks(e);
    e.request('m1', 'SendMessage', { message: message('yes', TASK) }, { principal: 'jwt:sub=alice' });
    e.result('m1', { task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } } });
    const file = await recordingOf('clean', e.list);
    const lost = await lostVerdict([file]);
    expectNoLostInRecording(lost.found);
    expect(lost.code).toBe(0);
  });
});
