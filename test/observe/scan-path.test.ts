/**
 * The observer's scan path (docs/design.md §14.11) reads exactly what the full parse reads: over
 * the golden corpus, the synthetic pause/resume traffic of the scale checks and generated traffic
 * in both dialects around pauses and interruptions (well-formed and broken answers alike), an
 * observer reading by the scan path and one parsing every answer in full give the same receipt
 * drafts, findings and span events, in the same order; and an observer reading by both paths
 * (`scanPath: 'both'`, `A2A_REPLAY_SCAN_CHECK=1`) throws where they differ.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/canonical/canonical-json.js';
import { A2aReplayError } from '../../src/errors.js';
import { type ObserverOutput, PauseObserver, type ScanPath } from '../../src/observe/pause-observer.js';
import { scanCallResult, scanStreamResult } from '../../src/observe/scan.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { pauseResumePairs } from '../fixtures/pause-traffic.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const GOLDEN = fileURLToPath(new URL('../../golden/', import.meta.url));
const scenarios = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

function outputsOf(entries: readonly RecordingEntry[], scanPath: ScanPath, id = 'rec-scan-path'): ObserverOutput[] {
  const observer = new PauseObserver({ recordingId: id, scanPath });
  const last = entries.at(-1)?.at ?? '2026-01-01T00:00:00.000Z';
  return [...entries.flatMap((entry) => observer.observe(entry)), ...observer.finish(last)];
}

/** The answers of `entries` the scan path reads (JSON-RPC unary answers and stream events). */
function scannedAnswers(entries: readonly RecordingEntry[]): number {
  const methods = new Map<string, string>();
  let scanned = 0;
  for (const e of entries) {
    const body = e.body as { method?: unknown; result?: unknown } | undefined;
    if (e.kind === 'request' && typeof body?.method === 'string') methods.set(e.xid, body.method);
    if (body?.result === undefined) continue;
    if (e.kind === 'event' && scanStreamResult(body.result, 'body.result') !== undefined) scanned += 1;
    const method = methods.get(e.xid) ?? '';
    if (e.kind === 'response' && scanCallResult(method, body.result, 'body.result') !== undefined) scanned += 1;
  }
  return scanned;
}

function expectSamePaths(entries: readonly RecordingEntry[], id?: string): void {
  const full = outputsOf(entries, 'full', id);
  expect(outputsOf(entries, 'scan', id)).toEqual(full);
  expect(outputsOf(entries, 'both', id)).toEqual(full);
}

describe('the scan path over the golden corpus', () => {
  it('reads the whole corpus, and scans answers in it', async () => {
    expect(scenarios.length).toBeGreaterThan(30);
    let scanned = 0;
    for (const scenario of scenarios) {
      const recording = await readRecording(join(GOLDEN, scenario, 'recording.jsonl'));
      scanned += scannedAnswers(recording.entries);
    }
    expect(scanned).toBeGreaterThan(50);
  });

  for (const scenario of scenarios) {
    it(`${scenario}: the same receipts, findings and spans as the full parse`, async () => {
      const recording = await readRecording(join(GOLDEN, scenario, 'recording.jsonl'));
      expectSamePaths(recording.entries, recording.header.id);
    });
  }
});

describe('the scan path over synthetic pause/resume traffic', () => {
  it('gives the outputs of the full parse over 300 pairs in three client styles', () => {
    const entries = [...pauseResumePairs(300)];
    expect(scannedAnswers(entries)).toBeGreaterThan(300);
    expectSamePaths(entries);
  });
});

// ---- generated traffic ----

