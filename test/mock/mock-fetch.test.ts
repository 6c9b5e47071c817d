/**
 * The mock's answers through `createMockFetch` over golden recordings: the agent card points at
 * the mock, a request nothing matches gets NO_RECORDED_EXCHANGE naming the closest exchange and
 * the field that differs, pause calls the recording holds no case for get the RFC's errors, and
 * `speed` keeps the recorded gaps, scaled (through an injected delay, never a clock).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import { type MockFetch, createMockFetch } from '../../src/mock/mock-fetch.js';
import { type Recording, readRecording } from '../../src/recording/recording-reader.js';
import { ROOT } from '../helpers/cli.js';

const golden = (name: string): Promise<Recording> => readRecording(join(ROOT, 'golden', name, 'recording.jsonl'));

interface Reply {
  result?: Record<string, unknown> & { task?: { id: string }; pause?: { resumeToken: string } };
  error?: { code: number; message: string; data?: { reason?: string; metadata?: Record<string, string> }[] };
}

async function rpc(mock: MockFetch, method: string, params: unknown, path = '/'): Promise<Reply> {
  const response = await mock(new URL(path, mock.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'c-1', method, params }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Reply;
}

const start = (script: string, messageId: string) => ({
  message: { messageId, role: 'ROLE_USER', parts: [{ text: script }] },
  configuration: { returnImmediately: true },
});

describe('createMockFetch', () => {
  it('serves the recorded agent card pointing at the mock itself', async () => {
    const mock = createMockFetch(await golden('caller-pause-finish-step'), { url: 'http://127.0.0.1:9/' });
    const card = (await (await mock(new URL('/.well-known/agent-card.json', mock.url))).json()) as {
      supportedInterfaces: { url: string }[];
    };
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual([
      'http://127.0.0.1:9/',
      'http://127.0.0.1:9/rest',
      '127.0.0.1:9',
    ]);
  });

  it('points every interface URL of the card at the mock, a recorded public address too', async () => {
    const recording = await golden('caller-pause-finish-step');
    // A card that names the agent's public address, recorded in front of an internal one: in
    // the header and in the answer to the client's card request.
    const publicCard = (card: unknown): JsonValue => {
      const c = card as { supportedInterfaces: { url: string }[] };
      const [first, ...rest] = c.supportedInterfaces;
      return { ...c, supportedInterfaces: [{ ...first, url: 'https://agent.example.com/a2a' }, ...rest] } as JsonValue;
    };
    recording.header.agentCard = publicCard(recording.header.agentCard);
    for (const e of recording.entries)
      if (e.kind === 'response' && e.http.path.endsWith('agent-card.json')) e.body = publicCard(e.body);
    const mock = createMockFetch(recording, { url: 'http://127.0.0.1:9/' });
    const served = (await (await mock(new URL('/.well-known/agent-card.json', mock.url))).json()) as {
      supportedInterfaces: { url: string }[];
    };
    expect(served.supportedInterfaces.map((i) => i.url)).toEqual([
      'http://127.0.0.1:9/a2a',
      'http://127.0.0.1:9/rest',
      '127.0.0.1:9',
    ]);
  });

  it('never shows a polling client a state its own calls have not reached, and repeats what it showed', async () => {
    const recording = await golden('caller-pause-interrupt-immediate');
    const params = (method: string): unknown =>
      (
        recording.entries.find((e) => e.kind === 'request' && (e.body as { method?: string })?.method === method)
          ?.body as { params: unknown }
      ).params;
    const mock = createMockFetch(recording);
    const state = (reply: Reply): unknown =>
      (reply.result as { status?: { state?: string } } | undefined)?.status?.state ??
      (reply.result as { state?: string } | undefined)?.state ??
      reply.error?.data?.[0]?.reason;
    // The stream starts the task; it is read later, not awaited here.
    const stream = mock(new URL('/', mock.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 's',
        method: 'SendStreamingMessage',
        params: params('SendStreamingMessage'),
      }),
    });
    const getTask = params('GetTask');
    // Recorded GetTasks come after the PauseTask: before the client pauses, none may be shown.
    expect(state(await rpc(mock, 'GetTask', getTask))).toBe('NO_RECORDED_EXCHANGE');
    await rpc(mock, 'AdvanceClock', params('AdvanceClock'), '/control');
    expect(state(await rpc(mock, 'PauseTask', params('PauseTask')))).toBe('TASK_STATE_PAUSED');
    // The first poll gets the recorded one; more polls than the recorded client made show the
    // same, never the COMPLETED task recorded after a ResumeTask the client has not sent.
    for (let poll = 0; poll < 3; poll++) expect(state(await rpc(mock, 'GetTask', getTask))).toBe('TASK_STATE_PAUSED');
    expect(state(await rpc(mock, 'ResumeTask', params('ResumeTask')))).toBe('TASK_STATE_WORKING');
    await (await stream).body?.cancel();
  });

  it('answers a request nothing matches with -32603 NO_RECORDED_EXCHANGE naming the closest exchange', async () => {
    const mock = createMockFetch(await golden('wrong-token-then-right'), { sources: ['wrong-token'] });
    const reply = await rpc(mock, 'SendMessage', start('work:3', 'my-m1'));
    expect(reply.error?.code).toBe(-32603);
    expect(reply.error?.data?.[0]).toMatchObject({
      reason: 'NO_RECORDED_EXCHANGE',
      metadata: { recording: 'wrong-token', xid: 'x-d2c00de0-0001', seq: '1', field: '/params/message/parts/0/text' },
    });
    expect(reply.error?.message).toContain('seq 1 (xid x-d2c00de0-0001)');
    expect(mock.report().unmatched).toEqual([
      {
        method: 'SendMessage',
        path: '/',
        closest: {
          recording: 'wrong-token',
          xid: 'x-d2c00de0-0001',
          seq: 1,
          method: 'SendMessage',
          field: '/params/message/parts/0/text',
          alreadyRequested: false,
        },
      },
    ]);
  });

  it('answers with the client’s call number and message id, and names an already used closest exchange', async () => {
    const mock = createMockFetch(await golden('wrong-token-then-right'));
    const sent = await rpc(mock, 'SendMessage', start('work:2', 'my-own-id'));
    expect(sent.result?.task?.id).toBe('task-6e6ed95a-0001');
    expect(JSON.stringify(sent)).toContain('"messageId":"my-own-id"');
    expect(JSON.stringify(sent)).not.toContain('token-m1');
    const again = await rpc(mock, 'SendMessage', start('work:2', 'my-own-id'));
    expect(again.error?.data?.[0]?.metadata).toMatchObject({ seq: '1', field: '', alreadyRequested: 'true' });
  });

  it('refuses a wrong token with -32011 and a second resume with -32010 when the recording holds neither', async () => {
    const mock = createMockFetch(await golden('poll-caller-pause-resume'));
    const { result } = await rpc(mock, 'SendMessage', start('work:3', 'pcaller-m1'));
    const taskId = result?.task?.id as string;
    const paused = await rpc(mock, 'PauseTask', { taskId, reason: 'operator review' });
    const token = paused.result?.pause?.resumeToken as string;
    const wrong = await rpc(mock, 'ResumeTask', { taskId, resumeToken: 'not-the-token' });
    expect(wrong.error).toMatchObject({ code: -32011, data: [{ reason: 'RESUME_TOKEN_MISMATCH' }] });
    const resumed = await rpc(mock, 'ResumeTask', { taskId, resumeToken: token });
    expect(resumed.result).toMatchObject({ state: 'TASK_STATE_WORKING', cause: 'explicit_resume' });
    const second = await rpc(mock, 'ResumeTask', { taskId, resumeToken: token });
    expect(second.error).toMatchObject({ code: -32010, data: [{ reason: 'INVALID_TASK_STATE' }] });
    expect(mock.report().unmatched).toEqual([]);
  });

  it('gives the recorded errors for a wrong token and a second resume when the recording holds them', async () => {
    const wrongFirst = createMockFetch(await golden('wrong-token-then-right'));
    const { result } = await rpc(wrongFirst, 'SendMessage', start('work:2', 'm'));
    const taskId = result?.task?.id as string;
    const token = (await rpc(wrongFirst, 'PauseTask', { taskId, reason: 'review' })).result?.pause?.resumeToken;
    const wrong = await rpc(wrongFirst, 'ResumeTask', { taskId, resumeToken: 'any-other-token' });
    expect(wrong.error?.message).toContain('(tokens are consume-once)');
    expect(wrong.error?.code).toBe(-32011);
    expect((await rpc(wrongFirst, 'ResumeTask', { taskId, resumeToken: token })).result?.state).toBe(
      'TASK_STATE_WORKING',
    );

    const race = createMockFetch(await golden('double-resume-race'));
    const started = await rpc(race, 'SendMessage', start('work:2', 'r'));
    const raced = started.result?.task?.id as string;
    const raceToken = (await rpc(race, 'PauseTask', { taskId: raced, reason: 'review' })).result?.pause?.resumeToken;
    const both = await Promise.all([
      rpc(race, 'ResumeTask', { taskId: raced, resumeToken: raceToken }),
      rpc(race, 'ResumeTask', { taskId: raced, resumeToken: raceToken }),
    ]);
    expect(both.map((r) => r.result?.state ?? r.error?.code).sort()).toEqual([-32010, 'TASK_STATE_WORKING']);
  });

  it('refuses a pause on a terminal task with -32010 when the recording holds no such attempt', async () => {
    const mock = createMockFetch(await golden('cancel-while-paused'));
    const { result } = await rpc(mock, 'SendMessage', start('work:3', 'cancel-m1'));
    const taskId = result?.task?.id as string;
    await rpc(mock, 'PauseTask', { taskId, reason: 'stop and think' });
    expect((await rpc(mock, 'CancelTask', { id: taskId })).result?.status).toMatchObject({
      state: 'TASK_STATE_CANCELED',
    });
    const late = await rpc(mock, 'PauseTask', { taskId, reason: 'too late' });
    expect(late.error).toMatchObject({ code: -32010, data: [{ reason: 'INVALID_TASK_STATE' }] });
  });

  it('with speed, waits the recorded gap before an answer, divided by speed', async () => {
    const recording = await golden('wrong-token-then-right');
    const [request, response] = recording.entries;
    const gap = Date.parse(response?.at ?? '') - Date.parse(request?.at ?? '');
    expect(gap).toBeGreaterThan(0);
    const delays: number[] = [];
    const mock = createMockFetch(recording, {
      speed: 4,
      delay: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    });
    await rpc(mock, 'SendMessage', start('work:2', 'm'));
    expect(delays).toEqual([gap / 4]);
    expect(() => createMockFetch(recording, { speed: 0 })).toThrow(/speed must be a positive number/);
  });
});
