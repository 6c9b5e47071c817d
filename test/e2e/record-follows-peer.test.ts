/**
 * The recorder follows the peer, not the client: a recorder with a key (`startRecorder`, in this
 * process) in front of the reference peer (`startPeer`) with its transitions log as ground truth,
 * pause and resume calls over JSON-RPC, HTTP+JSON and gRPC whose clients, in an order a seeded
 * random picks, stay, close right after sending, reset the connection (or the HTTP/2 stream) while
 * a `finish_step` pause waits, half-close after the request (as `nc -N` does), or send a gRPC
 * deadline that passes while the pause waits; streams (SSE and gRPC) whose agent parks itself and
 * is resumed by its time-out, their clients leaving after a seeded number of events; one pause the
 * recorder answers 504 before the peer acts on it; and a SIGTERM to `record` (a real process: the
 * signal is the subject) while a `finish_step` pause waits, then a recorder continuing from its
 * recording and a CancelTask. Every transition into or out of PAUSED in the peer's log has its
 * receipt, and what `lost` lists (`lostPauses`) blames the agent for no resume a client sent.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { startPeer } from '../../src/public/peer.js';
import { generateReceiptKey, lostSource } from '../../src/public/receipts.js';
import { type CliProcess, startRecordProcess } from '../helpers/cli-process.js';
import { startTestRecorder } from '../helpers/in-process.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { ok } from '../replay/session.js';
import { type Binding, type Leave, leavingCall, leavingGrpcStream, leavingStream } from '../helpers/leaving-clients.js';

type Json = Record<string, unknown>;
type Move = { taskId: string; into: boolean };

let dir = '';
let keyFile = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-follows-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'follow' }).keyFile()), { mode: 0o600 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** mulberry32: a small seeded generator, so each run picks the same leave points. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The task as the peer shows it, asked directly (not through the recorder). */
async function peerTask(peer: string, taskId: string): Promise<Json> {
  return ok<Json>(peer, 'GetTask', { id: taskId });
}

/** Waits until the peer shows the task's pause pending (the request reached the peer). */
async function untilPending(peer: string, taskId: string, orUntil: () => boolean = () => false): Promise<void> {
  while (!orUntil()) {
    const task = await peerTask(peer, taskId);
    if (JSON.stringify(task).includes('pause requested')) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

const stateOf = (task: Json): string => (task.status as { state: string }).state;

const jsonl = async (file: string): Promise<Json[]> =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);

/** Per task: how many times it went into PAUSED and out of it. */
function moves(rows: Move[]): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const row of rows) {
    const counts = (out[row.taskId] ??= [0, 0]);
    counts[row.into ? 0 : 1] += 1;
  }
  return out;
}

/** One task: started, paused mid-step by a client that `pauseLeave`s, resumed by one that `resumeLeave`s. */
async function pauseAndResume(
  recorder: string,
  peer: string,
  binding: Binding,
  pauseLeave: Leave,
  resumeLeave: Leave,
): Promise<{ gotToken: boolean }> {
  const started = await ok<{ task: { id: string } }>(recorder, 'SendMessage', {
    message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  });
  const taskId = started.task.id;
  // Half a step in: a finish_step pause waits for the step's end, so its answer waits too.
  await ok(recorder, 'AdvanceClock', { ms: 500 }, '/control');
  const pause = leavingCall(recorder, binding, 'PauseTask', taskId, { reason: 'review' }, pauseLeave);
  await untilPending(peer, taskId);
  if (pauseLeave === 'resets while waiting') pause.reset();
  await ok(recorder, 'AdvanceClock', { ms: 600 }, '/control');
  const token = /"resumeToken":"([^"]+)"/.exec(await pause.answer)?.[1];
  expect(stateOf(await peerTask(peer, taskId)), `${binding}: pause client ${pauseLeave}`).toBe('TASK_STATE_PAUSED');
  if (token !== undefined) {
    const resume = leavingCall(recorder, binding, 'ResumeTask', taskId, { resumeToken: token }, resumeLeave);
    if (resumeLeave === 'resets while waiting') resume.reset();
    await resume.answer;
  }
  // A pause still open (no token, or a resume the peer never read) is ended through the recorder.
  if (stateOf(await peerTask(peer, taskId)) === 'TASK_STATE_PAUSED') await ok(recorder, 'CancelTask', { id: taskId });
  return { gotToken: token !== undefined };
}

