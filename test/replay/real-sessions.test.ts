/**
 * First sessions of software nobody here wrote replay clean with no flags: the stock
 * `@a2a-js/sdk` server and client recorded through `startRecorder` (what `record` starts) and
 * replayed against the same server as `run --peer` replays (`replayRecordings`,
 * test/helpers/run-report.ts), and a session of the reference peer in real-time mode replayed on
 * the embedded peer; and two sessions of one client against real-time peers, compared as
 * `diff --other-session` compares them (`diffReceiptLogs`).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startPeer } from '../../src/public/peer.js';
import { diffReceiptLogs, readReceiptLogLines } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { describeDifference } from '../../src/public/replay.js';
import { replayReport } from '../helpers/run-report.js';
import { sdkSession, startSdkEchoServer } from '../intercept/sdk-echo-server.js';
import { ok, selfParkSession, stream } from './session.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'real-sessions-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('replays a session of the stock SDK server and client against that server with no --ignore', async () => {
  const upstream = await startSdkEchoServer();
  try {
    const out = join(dir, 'sdk.jsonl');
    const recorder = await startRecorder({ upstream: upstream.url, out, warn: () => undefined });
    try {
      await sdkSession(await new ClientFactory().createFromUrl(recorder.url));
    } finally {
      await recorder.close();
    }
    const recorded = await readFile(out, 'utf8');
    // The server names the live task in its error message (CancelTask of a completed task).
    expect(recorded).toMatch(/"message":"Task not cancelable: [0-9a-f-]{36}"/);

    const created = await replayReport([out], { update: true, peer: upstream.url });
    expect(created.code).toBe(0);
    expect(created.stdout).not.toContain('exchanges drifted');
    // Nothing drifted, so the recording is left as recorded.
    expect(await readFile(out, 'utf8')).toBe(recorded);

    const replayed = await replayReport([out], { peer: upstream.url });
    expect(replayed.stdout).toMatch(/^PASS /);
    expect(replayed.code).toBe(0);
  } finally {
    await upstream.close();
  }
});

/** Streams `text` until the task completes. */
const completes = (e: Record<string, unknown>): boolean =>
  (e.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state === 'TASK_STATE_COMPLETED';

it('replays a session of a real-time reference peer on the embedded peer with no flags', async () => {
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'real-time' }).keyFile()), { mode: 0o600 });
  const peer = await startPeer({ stepMs: 50, control: true });
  const out = join(dir, 'real-time.jsonl');
  const recorder = await startRecorder({ upstream: peer.url, out, key, warn: () => undefined });
  try {
    await selfParkSession(recorder.url);
    await (
      await stream(recorder.url, 'work:2', completes)
    ).rest;
    // A wake-up time on the peer's clock, ahead of the session as it was recorded.
    const clock = await ok<{ now: string }>(peer.url, 'GetClock', {}, '/control');
    const wakeUp = new Date(Date.parse(clock.now) + 2000).toISOString();
    await (
      await stream(recorder.url, `sleep-until:${wakeUp} work:1`, completes)
    ).rest;
  } finally {
    await recorder.close();
    await peer.close();
  }
  const header = JSON.parse((await readFile(out, 'utf8')).split('\n')[0] as string) as {
    agentCard: { capabilities: { extensions: { params: { deterministic?: boolean } }[] } };
  };
  expect(header.agentCard.capabilities.extensions.some((e) => e.params.deterministic === false)).toBe(true);
  expect((await readFile(`${dir}/real-time.receipts.jsonl`, 'utf8')).match(/"ResumptionReceipt"/g)).toHaveLength(2);

  const replayed = await replayReport([out], { key });
  expect(replayed.stdout).toMatch(/^PASS /);
  expect(replayed.code).toBe(0);
});

