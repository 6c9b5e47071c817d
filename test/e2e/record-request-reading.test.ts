/**
 * How the recorder reads a request as the peer does, through `a2a-replay record --key` in front of
 * `a2a-replay peer --deterministic` (child processes, real sockets, targets and bytes sent as
 * written): a dot segment, an encoded dot segment, a fragment and a backslash in a pause's target
 * are refused with HTTP 400 and never reach the peer, recorded as a request and an `error` entry;
 * a REST pause whose body holds a `jsonrpc` member is read by its route and gets its receipt; a
 * pause whose reason holds a byte that is not UTF-8 is read as the peer reads it and gets its
 * receipt, the repair listed.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { runCli } from '../helpers/cli.js';
import { sendTarget } from '../helpers/raw-http.js';
import { type CliProcess, startCliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';
import { ok } from '../replay/session.js';

let dir = '';
let peer: CliProcess;
let recorder: CliProcess;
const AUTH = { authorization: 'Bearer ops-token' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-targets-'));
  await writeFile(join(dir, 'key.json'), canonicalJson(generateReceiptKey({ kid: 'e2e' }).keyFile()), { mode: 0o600 });
  peer = await startCliProcess(['peer', '--deterministic']);
  recorder = await startRecordProcess([
    '--upstream',
    peer.url,
    '--out',
    join(dir, 'session.jsonl'),
    '--key',
    join(dir, 'key.json'),
  ]);
});

afterAll(async () => {
  if (recorder) await stopProcess(recorder, 'SIGKILL');
  if (peer) await stopProcess(peer, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** A task that is working (paused only when a pause reaches the peer), created through the recorder. */
async function workingTask(): Promise<string> {
  const { task } = await ok<{ task: { id: string } }>(recorder.url, 'SendMessage', {
    message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  });
  await ok(recorder.url, 'AdvanceClock', { ms: 1000 }, '/control');
  return task.id;
}

/** The task's state as the peer itself reports it (asked directly, past the recorder). */
async function peerState(taskId: string): Promise<string> {
  const task = await ok<{ status: { state: string } }>(peer.url, 'GetTask', { id: taskId });
  return task.status.state;
}

async function receiptsOf(taskId: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(dir, 'session.receipts.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.taskId === taskId);
}

describe('a pause whose target servers read differently', () => {
  it.each([
    ['a dot segment', (id: string) => `/rest/tasks/zz/../${id}:pause`, 'dot segment'],
    ['an encoded dot segment', (id: string) => `/rest/tasks/zz/%2e%2e/${id}:pause`, 'dot segment'],
    ['a fragment', (id: string) => `/rest/tasks/${id}:pause#x`, 'fragment'],
    ['a backslash', (id: string) => `/rest/tasks\\${id}:pause`, 'backslash'],
    ['a path parameter', (id: string) => `/rest/tasks/${id}:pause;jsessionid=x`, 'path parameter'],
  ])('is refused with 400 and never reaches the peer when it holds %s', async (_name, targetOf, words) => {
    const id = await workingTask();
    const target = targetOf(id);
    const answer = await sendTarget(recorder.url, 'POST', target, JSON.stringify({ reason: 'r' }), AUTH);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining(words) as string },
    });
    expect(await peerState(id)).toBe('TASK_STATE_WORKING');
    expect(await receiptsOf(id)).toEqual([]);
  });

  it('is refused by the peer itself in the same words', async () => {
    const id = await workingTask();
    const answer = await sendTarget(peer.url, 'POST', `/rest/tasks/zz/%2E%2E/${id}:pause`, '{}', AUTH);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { message: expect.stringContaining('dot segment') as string },
    });
    const rpc = await sendTarget(peer.url, 'POST', '/./', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'GetTask' }));
    expect(rpc.status).toBe(400);
    expect(JSON.parse(rpc.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect(await peerState(id)).toBe('TASK_STATE_WORKING');
  });
});