/** The ids of the peer's tasks, asked directly. */
async function peerTaskIds(peer: string): Promise<string[]> {
  const listed = await ok<{ tasks?: { id: string }[] }>(peer, 'ListTasks', {});
  return (listed.tasks ?? []).map((t) => t.id);
}

/**
 * A streaming message whose agent works a step, parks itself until an event that never comes and
 * is resumed by its one-minute time-out, then works a step and completes; its client leaves after
 * `readEvents` events. The clock moves once the peer has the task, whatever the client read.
 */
async function parkedStream(
  recorder: string,
  peer: string,
  kind: 'SSE' | 'gRPC stream',
  readEvents: number,
): Promise<void> {
  const before = new Set(await peerTaskIds(peer));
  const script = 'work:1 await:go:1:resume work:1';
  const stream =
    kind === 'SSE' ? leavingStream(recorder, script, readEvents) : leavingGrpcStream(recorder, script, readEvents);
  let taskId: string | undefined;
  while (taskId === undefined) taskId = (await peerTaskIds(peer)).find((id) => !before.has(id));
  for (const ms of [1000, 60_000, 1000]) await ok(recorder, 'AdvanceClock', { ms }, '/control');
  await stream.closed;
  expect(stateOf(await peerTask(peer, taskId)), `${kind} after ${readEvents} events`).toBe('TASK_STATE_COMPLETED');
}

