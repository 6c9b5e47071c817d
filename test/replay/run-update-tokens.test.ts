/**
 * `run --update` rewrites a recording from the live answers as `record` would have written them:
 * replay keeps the live peer's real resume tokens to send them back, and a live answer kept as
 * text (here one nested deeper than replay walks) must not bring them into the file. Recorded
 * through `startRecorder` in front of `startPeer`, replayed as `run --update` replays
 * (`replayReport`), all in this process.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { REPLAY_MAX_BODY_DEPTH } from '../../src/recording/format.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { tokenPlaceholder } from '../../src/recording/resume-token.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { type Recorder, startRecorder } from '../../src/public/record.js';
import { answerJson, startPeerVariant } from '../helpers/peer-variant.js';
import { replayReport } from '../helpers/run-report.js';
import { ok } from './session.js';

let dir = '';
const open: (RunningPeer | Recorder)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-update-tokens-'));
});
afterEach(async () => {
  for (const server of open.splice(0).reverse()) await server.close();
  await rm(dir, { recursive: true, force: true });
});

interface Paused {
  status: { state: string; pause?: { resumeToken: string } };
}

it('writes no live resume token from a live answer kept as text', async () => {
  const recording = join(dir, 'session.jsonl');
  const peer = await startPeer({ deterministic: true });
  open.push(peer);
  const recorder = await startRecorder({ upstream: peer.url, out: recording, warn: () => undefined });
  open.push(recorder);
  // A task that parks itself: its GetTask answer shows the pause and its resume token.
  const { task } = await ok<{ task: { id: string } }>(recorder.url, 'SendMessage', {
    message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'work:1 await:ci.done:30' }] },
    configuration: { returnImmediately: true },
  });
  await ok(recorder.url, 'AdvanceClock', { ms: 2000 }, '/control');
  const recorded = await ok<Paused>(recorder.url, 'GetTask', { id: task.id });
  expect(recorded.status.pause?.resumeToken).toBeTruthy();
  open.splice(0);
  expect((await recorder.close()).complete).toBe(true);
  await peer.close();

  // The live peer's GetTask answer, its task and token as they came, with a member nested deeper
  // than replay walks: replay keeps that answer as its text.
  const live = await startPeer({ deterministic: true });
  open.push(live);
  const tokens: string[] = [];
  const deep = `${'{"a":'.repeat(REPLAY_MAX_BODY_DEPTH + 10)}1${'}'.repeat(REPLAY_MAX_BODY_DEPTH + 10)}`;
  const variant = await startPeerVariant(live.url, (_path, method, res, body) => {
    if (method !== 'GetTask') return false;
    void fetch(live.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body,
    }).then(async (reply) => {
      const answer = (await reply.json()) as { result: Paused };
      const token = answer.result.status.pause?.resumeToken;
      if (token !== undefined) tokens.push(token);
      answerJson(res, 200, `${JSON.stringify(answer).slice(0, -2)},"extra":${deep}}}`);
    });
    return true;
  });
  try {
    const update = await replayReport([recording], { peer: variant.url, update: true, timeoutMs: 5000 });
    expect(update.warnings).toEqual([]);
    expect(update.code).toBe(0);
  } finally {
    await variant.close();
  }
  expect(tokens.length).toBe(1);
  const text = await readFile(recording, 'utf8');
  for (const token of tokens) expect(text.includes(token), `the recording holds ${token}`).toBe(false);
  const kept = (await readRecording(recording)).entries.filter((e) => e.bodyText !== undefined);
  expect(kept.map((e) => e.kind)).toEqual(['response']);
  expect(kept[0]?.bodyText).toContain(`"resumeToken":"${tokenPlaceholder(tokens[0]!)}"`);
});