const TASKS = ['task-a', 'task-b'];
const V1_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_PAUSED',
  'TASK_STATE_UNSPECIFIED',
];
const V03_STATES = [
  'submitted',
  'working',
  'completed',
  'failed',
  'canceled',
  'input-required',
  'rejected',
  'auth-required',
  'paused',
  'unknown',
];
const time = fc.integer({ min: 0, max: 120 }).map((m) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString());
const token = fc.constantFrom('tok-1', 'tok-2', 'tok-3');
const pause = fc.record(
  {
    initiatedBy: fc.constantFrom('PAUSE_INITIATOR_CLIENT', 'PAUSE_INITIATOR_AGENT'),
    pausedAt: time,
    resumeToken: token,
    resumable: fc.boolean(),
    pausedUntil: time,
    conditions: fc.constantFrom<JsonValue>(
      { onEvent: 'approval' },
      { timeout: { durationMinutes: 30, onTimeout: 'fail' } },
      { trigger: { at: '2026-01-01T00:45:00.000Z' } },
    ),
  },
  { requiredKeys: ['initiatedBy', 'pausedAt', 'resumeToken'] },
);
const resumeMeta = fc.record({
  previousState: fc.constant('TASK_STATE_PAUSED'),
  cause: fc.constantFrom('explicit_resume', 'condition_fired', 'timeout', 'external_event'),
  resumedAt: time,
  hadResumeInput: fc.boolean(),
  continueTranscript: fc.boolean(),
});
const legacy = fc.oneof(
  fc.record({
    state: fc.constant('paused'),
    initiator: fc.constantFrom('client', 'agent'),
    handle: token,
    pausedAt: time,
  }),
  fc.record({
    state: fc.constant('resumed'),
    cause: fc.constantFrom('explicit_resume', 'condition_fired'),
    resumedAt: time,
    hadResumeInput: fc.boolean(),
    continueTranscript: fc.boolean(),
  }),
);
const metadata = fc.oneof(
  fc.constant(undefined),
  fc.constant<JsonValue>({ note: 'n' }),
  resumeMeta,
  legacy.map((pause) => ({ harn: { pause } })),
);
const part = fc.oneof(
  fc.string({ maxLength: 6 }).map((text) => ({ text })),
  fc.constant({ data: { request: { callId: 'c1', name: 'approve', args: {} } } }),
);
const message = fc.record({
  messageId: fc.constantFrom('m-1', 'm-2'),
  role: fc.constantFrom('ROLE_AGENT', 'ROLE_USER'),
  parts: fc.array(part, { minLength: 1, maxLength: 2 }),
});

/** One way to break an answer, applied to its task or status update: what the full parse refuses. */
type Breakage = 'none' | 'timestamp' | 'id' | 'part' | 'artifacts' | 'contextId' | 'role' | 'pause' | 'state';
const breakage = fc.constantFrom<Breakage>(
  'none',
  'none',
  'none',
  'timestamp',
  'id',
  'part',
  'artifacts',
  'contextId',
  'role',
  'pause',
  'state',
);

interface Shown {
  taskId: string;
  state: number;
  timestamp: string | undefined;
  message: JsonObject | undefined;
  pause: JsonObject | undefined;
  metadata: JsonValue | undefined;
  artifacts: number;
  breakage: Breakage;
}
const shown = fc.record({
  taskId: fc.constantFrom(...TASKS),
  state: fc.nat(V1_STATES.length - 1),
  timestamp: fc.option(time, { nil: undefined }),
  message: fc.option(message, { nil: undefined }),
  pause: fc.option(pause, { nil: undefined, freq: 3 }),
  metadata,
  artifacts: fc.nat(2),
  breakage,
}) as fc.Arbitrary<Shown>;

function statusOf(s: Shown, v03: boolean): JsonObject {
  const state = (v03 ? V03_STATES : V1_STATES)[s.state] ?? 'TASK_STATE_WORKING';
  const status: JsonObject = { state: s.breakage === 'state' ? 'TASK_STATE_NAPPING' : state };
  if (s.timestamp !== undefined) status.timestamp = s.breakage === 'timestamp' ? 'yesterday' : s.timestamp;
  if (s.message !== undefined) {
    status.message = s.breakage === 'role' ? { ...s.message, role: 'ROLE_BOT' } : s.message;
    if (v03) status.message = { ...s.message, role: 'agent', parts: [{ kind: 'text', text: 'p' }], kind: 'message' };
  }
  if (s.pause !== undefined) status.pause = s.breakage === 'pause' ? { ...s.pause, pausedAt: 3 } : s.pause;
  return status;
}

function artifactsOf(s: Shown, v03: boolean): JsonValue[] {
  return Array.from({ length: s.artifacts }, (_, i) => ({
    artifactId: `art-${i}`,
    parts: v03
      ? [{ kind: 'text', text: 'done' }]
      : s.breakage === 'part'
        ? [{ text: 'a', url: 'http://x' }]
        : [{ text: 'done' }],
  }));
}

function taskOf(s: Shown, v03: boolean): JsonObject {
  const task: JsonObject = {
    id: s.breakage === 'id' ? '' : s.taskId,
    contextId: s.breakage === 'contextId' ? 7 : `ctx-${s.taskId}`,
    status: statusOf(s, v03),
  };
  if (s.artifacts > 0) task.artifacts = s.breakage === 'artifacts' ? 'none' : artifactsOf(s, v03);
  if (s.metadata !== undefined) task.metadata = s.metadata;
  if (v03) task.kind = 'task';
  return task;
}

function statusUpdateOf(s: Shown, v03: boolean): JsonObject {
  const update: JsonObject = {
    taskId: s.breakage === 'id' ? '' : s.taskId,
    contextId: s.breakage === 'contextId' ? 7 : `ctx-${s.taskId}`,
    status: statusOf(s, v03),
  };
  if (s.metadata !== undefined) update.metadata = s.metadata;
  if (v03) return { ...update, kind: 'status-update', final: false };
  return { statusUpdate: update };
}