it('reads a REST pause by its route when its body holds a jsonrpc member, and receipts it', async () => {
  const id = await workingTask();
  const body = JSON.stringify({ jsonrpc: '2.0', reason: 'route decides' });
  const answer = await sendTarget(recorder.url, 'POST', `/rest/tasks/${id}:pause`, body, AUTH);
  expect(answer.status).toBe(200);
  expect(await peerState(id)).toBe('TASK_STATE_PAUSED');
  expect(await receiptsOf(id)).toMatchObject([
    { type: 'SuspensionReceipt', via: 'PauseTask', binding: 'HTTP+JSON', reason: 'route decides' },
  ]);
  expect((await receiptsOf(id))[0]?.principal).toMatch(/^bearer:hmac:[0-9a-f]{16}$/);
});

describe('a pause whose reason holds a byte that is not UTF-8', () => {
  /** The UTF-8 of `json` with its `@` replaced by the byte 0xFF, which no UTF-8 text holds. */
  const invalid = (json: string): Buffer => {
    const [before = '', after = ''] = json.split('@');
    return Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)]);
  };

  it.each([
    [
      'JSONRPC',
      (id: string): [string, string] => [
        '/',
        `{"jsonrpc":"2.0","id":3,"method":"PauseTask","params":{"taskId":"${id}","reason":"a@b"}}`,
      ],
    ],
    ['HTTP+JSON', (id: string): [string, string] => [`/rest/tasks/${id}:pause`, '{"reason":"a@b"}']],
  ] as const)('is receipted over %s, its reason read with U+FFFD and the repair listed', async (binding, request) => {
    const id = await workingTask();
    const [target, json] = request(id);
    const answer = await sendTarget(recorder.url, 'POST', target, invalid(json), AUTH);
    expect(answer.status).toBe(200);
    expect(await peerState(id)).toBe('TASK_STATE_PAUSED');
    expect(await receiptsOf(id)).toMatchObject([
      { type: 'SuspensionReceipt', via: 'PauseTask', binding, reason: 'a\uFFFDb', repaired: ['reason'] },
    ]);
  });
});

it('records each refused target as sent, as a request and an error entry, in a log verify accepts', async () => {
  const id = await workingTask();
  const target = `/rest/tasks/a/./b/..\\${id}:pause#frag`;
  expect((await sendTarget(recorder.url, 'POST', target, '{}', AUTH)).status).toBe(400);
  const json = await sendTarget(recorder.url, 'POST', '/x/../', JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'M' }));
  expect(json.status).toBe(400);
  expect(JSON.parse(json.body)).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32600 } });
  expect(await stopProcess(recorder)).toBe(0);
  const { entries } = await readRecording(join(dir, 'session.jsonl'));
  const refused = entries.filter((e) => e.http.path === target || e.http.path === '/x/../');
  expect(refused.map((e) => [e.kind, e.http.path])).toEqual([
    ['request', target],
    ['error', target],
    ['request', '/x/../'],
    ['error', '/x/../'],
  ]);
  expect(refused[1]?.error).toMatch(/^the request target is refused: .*; not forwarded$/);
  const repaired = entries.filter((e) => e.kind === 'request' && e.bodyRepaired !== undefined);
  expect(repaired.map((e) => e.bodyRepaired)).toEqual([
    expect.stringMatching(/^invalid UTF-8 read as U\+FFFD; sha256 of \d+ bytes:[0-9a-f]{64}$/),
    expect.stringMatching(/^invalid UTF-8 read as U\+FFFD; sha256 of \d+ bytes:[0-9a-f]{64}$/),
  ]);
  expect(repaired.map((e) => e.body)).toMatchObject([{ params: { reason: 'a\uFFFDb' } }, { reason: 'a\uFFFDb' }]);
  const verify = await runCli(['verify', join(dir, 'session.receipts.jsonl'), '--key', join(dir, 'key.json')]);
  expect(verify.code, verify.stderr).toBe(0);
});
