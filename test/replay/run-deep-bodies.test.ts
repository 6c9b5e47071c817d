/**
 * A client may send a request nested as deep as it likes; `record` records it whatever its depth
 * (the peer refuses it). Replay and mock walk bodies on the call stack, so they take bodies up to
 * REPLAY_MAX_BODY_DEPTH levels: the recorder keeps JSON nested deeper as its text, which replay
 * sends and mock matches as it is, so what `record` wrote, `run` and `mock` take. A body that deep
 * in a recording some other writer made is refused naming its line, never a stack overflow
 * reported as an infrastructure failure. A live peer whose answer nests deeper makes the replay
 * drift, saying so. In-process through the public entries: `startPeer`, `startRecorder` (what
 * `record` starts), `replayRecordings` as `run` calls it (test/helpers/run-report.ts), and the
 * mock as `mock` reads and serves recordings (test/helpers/mock-in-process.ts).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { REPLAY_MAX_BODY_DEPTH } from '../../src/recording/format.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { startMock } from '../helpers/mock-in-process.js';
import { answerJson, startPeerVariant } from '../helpers/peer-variant.js';
import { replayReport } from '../helpers/run-report.js';
import { callerPauseSession, ok } from './session.js';

let dir = '';
let keyFile = '';

/** A PauseTask whose conditions nest `depth` levels below them, as raw JSON text. */
function deepPause(taskId: string, depth: number): string {
  const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return (
    `{"jsonrpc":"2.0","id":7,"method":"PauseTask","params":{"taskId":${JSON.stringify(taskId)},` +
    `"reason":"deep","conditions":{"onEvent":"e","extra":${deep}}}}`
  );
}

/** Starts a task at `url` and sends it a PauseTask nested `depth` levels deep; its text and the answer's error code. */
async function sendDeep(url: string, depth: number): Promise<{ text: string; code: number | undefined }> {
  const { task } = await ok<{ task: { id: string } }>(url, 'SendMessage', {
    message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  });
  const text = deepPause(task.id, depth);
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: text,
  });
  return { text, code: ((await answer.json()) as { error?: { code: number } }).error?.code };
}

/** Records a session of one task and one PauseTask nested `depth` levels deep; the recording and the deep text. */
async function recordDeep(name: string, depth: number): Promise<{ recording: string; text: string }> {
  const out = join(dir, `${name}.jsonl`);
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startRecorder({ upstream: peer.url, out, key: keyFile, warn: () => undefined });
    try {
      const { text, code } = await sendDeep(recorder.url, depth);
      expect(code).toBe(-32600);
      return { recording: out, text };
    } finally {
      await recorder.close();
    }
  } finally {
    await peer.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-deep-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, JSON.stringify(generateReceiptKey({ kid: 'k-deep' }).keyFile()), { mode: 0o600 });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bodies nested deep, recorded and replayed', () => {
  it('replays a request just under the depth replay takes to a pass', async () => {
    const { recording } = await recordDeep('under', REPLAY_MAX_BODY_DEPTH - 10);
    expect((await readRecording(recording)).entries[2]?.body).toBeDefined();
    const update = await replayReport([recording], { key: keyFile, update: true });
    expect(update.code, update.stdout).toBe(0);
    const replay = await replayReport([recording], { key: keyFile });
    expect(replay.stdout).toMatch(/^PASS /m);
    expect(replay.code).toBe(0);
  });

  it('records a request 100,000 levels deep as its text, which run replays to a pass and mock serves', async () => {
    const { recording, text } = await recordDeep('over', 100_000);
    const request = (await readRecording(recording)).entries[2];
    expect(request !== undefined && 'body' in request).toBe(false);
    expect(request?.bodyText).toBe(text);
    const update = await replayReport([recording], { key: keyFile, update: true });
    expect(update.code, update.stdout).toBe(0);
    const replay = await replayReport([recording], { key: keyFile });
    expect(replay.stdout).toMatch(/^PASS /m);
    expect(replay.code).toBe(0);
    // Served as recorded, and (`mock --expect-all` exits 0 for it) nothing recorded left unrequested.
    const mock = await startMock([recording]);
    try {
      const served = await sendDeep(mock.url, 100_000);
      expect(served.text).toBe(text);
      expect(served.code).toBe(-32600);
    } finally {
      await mock.close();
    }
    expect(mock.report().recordings.flatMap((r) => r.unrequested)).toEqual([]);
  });

  it('refuses a recording another writer made with a far deeper body, naming the line, in run and mock', async () => {
    const { recording: recorded } = await recordDeep('written', 20_000);
    const lines = (await readFile(recorded, 'utf8')).split('\n');
    const { bodyText, ...request } = JSON.parse(lines[3] ?? '') as { bodyText: string };
    lines[3] = `${JSON.stringify(request).slice(0, -1)},"body":${bodyText}}`;
    const recording = join(dir, 'deep-body.jsonl');
    await writeFile(recording, lines.join('\n'));
    const replay = await replayReport([recording], { key: keyFile, update: true });
    const why = `the entry's body nests deeper than ${REPLAY_MAX_BODY_DEPTH} levels, more than replay and mock take`;
    expect(replay.stdout).toContain(`${recording}:4: ${why}`);
    expect(replay.stdout).toMatch(/^INVALID /m);
    expect(replay.code).toBe(2);
    // `mock` reads its recordings so before it serves: it refuses this one, naming the line.
    await expect(startMock([recording])).rejects.toThrow(
      `${recording}:4: the entry's body nests deeper than ${REPLAY_MAX_BODY_DEPTH}`,
    );
  });

  it('drifts, saying why, when the live peer answers deeper than replay compares', async () => {
    const recording = join(dir, 'session.jsonl');
    const peer = await startPeer({ deterministic: true });
    try {
      const recorder = await startRecorder({ upstream: peer.url, out: recording, key: keyFile, warn: () => undefined });
      try {
        await callerPauseSession(recorder.url);
      } finally {
        await recorder.close();
      }
    } finally {
      await peer.close();
    }
    const live = await startPeer({ deterministic: true });
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const variant = await startPeerVariant(live.url, (_path, method, res) =>
      method === 'GetTask' ? answerJson(res, 200, `{"jsonrpc":"2.0","id":1,"result":${deep}}`) : false,
    );
    try {
      const replay = await replayReport([recording], { peer: variant.url, key: keyFile, timeoutMs: 2000 });
      expect(replay.stdout).toMatch(/^DRIFT /m);
      expect(replay.stdout).toContain(`the live body nests deeper than ${REPLAY_MAX_BODY_DEPTH} levels`);
      expect(replay.code).toBe(1);
    } finally {
      await variant.close();
      await live.close();
    }
  });
});