function artifactUpdateOf(s: Shown, v03: boolean): JsonObject {
  const update: JsonObject = {
    taskId: s.breakage === 'id' ? '' : s.taskId,
    contextId: `ctx-${s.taskId}`,
    artifact: artifactsOf({ ...s, artifacts: 1 }, v03)[0] ?? null,
  };
  if (v03) return { ...update, kind: 'artifact-update' };
  return { artifactUpdate: update };
}

type Step =
  | { kind: 'get' | 'send'; v03: boolean; shown: Shown }
  | {
      kind: 'stream';
      v03: boolean;
      events: Array<{ what: 'task' | 'status' | 'artifact'; shown: Shown }>;
      ended: boolean;
    }
  | { kind: 'pause'; taskId: string; pause: JsonObject; refused: boolean }
  | { kind: 'resume'; taskId: string; token: string; resumedAt: string; refused: boolean }
  | { kind: 'fire'; taskId: string; resumed: boolean; now: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('get', 'send'), v03: fc.boolean(), shown }) as fc.Arbitrary<Step>,
  fc.record({
    kind: fc.constant('stream'),
    v03: fc.boolean(),
    events: fc.array(fc.record({ what: fc.constantFrom('task', 'status', 'status', 'artifact'), shown }), {
      minLength: 1,
      maxLength: 5,
    }),
    ended: fc.boolean(),
  }) as fc.Arbitrary<Step>,
  fc.record({
    kind: fc.constant('pause'),
    taskId: fc.constantFrom(...TASKS),
    pause,
    refused: fc.boolean(),
  }) as fc.Arbitrary<Step>,
  fc.record({
    kind: fc.constant('resume'),
    taskId: fc.constantFrom(...TASKS),
    token,
    resumedAt: time,
    refused: fc.boolean(),
  }) as fc.Arbitrary<Step>,
  fc.record({
    kind: fc.constant('fire'),
    taskId: fc.constantFrom(...TASKS),
    resumed: fc.boolean(),
    now: time,
  }) as fc.Arbitrary<Step>,
);

/** The recording entries of `steps`, `seq` from 1 and `at` a second apart. */
function entriesOf(steps: readonly Step[]): RecordingEntry[] {
  const entries: RecordingEntry[] = [];
  let rpc = 0;
  const push = (xid: string, e: Omit<RecordingEntry, 'seq' | 'at' | 'xid'>): void => {
    const seq = entries.length + 1;
    entries.push({ seq, at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), xid, ...e } as RecordingEntry);
  };
  const call = (xid: string, method: string, params: JsonValue, path = '/'): void =>
    push(xid, { kind: 'request', http: { method: 'POST', path }, body: { jsonrpc: '2.0', id: ++rpc, method, params } });
  const answer = (xid: string, result: JsonValue, kind: 'response' | 'event' = 'response'): void =>
    push(xid, { kind, http: { method: 'POST', path: '/', status: 200 }, body: { jsonrpc: '2.0', id: rpc, result } });
  const refuse = (xid: string, code: number): void =>
    push(xid, {
      kind: 'response',
      http: { method: 'POST', path: '/', status: 200 },
      body: { jsonrpc: '2.0', id: rpc, error: { code, message: 'refused' } },
    });
  const userMessage = (taskId: string, v03: boolean): JsonObject =>
    v03
      ? { kind: 'message', messageId: 'u-1', role: 'user', parts: [{ kind: 'text', text: 'go' }], taskId }
      : { messageId: 'u-1', role: 'ROLE_USER', parts: [{ text: 'go' }], taskId };
  steps.forEach((s, i) => {
    const xid = `x-${i}`;
    switch (s.kind) {
      case 'get':
        call(xid, s.v03 ? 'tasks/get' : 'GetTask', { id: s.shown.taskId });
        return answer(xid, taskOf(s.shown, s.v03));
      case 'send': {
        call(xid, s.v03 ? 'message/send' : 'SendMessage', { message: userMessage(s.shown.taskId, s.v03) });
        const task = taskOf(s.shown, s.v03);
        return answer(xid, s.v03 ? task : { task });
      }
      case 'stream': {
        const first = s.events[0]?.shown.taskId ?? 'task-a';
        call(xid, s.v03 ? 'message/stream' : 'SendStreamingMessage', { message: userMessage(first, s.v03) });
        push(xid, { kind: 'response', http: { method: 'POST', path: '/', status: 200 } });
        for (const e of s.events) {
          if (e.what === 'task') {
            const task = taskOf(e.shown, s.v03);
            answer(xid, s.v03 ? task : { task }, 'event');
          } else if (e.what === 'status') answer(xid, statusUpdateOf(e.shown, s.v03), 'event');
          else answer(xid, artifactUpdateOf(e.shown, s.v03), 'event');
        }
        if (s.ended) push(xid, { kind: 'end', http: { method: 'POST', path: '/' } });
        return;
      }
      case 'pause':
        call(xid, 'PauseTask', { taskId: s.taskId, reason: 'review' });
        if (s.refused) return refuse(xid, -32002);
        return answer(xid, { taskId: s.taskId, state: 'TASK_STATE_PAUSED', pause: s.pause });
      case 'resume':
        call(xid, 'ResumeTask', { taskId: s.taskId, resumeToken: s.token });
        if (s.refused) return refuse(xid, -32011);
        return answer(xid, {
          taskId: s.taskId,
          state: 'TASK_STATE_WORKING',
          previousState: 'TASK_STATE_PAUSED',
          cause: 'explicit_resume',
          resumedAt: s.resumedAt,
        });
      case 'fire':
        call(xid, 'FireEvent', { name: 'approval', payload: { taskId: s.taskId } }, '/control');
        return answer(xid, { now: s.now, resumed: s.resumed ? [s.taskId] : [] });
      default: {
        const never: never = s;
        return never;
      }
    }
  });
  return entries;
}

