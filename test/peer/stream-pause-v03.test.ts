/**
 * The reference peer in A2A v0.3 over both JSON bindings, end to end over real sockets in-process
 * through the public entries (docs/design.md §4 "Two dialects", §8, §13): the stock 0.3.14 client
 * asks the deterministic peer (`startPeer`) for input and answers it through the recorder
 * (`startRecorder` with the test key, what `record --key` starts); a streamed task is paused
 * through the v0.3 pause extension (`tasks/pause` over JSON-RPC, `POST /rest/v1/tasks/{id}:pause`
 * over HTTP+JSON), read while paused, resumed with its token and canceled, its stream showing each
 * move. `replayRecordings` (what `run` calls) of that recording on its embedded peer passes with
 * the same receipts; the mock (`startMockServer`, what `mock` starts) serves the client the
 * recorded session again, its v0.3 stream held at PAUSED until the client resumes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, Task } from 'a2a-sdk-v03';
import { JsonRpcTransport, RestTransport, type Transport } from 'a2a-sdk-v03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseParser } from '../../src/intercept/sse-parser.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { GOLDEN_KEY } from '../golden/golden-receipts.js';
import { startMock, stopMock } from '../helpers/mock-in-process.js';
import { replayReport } from '../helpers/run-report.js';

const KEY = GOLDEN_KEY;

type Binding = 'JSONRPC' | 'HTTP+JSON';
type Json = Record<string, unknown>;

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stream-pause-v03-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The state an answer or stream event of either v0.3 binding shows, or undefined. */
function stateOf(value: unknown): string | undefined {
  const v = value as Json;
  const inner = (v.task ?? v.statusUpdate ?? v) as { status?: { state?: string } };
  return inner.status?.state;
}

/** One open v0.3 stream read frame by frame: the results (JSON-RPC) or bodies (HTTP+JSON) so far. */
class V03Stream {
  readonly events: unknown[] = [];
  readonly done: Promise<void>;
  #waiters: (() => void)[] = [];

  constructor(response: Promise<Response>, binding: Binding) {
    this.done = (async () => {
      const res = await response;
      const parser = new SseParser();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const { data } of parser.push(chunk)) {
          if (!data) continue;
          const frame = JSON.parse(data) as Json;
          this.events.push(binding === 'JSONRPC' ? frame.result : frame);
          for (const wake of this.#waiters.splice(0)) wake();
        }
      }
    })();
  }

  /** Waits for an event that passes `test`. */
  async until(test: (event: unknown) => boolean): Promise<unknown> {
    for (;;) {
      const seen = this.events.find(test);
      if (seen !== undefined) return seen;
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }
}

/** What the session does in one binding, with the stock client where it reads the answer. */
class V03Session {
  #n = 0;
  readonly client: Transport;

  constructor(
    readonly base: string,
    readonly binding: Binding,
  ) {
    this.client =
      binding === 'JSONRPC'
        ? new JsonRpcTransport({ endpoint: base })
        : new RestTransport({ endpoint: `${base}/rest` });
  }

  message(text: string, task?: { id: string; contextId: string }): Message {
    return {
      kind: 'message',
      messageId: `m-${++this.#n}`,
      role: 'user',
      parts: [{ kind: 'text', text }],
      ...(task ? { taskId: task.id, contextId: task.contextId } : {}),
    };
  }

