/**
 * The mock over a real socket serving an HTTP+JSON golden recording (docs/design.md §13, §15): a
 * request nothing matches gets HTTP 500 with a Status body whose ErrorInfo is NO_RECORDED_EXCHANGE
 * naming the closest exchange and the field that differs, and a resume with a token the recording
 * holds no case for gets the RFC's RESUME_TOKEN_MISMATCH as HTTP 400 FAILED_PRECONDITION.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MOCK_ERROR_DOMAIN, NO_RECORDED_EXCHANGE } from '../../src/mock/mock-engine.js';
import { type RunningMock, startMockServer } from '../../src/mock/mock-server.js';
import { ERROR_DOMAIN } from '../../src/protocol/errors.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { ROOT } from '../helpers/cli.js';
import { sendTarget } from '../helpers/raw-http.js';

const RECORDING = join(ROOT, 'golden', 'rest-wrong-token-then-right', 'recording.jsonl');
const TASK = 'task-6e6ed95a-0001';

interface StatusBody {
  error?: {
    code: number;
    status: string;
    message: string;
    details: { '@type': string; reason: string; domain: string; metadata?: Record<string, string> }[];
  };
  state?: string;
  pause?: { resumeToken: string };
}

let mock: RunningMock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function start(): Promise<RunningMock> {
  mock = await startMockServer([{ source: 'rest-wrong-token', recording: await readRecording(RECORDING) }]);
  return mock;
}

async function post(running: RunningMock, path: string, body: unknown): Promise<{ status: number; body: StatusBody }> {
  const response = await fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as StatusBody };
}

/** POSTs with an absolute-form target, as a client does that takes the mock for its HTTP proxy. */
function postAbsolute(
  running: RunningMock,
  path: string,
  body: unknown,
): Promise<{ status: number; body: StatusBody }> {
  const { port } = new URL(running.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `http://agent.example${path}`,
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as StatusBody,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const send = (script: string) => ({
  configuration: { returnImmediately: true },
  message: { messageId: 'token-m1', parts: [{ text: script }], role: 'ROLE_USER' },
});

describe('the mock serving an HTTP+JSON recording', () => {
  it('answers an unmatched HTTP+JSON request with HTTP 500 NO_RECORDED_EXCHANGE naming the closest one', async () => {
    const running = await start();
    const reply = await post(running, '/rest/message:send', send('work:3'));
    expect(reply.status).toBe(500);
    expect(reply.body.error).toMatchObject({ code: 500, status: 'INTERNAL' });
    expect(reply.body.error?.message).toContain('no recorded exchange matches this SendMessage request');
    expect(reply.body.error?.details[0]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: NO_RECORDED_EXCHANGE,
      domain: MOCK_ERROR_DOMAIN,
      metadata: {
        recording: 'rest-wrong-token',
        xid: 'x-03e7cc2e-0001',
        seq: '1',
        method: 'SendMessage',
        field: '/params/message/parts/0/text',
        alreadyRequested: 'false',
      },
    });
    expect(running.report().unmatched).toEqual([
      {
        method: 'SendMessage',
        path: '/rest/message:send',
        closest: {
          recording: 'rest-wrong-token',
          xid: 'x-03e7cc2e-0001',
          seq: 1,
          method: 'SendMessage',
          field: '/params/message/parts/0/text',
          alreadyRequested: false,
        },
      },
    ]);
  });

  it('answers a resume with a token the recording holds no case for with HTTP 400 RESUME_TOKEN_MISMATCH', async () => {
    const running = await start();
    expect((await post(running, '/rest/message:send', send('work:2'))).status).toBe(200);
    const paused = await post(running, `/rest/tasks/${TASK}:pause`, { reason: 'review' });
    expect(paused.body.state).toBe('TASK_STATE_PAUSED');
    // The recorded wrong-token attempt: any token the client was never given stands for it.
    const recordedWrong = await post(running, `/rest/tasks/${TASK}:resume`, { resumeToken: 'not-the-token-1' });
    expect(recordedWrong.status).toBe(400);
    // A second wrong token has no recorded case: the RFC's answer, in the HTTP+JSON error model.
    const fallback = await post(running, `/rest/tasks/${TASK}:resume`, { resumeToken: 'not-the-token-2' });
    expect(fallback.status).toBe(400);
    expect(fallback.body.error).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION' });
    expect(fallback.body.error?.details[0]).toMatchObject({
      reason: 'RESUME_TOKEN_MISMATCH',
      domain: ERROR_DOMAIN,
      metadata: { taskId: TASK },
    });
    const token = paused.body.pause?.resumeToken ?? '';
    const resumed = await post(running, `/rest/tasks/${TASK}:resume`, { resumeToken: token });
    expect(resumed).toMatchObject({ status: 200, body: { state: 'TASK_STATE_WORKING' } });
    expect(running.report().unmatched).toEqual([]);
  });

  it('serves a request whose target is in absolute form as the same request by its path', async () => {
    const running = await start();
    expect((await postAbsolute(running, '/rest/message:send', send('work:2'))).status).toBe(200);
    const paused = await postAbsolute(running, `/rest/tasks/${TASK}:pause`, { reason: 'review' });
    expect(paused).toMatchObject({ status: 200, body: { state: 'TASK_STATE_PAUSED' } });
    expect(running.report().unmatched).toEqual([]);
  });

  it('refuses a target servers read differently as the peer does, and serves its plain spelling', async () => {
    const running = await start();
    expect((await post(running, '/rest/message:send', send('work:2'))).status).toBe(200);
    for (const target of [
      `/rest/tasks/zz/%2e%2e/${TASK}:pause`,
      `/rest/tasks\\${TASK}:pause`,
      `/rest/tasks/a%2Fb:pause`,
    ]) {
      const answer = await sendTarget(running.url, 'POST', target, JSON.stringify({ reason: 'review' }));
      expect(answer.status, target).toBe(400);
      expect(JSON.parse(answer.body), target).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    }
    const spelled = await sendTarget(running.url, 'POST', `/rest/t%61sks/${TASK}:pause`, '{"reason":"review"}');
    expect(spelled.status).toBe(200);
    expect(JSON.parse(spelled.body)).toMatchObject({ state: 'TASK_STATE_PAUSED' });
  });
});