it('receipts every transition into and out of PAUSED whatever the clients and the time-out do (seeded)', async () => {
  const transitions = join(dir, 'peer.transitions.jsonl');
  const out = join(dir, 'follow.jsonl');
  const peer = await startPeer({ deterministic: true, transitionsFile: transitions });
  const recorder = await startTestRecorder({ upstream: peer.url, out, key: keyFile, upstreamTimeoutMs: 3000 });
  const random = seeded(47);
  const shuffled = (list: Leave[]): Leave[] => {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j] as Leave, out[i] as Leave];
    }
    return out;
  };
  const leaves: Leave[] = ['stays', 'closes after sending', 'resets while waiting', 'half-closes'];
  // Over gRPC a client half-closes with its request (END_STREAM); it leaves by RST_STREAM or a deadline.
  const grpcPauseLeaves: Leave[] = ['stays', 'resets while waiting', 'deadline passes'];
  const grpcResumeLeaves: Leave[] = ['stays', 'closes after sending', 'resets while waiting', 'deadline passes'];
  const runs: string[] = [];
  try {
    // Each kind of pause client in each binding, resumed (when it read the token) by a client that
    // stays; then pauses whose client stays, resumed by clients of every kind in an order the seed shuffles.
    for (const binding of ['JSON-RPC', 'HTTP+JSON', 'gRPC'] as const) {
      const pairs: [Leave, Leave][] = [
        ...(binding === 'gRPC' ? grpcPauseLeaves : leaves).map((leave): [Leave, Leave] => [leave, 'stays']),
        ...shuffled(binding === 'gRPC' ? grpcResumeLeaves : leaves).map((leave): [Leave, Leave] => ['stays', leave]),
      ];
      for (const [pauseLeave, resumeLeave] of pairs) {
        const { gotToken } = await pauseAndResume(recorder.url, peer.url, binding, pauseLeave, resumeLeave);
        runs.push(`${binding}: pause client ${pauseLeave}, ${gotToken ? `resume client ${resumeLeave}` : 'canceled'}`);
      }
    }
    // Streams whose agent parks itself and is resumed by its time-out, their clients leaving after
    // a seeded number of events (0: right after the request), over SSE and over gRPC.
    for (const kind of ['SSE', 'gRPC stream', 'SSE', 'gRPC stream', 'SSE', 'gRPC stream'] as const) {
      // A gRPC client that cancels before its request is whole reaches nothing (the recorder cancels
      // upstream too), so its stream's client leaves once the first message shows the peer has it.
      const readEvents = kind === 'SSE' ? Math.floor(random() * 6) : 1 + Math.floor(random() * 5);
      await parkedStream(recorder.url, peer.url, kind, readEvents);
      runs.push(`${kind}: client leaves after ${readEvents} events`);
    }
    // The recorder's own time-out: the client gets 504, the peer pauses the task after it.
    const started = await ok<{ task: { id: string } }>(recorder.url, 'SendMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    await ok(recorder.url, 'AdvanceClock', { ms: 500 }, '/control');
    const late = leavingCall(recorder.url, 'JSON-RPC', 'PauseTask', started.task.id, {}, 'stays');
    await untilPending(peer.url, started.task.id);
    const answered = await late.answer;
    expect(answered).toMatch(/^HTTP\/1\.1 504 /);
    await ok(recorder.url, 'AdvanceClock', { ms: 600 }, '/control');
    expect(stateOf(await peerTask(peer.url, started.task.id))).toBe('TASK_STATE_PAUSED');
    await ok(recorder.url, 'CancelTask', { id: started.task.id });
  } finally {
    expect((await recorder.close()).complete, recorder.warnings.join('\n')).toBe(true);
    await peer.close();
  }
  // The seed gives resume calls clients of every kind that can read a token first.
  for (const leave of [...leaves, 'deadline passes'])
    expect(
      runs.some((r) => r.includes(`resume client ${leave}`)),
      runs.join('\n'),
    ).toBe(true);

  const truth = (await jsonl(transitions)).filter((l) => l.event === 'transition');
  const expected = moves(
    truth.flatMap((t): Move[] =>
      t.to === 'TASK_STATE_PAUSED'
        ? [{ taskId: t.taskId as string, into: true }]
        : t.from === 'TASK_STATE_PAUSED'
          ? [{ taskId: t.taskId as string, into: false }]
          : [],
    ),
  );
  expect(Object.keys(expected)).toHaveLength(30);
  const receipts = await jsonl(out.replace(/\.jsonl$/, '.receipts.jsonl'));
  const receipted = moves(
    receipts.flatMap((r): Move[] =>
      r.type === 'SuspensionReceipt'
        ? [{ taskId: r.taskId as string, into: true }]
        : r.type === 'ResumptionReceipt' && r.outcome !== 'rejected'
          ? [{ taskId: r.taskId as string, into: false }]
          : [],
    ),
  );
  expect(receipted, runs.join('\n')).toEqual(expected);

  const lost = await lostVerdict([out]);
  expect(lost.found.lost.map((l) => l.reason)).not.toContain('pause_ignored');
  expect(lost.found.lost).toEqual([]);
  expect(lostSource(lost.found)).toBe('recording');
  expect(lost.code).toBe(0);
});

/** Resolves once `proc`'s stderr holds `text`. */
function untilStderr(proc: CliProcess, text: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = (): void => {
      if (!proc.stderr().includes(text)) return;
      proc.child.stderr.off('data', check);
      resolve();
    };
    proc.child.stderr.on('data', check);
    check();
  });
}

