/**
 * A stock `@a2a-js/sdk` 1.3.0 agent that works for ~400 ms of wall time (test/fixtures/sdk-slow-peer.ts),
 * recorded through `startRecorder` (what `record` starts) and replayed as `run --peer` replays it
 * (`replayRecordings`, test/helpers/run-report.ts) against the same agent, which runs in real time
 * and cannot be moved (docs/design.md §8, "Time against a live peer"):
 * - a client that sends with returnImmediately and polls GetTask until done replays with no flags
 *   to a PASS, ten times in a row: the requests keep their recorded spacing and the poll loop is
 *   read until the agent shows the state it ended in;
 * - a streamed task is compared by the states and artifacts its events carry: more or fewer
 *   WORKING heartbeats than recorded is no drift; a missing artifact is.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startRecorder } from '../../src/public/record.js';
import { copiesOf, replayReport, verdictLines } from '../helpers/run-report.js';
import { RPC_PATH, type SdkSlowOptions, type SdkSlowPeer, startSdkSlowPeer } from '../fixtures/sdk-slow-peer.js';

let dir = '';
const agents: SdkSlowPeer[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-live-sdk-'));
});
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

async function post(url: string, method: string, params: unknown, stream = false): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      ...(stream ? { accept: 'text/event-stream' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.text();
}

function result(text: string): Json {
  return (JSON.parse(text) as { result: Json }).result;
}

const ask = { message: { messageId: 'm-slow', role: 'ROLE_USER', parts: [{ text: 'report' }] } };

/** Sends with returnImmediately, then reads the task at once and every 50 ms until it completes. */
async function pollingClient(url: string): Promise<number> {
  const sent = result(await post(url, 'SendMessage', { ...ask, configuration: { returnImmediately: true } }));
  const id = (sent.task as Json).id as string;
  for (let reads = 1; ; reads++) {
    const task = result(await post(url, 'GetTask', { id }));
    if ((task.status as Json).state === 'TASK_STATE_COMPLETED') return reads;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Streams the task to its end. */
async function streamingClient(url: string): Promise<number> {
  const text = await post(url, 'SendStreamingMessage', ask, true);
  return text.split('\n').filter((line) => line.startsWith('data:')).length;
}

async function agent(options: SdkSlowOptions = {}): Promise<SdkSlowPeer> {
  const started = await startSdkSlowPeer(options);
  agents.push(started);
  return started;
}

/** Records `client` against an agent of `options` through the recorder, with a key. */
async function record(
  options: SdkSlowOptions,
  client: (url: string) => Promise<number>,
): Promise<{ recording: string; key: string; seen: number }> {
  const recorded = await agent(options);
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'slow' }).keyFile()), { mode: 0o600 });
  const recording = join(dir, 'slow.jsonl');
  const recorder = await startRecorder({ upstream: recorded.url, out: recording, key, warn: () => undefined });
  try {
    const seen = await client(`${recorder.url}${RPC_PATH}`);
    return { recording, key, seen };
  } finally {
    await recorder.close();
  }
}

describe('a stock SDK agent that works ~400 ms while the client polls', () => {
  it('replays live with no flags, 10 times in a row: PASS', async () => {
    const { recording, key, seen } = await record({ workMs: 400 }, pollingClient);
    expect(seen).toBeGreaterThanOrEqual(2);
    const live = await agent({ workMs: 400 });
    const r = await replayReport(await copiesOf(recording, dir, 10), { peer: live.url, key });
    expect(r.stdout, r.stdout).not.toMatch(/^DRIFT/m);
    expect(verdictLines(r.stdout)).toHaveLength(10);
    expect(verdictLines(r.stdout).every((line) => line.startsWith('PASS '))).toBe(true);
    expect(r.code).toBe(0);
    // Every replayed task ran to its end on the live agent.
    expect(live.finished).toHaveLength(10);
  });
});

describe('a streamed task, compared by the states and artifacts it carries', () => {
  it('is no drift with more or fewer WORKING heartbeats than recorded', async () => {
    const { recording, key, seen } = await record({ workMs: 120, heartbeats: 3 }, streamingClient);
    expect(seen).toBe(6);
    for (const heartbeats of [0, 1, 6]) {
      const live = await agent({ workMs: 120, heartbeats });
      const r = await replayReport([recording], { peer: live.url, key });
      expect(r.stdout, `${heartbeats} heartbeats: ${r.stdout}`).toMatch(/^PASS /m);
      expect(r.code).toBe(0);
    }
  });

  it('is drift when an artifact the recording shows does not come', async () => {
    const { recording, key } = await record({ workMs: 120, heartbeats: 3 }, streamingClient);
    expect(await readFile(recording, 'utf8')).toContain('"artifactId":"report"');
    const live = await agent({ workMs: 120, heartbeats: 5, artifact: false });
    const r = await replayReport([recording], { peer: live.url, key });
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toMatch(/SendStreamingMessage event .*expected event artifactUpdate, got event statusUpdate/);
    // Only the artifact is named: the heartbeats the live stream has more of are not.
    expect(r.stdout).not.toMatch(/extra live event/);
  });
});