it('replays a --legacy-pause session whose client never fetched the card, from the header card alone', async () => {
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'legacy' }).keyFile()), { mode: 0o600 });
  const peer = await startPeer({ deterministic: true, legacyPause: true });
  const out = join(dir, 'legacy.jsonl');
  const recorder = await startRecorder({ upstream: peer.url, out, key, warn: () => undefined });
  try {
    const { task } = await ok<{ task: { id: string } }>(recorder.url, 'SendMessage', {
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    await ok(recorder.url, 'AdvanceClock', { ms: 1000 }, '/control');
    const paused = await ok<{ metadata: { harn: { pause: { handle: string } } } }>(recorder.url, 'PauseTask', {
      taskId: task.id,
      reason: 'review',
    });
    await ok(recorder.url, 'ResumeTask', { taskId: task.id, resumeToken: paused.metadata.harn.pause.handle });
    await ok(recorder.url, 'AdvanceClock', { ms: 3000 }, '/control');
  } finally {
    await recorder.close();
    await peer.close();
  }
  expect(await readFile(out, 'utf8')).not.toContain('/.well-known/agent-card.json');
  const replayed = await replayReport([out], { key });
  expect(replayed.stdout).toMatch(/^PASS /);
  expect(replayed.code).toBe(0);
});

it('says first that a recording of another agent needs --peer when run starts the reference peer', async () => {
  const upstream = await startSdkEchoServer();
  const out = join(dir, 'sdk.jsonl');
  try {
    const recorder = await startRecorder({ upstream: upstream.url, out, warn: () => undefined });
    try {
      await sdkSession(await new ClientFactory().createFromUrl(recorder.url));
    } finally {
      await recorder.close();
    }
    expect((await replayReport([out], { update: true, peer: upstream.url })).code).toBe(0);
  } finally {
    await upstream.close();
  }
  const replayed = await replayReport([out], { timeoutMs: 1000 });
  expect(replayed.code).toBe(1);
  expect(replayed.stdout.split('\n')[1]).toBe(
    '  likely cause: another agent: the recording was made against another agent ("Echo"), not the reference ' +
      'peer run starts by default; pass --peer URL (or --peer-cmd CMD) to replay it against that agent',
  );
});

it('finds no difference between two sessions of one client against real-time peers', async () => {
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'sessions' }).keyFile()), { mode: 0o600 });
  const logs: string[] = [];
  for (const name of ['first', 'second']) {
    const peer = await startPeer({ stepMs: 50, control: true });
    const out = join(dir, `${name}.jsonl`);
    const recorder = await startRecorder({ upstream: peer.url, out, key, warn: () => undefined });
    try {
      // Two tasks, each parked on an event and resumed by the client with the token it was shown.
      for (let i = 0; i < 2; i++) {
        let paused: { taskId: string; status: { pause: { resumeToken: string } } } | undefined;
        const { rest } = await stream(recorder.url, 'await:go', (e) => {
          const update = e.statusUpdate as typeof paused & { status: { state?: string } };
          if (update?.status.state !== 'TASK_STATE_PAUSED') return false;
          paused = update;
          return true;
        });
        await ok(recorder.url, 'ResumeTask', {
          taskId: paused?.taskId,
          resumeToken: paused?.status.pause.resumeToken,
        });
        await rest;
      }
    } finally {
      await recorder.close();
      await peer.close();
    }
    logs.push(join(dir, `${name}.receipts.jsonl`));
  }
  const [first, second] = await Promise.all(logs.map((l) => readFile(l, 'utf8')));
  // Each peer minted its own task ids: the sessions name different tasks.
  const tasks = (log: string | undefined) => [...new Set(log?.match(/"taskId":"[^"]+"/g))];
  expect(tasks(first)).toHaveLength(2);
  expect(tasks(first).some((t) => tasks(second).includes(t))).toBe(false);

  // As `diff --other-session FIRST SECOND` compares them; it exits 0 when there is no difference.
  const [a, b] = await Promise.all(logs.map((l) => readReceiptLogLines(l)));
  const diff = diffReceiptLogs(a!, b!, { strict: false, signed: true, otherSession: true });
  expect(diff.differences.map((d) => describeDifference(d)).join('\n')).not.toMatch(/receipts\[/);
  expect(diff.differences).toEqual([]);
});