it('reads a waiting pause to its answer at SIGTERM, and the next recorder receipts its cancel', async () => {
  const transitions = join(dir, 'stop.transitions.jsonl');
  const first = join(dir, 'stop.jsonl');
  const second = join(dir, 'stop-2.jsonl');
  const peer = await startPeer({ deterministic: true, transitionsFile: transitions });
  let taskId = '';
  try {
    const recorder = await startRecordProcess(['--upstream', peer.url, '--out', first, '--key', keyFile]);
    const started = await ok<{ task: { id: string } }>(recorder.url, 'SendMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    taskId = started.task.id;
    await ok(recorder.url, 'AdvanceClock', { ms: 500 }, '/control');
    const pause = leavingCall(recorder.url, 'JSON-RPC', 'PauseTask', taskId, { reason: 'deploy' }, 'stays');
    await untilPending(peer.url, taskId);
    recorder.child.kill('SIGTERM');
    // The default drain bound is --follow-ms (10 minutes), not the 2 s --grace-ms of open streams.
    await untilStderr(
      recorder,
      'a2a-replay: stopping: reading the 1 answer in flight for up to 600000 ms (--follow-ms)',
    );
    // The step ends while the recorder stops: the peer pauses the task and answers.
    await ok(peer.url, 'AdvanceClock', { ms: 600 }, '/control');
    expect(await pause.answer).toMatch(/"resumeToken":"/);
    expect(await recorder.exited).toBe(0);

    const next = await startTestRecorder({ upstream: peer.url, out: second, key: keyFile, continueFrom: first });
    try {
      await ok(next.url, 'CancelTask', { id: taskId });
    } finally {
      expect((await next.close()).complete, next.warnings.join('\n')).toBe(true);
    }
  } finally {
    await peer.close();
  }
  const truth = (await jsonl(transitions)).filter((l) => l.event === 'transition' && l.taskId === taskId);
  expect(truth.filter((t) => t.to === 'TASK_STATE_PAUSED' || t.from === 'TASK_STATE_PAUSED').map((t) => t.to)).toEqual([
    'TASK_STATE_PAUSED',
    'TASK_STATE_CANCELED',
  ]);
  const receipts = [
    ...(await jsonl(first.replace(/\.jsonl$/, '.receipts.jsonl'))),
    ...(await jsonl(second.replace(/\.jsonl$/, '.receipts.jsonl'))),
  ].filter((r) => r.taskId === taskId);
  expect(receipts.map((r) => [r.type, r.cause ?? null])).toEqual([
    ['SuspensionReceipt', null],
    ['ResumptionReceipt', 'canceled'],
  ]);
  const lost = await lostVerdict([join(dir, 'stop.receipts.jsonl'), join(dir, 'stop-2.receipts.jsonl')]);
  expect(lost.code).toBe(0);
});

it('reads a gRPC pause to its answer when its client cancels or its deadline passes, and receipts it', async () => {
  const transitions = join(dir, 'grpc.transitions.jsonl');
  const out = join(dir, 'grpc.jsonl');
  const peer = await startPeer({ deterministic: true, transitionsFile: transitions });
  const recorder = await startTestRecorder({ upstream: peer.url, out, key: keyFile });
  const answers: string[] = [];
  try {
    for (const leave of ['resets while waiting', 'deadline passes', 'closes after sending', 'deadline 1n'] as const) {
      const started = await ok<{ task: { id: string } }>(recorder.url, 'SendMessage', {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
        configuration: { returnImmediately: true },
      });
      const taskId = started.task.id;
      await ok(recorder.url, 'AdvanceClock', { ms: 500 }, '/control');
      const pause = leavingCall(recorder.url, 'gRPC', 'PauseTask', taskId, { reason: leave }, leave);
      if (leave === 'resets while waiting') {
        await untilPending(peer.url, taskId);
        pause.reset();
      } else {
        // A client that leaves on its own may leave before its call went whole to the peer (the
        // recorder then cancels it upstream): wait for the pause at the peer or the client's end.
        let answered = false;
        void pause.answer.then(() => (answered = true));
        await untilPending(peer.url, taskId, () => answered);
      }
      // The client has its answer (or left) before the step ends and the peer pauses the task.
      answers.push(`${leave}: ${await pause.answer}`);
      await ok(recorder.url, 'AdvanceClock', { ms: 600 }, '/control');
      // The 1n call is not waited for at the peer: its pause can reach the peer after that advance,
      // and then waits for the end of the next step. Left waiting, the recorder's stop would read
      // its answer for all of --follow-ms.
      if (JSON.stringify(await peerTask(peer.url, taskId)).includes('pause requested'))
        await ok(recorder.url, 'AdvanceClock', { ms: 1000 }, '/control');
      if (stateOf(await peerTask(peer.url, taskId)) === 'TASK_STATE_PAUSED')
        await ok(recorder.url, 'CancelTask', { id: taskId });
    }
  } finally {
    expect((await recorder.close()).complete, recorder.warnings.join('\n')).toBe(true);
    await peer.close();
  }
  expect(answers[1]).toMatch(/^deadline passes: grpc-status 4 Deadline exceeded/);
  const truth = (await jsonl(transitions)).filter((l) => l.event === 'transition');
  const expected = moves(
    truth.flatMap((t): Move[] =>
      t.to === 'TASK_STATE_PAUSED'
        ? [{ taskId: t.taskId as string, into: true }]
        : t.from === 'TASK_STATE_PAUSED'
          ? [{ taskId: t.taskId as string, into: false }]
          : [],
    ),
  );
  expect(Object.keys(expected).length, answers.join('\n')).toBeGreaterThanOrEqual(3);
  const receipts = await jsonl(out.replace(/\.jsonl$/, '.receipts.jsonl'));
  const receipted = moves(
    receipts.flatMap((r): Move[] =>
      r.type === 'SuspensionReceipt'
        ? [{ taskId: r.taskId as string, into: true }]
        : r.type === 'ResumptionReceipt' && r.outcome !== 'rejected'
          ? [{ taskId: r.taskId as string, into: false }]
          : [],
    ),
  );
  expect(receipted, answers.join('\n')).toEqual(expected);
  const lost = await lostVerdict([out]);
  expect(lost.found.lost).toEqual([]);
  expect(lostSource(lost.found)).toBe('recording');
  expect(lost.code).toBe(0);
});

it('says a gRPC pause it stopped reading past followMs is unreceipted: lost and verify report it', async () => {
  const out = join(dir, 'grpc-cut.jsonl');
  const peer = await startPeer({ deterministic: true });
  const recorder = await startTestRecorder({ upstream: peer.url, out, key: keyFile, followMs: 200 });
  try {
    const started = await ok<{ task: { id: string } }>(recorder.url, 'SendMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    const taskId = started.task.id;
    await ok(recorder.url, 'AdvanceClock', { ms: 500 }, '/control');
    const pause = leavingCall(recorder.url, 'gRPC', 'PauseTask', taskId, { reason: 'cut' }, 'resets while waiting');
    await untilPending(peer.url, taskId);
    pause.reset();
    // The recorder gives up on the answer before the step ends; the peer pauses the task after.
    await expect
      .poll(() => recorder.warnings.join('\n'))
      .toContain('is incomplete: the recorder did not read the peer');
    await ok(peer.url, 'AdvanceClock', { ms: 600 }, '/control');
    expect(stateOf(await peerTask(peer.url, taskId))).toBe('TASK_STATE_PAUSED');
  } finally {
    expect((await recorder.close()).complete, recorder.warnings.join('\n')).toBe(true);
    await peer.close();
  }
  const lost = await lostVerdict([out]);
  expect(lost.found.gaps?.incomplete.count).toBe(1);
  expect(lost.code).not.toBe(0);
  const receipts = out.replace(/\.jsonl$/, '.receipts.jsonl');
  const verdict = await verifyVerdict([receipts], [keyFile], { checks: { recording: out } });
  expect(verdict.stdout).toContain('INCOMPLETE: the recorder could not read 1 entry in full');
  expect(verdict.code).not.toBe(0);
});
