/**
 * The reference peer in A2A v0.3, end to end over real sockets (docs/design.md §4 "Two dialects",
 * §8, §13): the stock 0.3.14 JSON-RPC client asks the deterministic reference peer (`startPeer`)
 * for input and answers it, then pauses a running task through `tasks/pause`, reads it, resumes
 * it through `tasks/resume` with the token it was given, and cancels it — all through the recorder
 * (`startRecorder`, what `record` runs). `run` of that recording on its embedded peer (started in
 * both dialects, as the recorded card says; `replayReport`) passes, and the mock
 * (`startMockServer`, what `mock` starts) serves the same client the recorded results. All in this
 * process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from 'a2a-sdk-v03';
import { JsonRpcTransport } from 'a2a-sdk-v03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { startMock } from '../helpers/mock-in-process.js';
import { replayReport } from '../helpers/run-report.js';

const KEY = fileURLToPath(new URL('../../golden/test-key.json', import.meta.url));

let dir = '';
let recording = '';
let recorded: unknown[] = [];
let n = 0;

function message(text: string, task?: { id: string; contextId: string }): Message {
  return {
    kind: 'message',
    messageId: `m-${++n}`,
    role: 'user',
    parts: [{ kind: 'text', text }],
    ...(task ? { taskId: task.id, contextId: task.contextId } : {}),
  };
}

/** The session as the client sees it: every answer, in order. */
async function session(base: string): Promise<unknown[]> {
  n = 0;
  const client = new JsonRpcTransport({ endpoint: base });
  const seen: unknown[] = [];
  const asked = (await client.sendMessage({ message: message('input') })) as { id: string; contextId: string };
  seen.push(asked);
  seen.push(await client.sendMessage({ message: message('yes', asked) }));
  const running = (await client.sendMessage({ message: message('work:5'), configuration: { blocking: false } })) as {
    id: string;
  };
  seen.push(running);
  const paused = (await client.callExtensionMethod(
    'tasks/pause',
    { taskId: running.id, mode: 'interrupt_immediate' },
    ++n,
  )) as unknown as { result: { pause: { resumeToken: string } } };
  seen.push(paused);
  seen.push(await client.getTask({ id: running.id }));
  const token = paused.result.pause.resumeToken;
  seen.push(await client.callExtensionMethod('tasks/resume', { taskId: running.id, resumeToken: token }, ++n));
  seen.push(await client.cancelTask({ id: running.id }));
  return seen;
}

/** `value` with every resume token replaced by one stand-in. */
function withoutTokens(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(/"resumeToken":"[^"]*"/g, '"resumeToken":"(token)"'));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-mock-peer-v03-'));
  recording = join(dir, 'peer-v03.jsonl');
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startRecorder({ upstream: peer.url, out: recording, key: KEY, warn: () => undefined });
    try {
      // The card first, as a client resolving the agent does: `run` reads the peer's settings in it.
      const card = (await (await fetch(`${recorder.url}/.well-known/agent-card.json`)).json()) as Record<
        string,
        unknown
      >;
      // The recorder names itself where the card named the peer.
      expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${recorder.url}/` });
      recorded = await session(recorder.url);
    } finally {
      expect((await recorder.close()).complete).toBe(true);
    }
  } finally {
    await peer.close();
  }
  expect(recorded[0]).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
  expect(recorded[1]).toMatchObject({ kind: 'task', status: { state: 'completed' } });
  expect(recorded[3]).toMatchObject({ result: { state: 'paused' } });
  expect(recorded[4]).toMatchObject({ kind: 'task', status: { state: 'paused' } });
  expect(recorded[5]).toMatchObject({ result: { state: 'working', previousState: 'paused' } });
  expect(recorded[6]).toMatchObject({ kind: 'task', status: { state: 'canceled' } });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a v0.3 session with the reference peer', () => {
  it('replays on the embedded peer, started in both dialects as its card says, to a PASS', async () => {
    const r = await replayReport([recording], { key: KEY });
    expect(r.stdout, r.warnings.join('\n')).toMatch(/^PASS /m);
    expect(r.code).toBe(0);
  });

  it('serves the same client the recorded results from mock', async () => {
    const mock = await startMock([recording]);
    try {
      // The recording keeps no resume token (design §5): the mock hands out its placeholder, and
      // the client's resume with it is answered as recorded.
      const served = await session(mock.url);
      expect(JSON.stringify(served)).toMatch(/"resumeToken":"a2a-replay:resume-token:sha256:[0-9a-f]{64}"/);
      expect(withoutTokens(served)).toEqual(withoutTokens(recorded));
      // Pause-aware past the recording, as for v1.0: a second tasks/resume of the consumed token,
      // and a tasks/pause of the canceled task, get the RFC's -32010 from what the client was shown.
      const client = new JsonRpcTransport({ endpoint: mock.url });
      const taskId = (served[2] as { id: string }).id;
      const token = (served[3] as { result: { pause: { resumeToken: string } } }).result.pause.resumeToken;
      // The SDK transport throws a JSON-RPC error as an Error naming its message and code.
      const refused = (method: string, params: unknown): Promise<string> =>
        client.callExtensionMethod(method, params, 90).then(
          (answer) => `answered ${JSON.stringify(answer)}`,
          (error: unknown) => (error as Error).message,
        );
      expect(await refused('tasks/resume', { taskId, resumeToken: token })).toContain(
        `task ${taskId} is TASK_STATE_CANCELED, not PAUSED: nothing to resume (Code: -32010)`,
      );
      expect(await refused('tasks/pause', { taskId })).toContain('it cannot be paused (Code: -32010)');
    } finally {
      await mock.close();
    }
  });
});