describe('the scan path over generated traffic', () => {
  it('gives the outputs of the full parse for sequences of v1.0 and v0.3 entries around pauses', () => {
    let scanned = 0;
    let entries = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 24 }), (steps) => {
        const list = entriesOf(steps);
        scanned += scannedAnswers(list);
        entries += list.length;
        expectSamePaths(list);
      }),
      { numRuns: fuzzRuns(300), seed: 53 },
    );
    // The generated traffic exercises both paths: answers scanned, and answers read in full.
    expect(scanned).toBeGreaterThan(100);
    expect(scanned).toBeLessThan(entries / 2);
  });
});

describe('an observer reading by both paths', () => {
  /** A GetTask exchange whose answer shows WORKING to the first reader and COMPLETED to the next. */
  function twoFacedGet(): RecordingEntry[] {
    const list = entriesOf([{ kind: 'get', v03: false, shown: quietShown() }]);
    const answer = list[1] as RecordingEntry & { body: { result: { status: JsonObject } } };
    let reads = 0;
    Object.defineProperty(answer.body.result.status, 'state', {
      get: () => (++reads === 1 ? 'TASK_STATE_WORKING' : 'TASK_STATE_COMPLETED'),
      enumerable: true,
    });
    return list;
  }

  it('throws OBSERVER_MISMATCH, naming the entry, where the two paths read it differently', () => {
    const [request, answer] = twoFacedGet() as [RecordingEntry, RecordingEntry];
    const observer = new PauseObserver({ recordingId: 'rec-scan-path', scanPath: 'both' });
    expect(observer.observe(request)).toEqual([]);
    let thrown: unknown;
    try {
      observer.observe(answer);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(A2aReplayError);
    expect((thrown as A2aReplayError).code).toBe('OBSERVER_MISMATCH');
    expect((thrown as Error).message).toMatch(
      /^entry 2: the scan path read .*TASK_STATE_WORKING.*the full parse .*TASK_STATE_COMPLETED/,
    );
  });

  it('is the default under A2A_REPLAY_SCAN_CHECK=1, and only then', () => {
    const before = process.env.A2A_REPLAY_SCAN_CHECK;
    try {
      process.env.A2A_REPLAY_SCAN_CHECK = '1';
      const [request, answer] = twoFacedGet() as [RecordingEntry, RecordingEntry];
      const checked = new PauseObserver({ recordingId: 'rec-scan-path' });
      checked.observe(request);
      expect(() => checked.observe(answer)).toThrow(/the scan path read/);
      delete process.env.A2A_REPLAY_SCAN_CHECK;
      const [request2, answer2] = twoFacedGet() as [RecordingEntry, RecordingEntry];
      const plain = new PauseObserver({ recordingId: 'rec-scan-path' });
      plain.observe(request2);
      expect(() => plain.observe(answer2)).not.toThrow();
    } finally {
      if (before === undefined) delete process.env.A2A_REPLAY_SCAN_CHECK;
      else process.env.A2A_REPLAY_SCAN_CHECK = before;
    }
  });
});

function quietShown(): Shown {
  return {
    taskId: 'task-a',
    state: 1,
    timestamp: '2026-01-01T00:00:01.000Z',
    message: undefined,
    pause: undefined,
    metadata: undefined,
    artifacts: 1,
    breakage: 'none',
  };
}