  /** A raw v0.3 call: a JSON-RPC method, or the HTTP+JSON route of `path` (no A2A-Version either way). */
  async raw(method: string, path: string, params: Json, verb = 'POST'): Promise<unknown> {
    const rpc = this.binding === 'JSONRPC';
    const res = await fetch(rpc ? this.base : `${this.base}/rest${path}`, {
      method: rpc ? 'POST' : verb,
      headers: { 'content-type': 'application/json' },
      ...(rpc || verb === 'POST'
        ? { body: JSON.stringify(rpc ? { jsonrpc: '2.0', id: ++this.#n, method, params } : params) }
        : {}),
    });
    const body = (await res.json()) as Json;
    return rpc ? body.result : body;
  }

  stream(text: string): V03Stream {
    const message = this.message(text);
    const rpc = this.binding === 'JSONRPC';
    const body = rpc
      ? { jsonrpc: '2.0', id: ++this.#n, method: 'message/stream', params: { message } }
      : { message: { messageId: message.messageId, role: 'ROLE_USER', content: [{ text }] } };
    const response = fetch(rpc ? this.base : `${this.base}/rest/v1/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
    return new V03Stream(response, this.binding);
  }
}

/** The session as the client sees it: every answer and every stream event, in order. */
async function session(base: string, binding: Binding, checkHeld = false): Promise<unknown[]> {
  const s = new V03Session(base, binding);
  const seen: unknown[] = [];
  const asked = (await s.client.sendMessage({ message: s.message('input') })) as Task;
  seen.push(asked);
  seen.push(await s.client.sendMessage({ message: s.message('yes', asked) }));

  const stream = s.stream('work:5');
  const first = (await stream.until(() => true)) as Json;
  const id = ((first.task ?? first) as { id: string }).id;
  const pause = (await s.raw('tasks/pause', `/v1/tasks/${id}:pause`, { taskId: id, mode: 'interrupt_immediate' })) as {
    pause: { resumeToken: string };
  };
  seen.push(pause);
  const paused = binding === 'JSONRPC' ? 'paused' : 'TASK_STATE_PAUSED';
  await stream.until((e) => stateOf(e) === paused);
  seen.push(await s.raw('tasks/get', `/v1/tasks/${id}`, { id }, 'GET'));
  // Held at PAUSED: a whole round trip later, nothing after the pause has come.
  if (checkHeld) expect(stateOf(stream.events.at(-1))).toBe(paused);
  seen.push(
    await s.raw('tasks/resume', `/v1/tasks/${id}:resume`, { taskId: id, resumeToken: pause.pause.resumeToken }),
  );
  seen.push(await s.client.cancelTask({ id }));
  await stream.done;
  seen.push(...stream.events);
  return seen;
}

/** `value` with every resume token replaced by one stand-in. */
function withoutTokens(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(/"resumeToken":"[^"]*"/g, '"resumeToken":"(token)"'));
}

async function receiptTypes(log: string): Promise<string[]> {
  return (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { type: string }).type)
    .filter((t) => t.endsWith('Receipt'));
}

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('a v0.3 %s session with the reference peer', (binding) => {
  const name = binding === 'JSONRPC' ? 'rpc' : 'rest';
  let recording = '';
  let recorded: unknown[] = [];

  beforeAll(async () => {
    recording = join(dir, `${name}.jsonl`);
    const peer = await startPeer({ deterministic: true });
    try {
      const warnings: string[] = [];
      const recorder = await startRecorder({
        upstream: peer.url,
        out: recording,
        key: KEY,
        warn: (l) => warnings.push(l),
      });
      try {
        // The card first, as a client resolving the agent does: `run` reads the peer's settings in it.
        await (await fetch(`${recorder.url}/.well-known/agent-card.json`)).json();
        recorded = await session(recorder.url, binding);
      } finally {
        // `record` exits 0 when every line was written.
        expect((await recorder.close()).complete, warnings.join('\n')).toBe(true);
      }
    } finally {
      await peer.close();
    }
    const states = recorded.map(stateOf);
    const v03 = binding === 'JSONRPC';
    expect(states.slice(0, 2)).toEqual(['input-required', 'completed']);
    expect(recorded[2]).toMatchObject({ state: v03 ? 'paused' : 'TASK_STATE_PAUSED' });
    expect(states[3]).toBe(v03 ? 'paused' : 'TASK_STATE_PAUSED');
    expect(recorded[4]).toMatchObject({ previousState: v03 ? 'paused' : 'TASK_STATE_PAUSED' });
    expect(recorded[5]).toMatchObject({ kind: 'task', status: { state: 'canceled' } });
    expect(states.at(-1)).toBe(v03 ? 'canceled' : 'TASK_STATE_CANCELLED');
  });

  it('records every request in v0.3 and receipts the pause and its resume', async () => {
    const entries = (await readFile(recording, 'utf8'))
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as Json)
      .filter((e) => e.kind === 'request' && !String((e.http as { path: string }).path).includes('agent-card'));
    expect(entries.map((e) => e.a2aVersion)).toEqual(entries.map(() => '0.3'));
    expect(await receiptTypes(recording.replace(/\.jsonl$/, '.receipts.jsonl'))).toEqual([
      'InterruptionReceipt',
      'ContinuationReceipt',
      'SuspensionReceipt',
      'ResumptionReceipt',
    ]);
  });

  it('replays on the embedded peer, started in both dialects as its card says, to a PASS', async () => {
    const r = await replayReport([recording], { key: KEY });
    expect(r.stdout).toMatch(/^PASS /m);
    expect(r.code).toBe(0);
  });

  it('serves the client the recorded session from mock, its stream held at PAUSED until the resume', async () => {
    const mock = await startMock([recording]);
    try {
      const served = await session(mock.url, binding, true);
      expect(withoutTokens(served)).toEqual(withoutTokens(recorded));
      // Pause-aware past the recording, in the client's dialect: a second resume of the consumed
      // token is the RFC's -32010, as a JSON-RPC error or v0.3 HTTP+JSON's `{code, message}`.
      const id = (served[2] as { taskId: string }).taskId;
      const token = (served[2] as { pause: { resumeToken: string } }).pause.resumeToken;
      const again = await fetch(binding === 'JSONRPC' ? mock.url : `${mock.url}/rest/v1/tasks/${id}:resume`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          binding === 'JSONRPC'
            ? { jsonrpc: '2.0', id: 99, method: 'tasks/resume', params: { taskId: id, resumeToken: token } }
            : { resumeToken: token },
        ),
      });
      const refusal = (await again.json()) as Json;
      if (binding === 'JSONRPC') expect(refusal).toMatchObject({ id: 99, error: { code: -32010 } });
      else {
        expect(again.status).toBe(400);
        expect(refusal).toMatchObject({
          code: -32010,
          message: expect.stringContaining('nothing to resume') as unknown,
        });
      }
    } finally {
      await stopMock(mock);
    }
  });
});
