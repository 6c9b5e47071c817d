/**
 * Property-based fuzzing of the reference peer over real sockets: sequences of valid requests
 * (send, stream, get, list, cancel, subscribe, pause, resume, await, control), each possibly
 * mutated (params replaced or removed, wrong types, out-of-range and huge numbers, lone
 * surrogates, deep nesting, oversized bodies, broken envelopes, a missing A2A-Version).
 *
 * Properties, for every run: nothing crashes (no internal error, no failed timer in the peer's
 * log); nothing hangs (once every task is canceled, every request, stream included, has been
 * answered within the run's deadline); every JSON-RPC request gets a JSON-RPC answer, success or
 * an error from the table, never -32603; afterwards every task is in a valid state, GetTask
 * answers for each one kept, at most `maxTasks` finished tasks are kept, and the transitions log
 * is a chain of allowed moves per task. Inputs come from a fixed seed, so a failure reproduces.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SseParser } from '../../src/intercept/sse-parser.js';
import { readPeerTransitions } from '../../src/peer/read-transitions.js';
import { startPeer } from '../../src/peer/start-peer.js';
import { JSON_RPC_ERRORS } from '../../src/protocol/errors.js';
import { checkTransition, isTerminal } from '../../src/protocol/state-machine.js';
import { TASK_STATES, type Task } from '../../src/protocol/types.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const MAX_TASKS = 4;
const BODY_LIMIT = 16 * 1024;
const KNOWN_CODES = new Set<number>(Object.values(JSON_RPC_ERRORS).map((e) => e.code));
const INTERNAL = JSON_RPC_ERRORS.INTERNAL.code;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'peer-fuzz-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// ---- what a run is made of ----

/** A task id: one the run has learned (by index), or one that does not exist. */
type IdRef = { ref: number } | { literal: string };

type Base =
  | { method: 'SendMessage'; script: string; immediate: boolean; context: IdRef | null }
  | { method: 'SendStreamingMessage'; script: string }
  | { method: 'FollowUp'; task: IdRef }
  | { method: 'GetTask' | 'CancelTask' | 'SubscribeToTask'; task: IdRef; historyLength?: number }
  | { method: 'ListTasks'; pageSize?: number; status?: string }
  | { method: 'PauseTask'; task: IdRef; mode: string }
  | { method: 'ResumeTask'; task: IdRef; token: number; input: unknown }
  | { method: 'AwaitTaskResumption'; task: IdRef; minutes: number; at: string | null }
  | { method: 'AdvanceClock'; ms: number }
  | { method: 'FireEvent'; name: string; target: IdRef | null }
  | { method: 'GetClock' };

type Mutation =
  | { kind: 'set'; path: number[]; value: unknown }
  | { kind: 'delete'; path: number[] }
  | { kind: 'envelope'; change: 'no-id' | 'object-id' | 'jsonrpc-1' | 'scalar-params' | 'batch' | 'method' }
  | { kind: 'no-version' }
  | { kind: 'oversize' }
  | { kind: 'garbage'; text: string };

interface Step {
  base: Base;
  mutation: Mutation | null;
}

const lone = fc.constantFrom('\ud800', 'x\udfff', '\udc00\ud800', 'ok\ud83d');
const deep = fc.integer({ min: 100, max: 1500 }).map((depth) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
});
const weird: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(1e15, 1e308, -1, -0, 2 ** 53 + 2, 0.5, 2 ** 31, Number.MAX_SAFE_INTEGER, '', null, true, [], {}),
  fc.string({ unit: 'binary', maxLength: 24 }),
  lone,
  deep,
);
const idRef: fc.Arbitrary<IdRef> = fc.oneof(
  { weight: 4, arbitrary: fc.nat(30).map((ref) => ({ ref })) },
  { weight: 1, arbitrary: fc.constantFrom('task-nope', 'x'.repeat(300), '\ud800').map((literal) => ({ literal })) },
);
const directive = fc.oneof(
  fc.integer({ min: 0, max: 4 }).map((n) => `work:${n}`),
  fc.integer({ min: 0, max: 5 }).map((n) => `tool:${n}`),
  fc.constantFrom('await:go', 'await:go:1:fail', 'await:ci:2:resume', 'input', 'auth', 'fail'),
  fc.constantFrom('await:ev:9999999999999', 'work:10001', 'sleep-until:2026-02-31T00:00:00Z', 'tool:x'),
  fc.constantFrom('sleep-until:2026-01-01T00:00:03Z', 'sleep-until:1999-01-01T00:00:00Z', 'hello'),
);
const script = fc.array(directive, { minLength: 1, maxLength: 5 }).map((ds) => ds.join(' '));

const base: fc.Arbitrary<Base> = fc.oneof(
  fc.record({
    method: fc.constant('SendMessage' as const),
    script,
    immediate: fc.boolean(),
    context: fc.option(idRef, { nil: null }),
  }),
  fc.record({ method: fc.constant('SendStreamingMessage' as const), script }),
  fc.record({ method: fc.constant('FollowUp' as const), task: idRef }),
  fc.record(
    {
      method: fc.constantFrom('GetTask' as const, 'CancelTask' as const, 'SubscribeToTask' as const),
      task: idRef,
      historyLength: fc.integer({ min: -2, max: 5 }),
    },
    { requiredKeys: ['method', 'task'] },
  ),
  fc.record(
    {
      method: fc.constant('ListTasks' as const),
      pageSize: fc.integer({ min: 0, max: 120 }),
      status: fc.constantFrom(...TASK_STATES, 'TASK_STATE_NAPPING'),
    },
    { requiredKeys: ['method'] },
  ),
  fc.record({
    method: fc.constant('PauseTask' as const),
    task: idRef,
    mode: fc.constantFrom('finish_step', 'interrupt_immediate', 'wait_for_completion', 'later'),
  }),
  fc.record({
    method: fc.constant('ResumeTask' as const),
    task: idRef,
    token: fc.integer({ min: -1, max: 10 }),
    input: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 })),
  }),
  fc.record({
    method: fc.constant('AwaitTaskResumption' as const),
    task: idRef,
    minutes: fc.constantFrom(1, 30, 525_600, 525_601, 0, 1e15),
    at: fc.constantFrom(null, '2026-01-01T00:00:02Z', '2026-13-01T00:00:00Z', '9999-12-31T23:59:59Z'),
  }),
  fc.record({
    method: fc.constant('AdvanceClock' as const),
    ms: fc.constantFrom(0, 250, 500, 1000, 3000, 61_000, 4e10),
  }),
  fc.record({
    method: fc.constant('FireEvent' as const),
    name: fc.constantFrom('go', 'ci', 'nothing'),
    target: fc.option(idRef, { nil: null }),
  }),
  fc.record({ method: fc.constant('GetClock' as const) }),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      path: fc.array(fc.nat(), { maxLength: 3 }),
      value: weird,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      path: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('envelope' as const),
      change: fc.constantFrom(
        'no-id' as const,
        'object-id' as const,
        'jsonrpc-1' as const,
        'scalar-params' as const,
        'batch' as const,
        'method' as const,
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'no-version' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'oversize' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbage' as const), text: fc.string({ maxLength: 30 }) }) },
);

const step: fc.Arbitrary<Step> = fc.record({
  base,
  mutation: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: mutation }),
});

// ---- running a step ----

interface Run {
  url: string;
  taskIds: string[];
  tokens: string[];
  background: Promise<void>[];
  problems: string[];
  nextId: number;
}

function resolveId(run: Run, ref: IdRef): string {
  if ('literal' in ref) return ref.literal;
  return run.taskIds.length === 0 ? 'task-none' : run.taskIds[ref.ref % run.taskIds.length]!;
}

let messageSeq = 0;
function userMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `fuzz-${messageSeq++}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** The JSON-RPC method and params of a step, before mutation. */
function request(run: Run, b: Base): { path: string; method: string; params: Record<string, unknown> } {
  switch (b.method) {
    case 'SendMessage': {
      const extra = b.context ? { contextId: resolveId(run, b.context) } : {};
      return {
        path: '/',
        method: 'SendMessage',
        params: { message: userMessage(b.script, extra), configuration: { returnImmediately: b.immediate } },
      };
    }
    case 'SendStreamingMessage':
      return { path: '/', method: b.method, params: { message: userMessage(b.script) } };
    case 'FollowUp':
      return {
        path: '/',
        method: 'SendMessage',
        params: {
          message: userMessage('more input', { taskId: resolveId(run, b.task) }),
          configuration: { returnImmediately: true },
        },
      };
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask': {
      const params: Record<string, unknown> = { id: resolveId(run, b.task) };
      if (b.method === 'GetTask' && b.historyLength !== undefined) params.historyLength = b.historyLength;
      return { path: '/', method: b.method, params };
    }
    case 'ListTasks': {
      const params: Record<string, unknown> = {};
      if (b.pageSize !== undefined) params.pageSize = b.pageSize;
      if (b.status !== undefined) params.status = b.status;
      return { path: '/', method: b.method, params };
    }
    case 'PauseTask':
      return { path: '/', method: b.method, params: { taskId: resolveId(run, b.task), mode: b.mode, reason: 'fuzz' } };
    case 'ResumeTask': {
      const token = b.token >= 0 && run.tokens.length > 0 ? run.tokens[b.token % run.tokens.length]! : 'suspend-x';
      const params: Record<string, unknown> = { taskId: resolveId(run, b.task), resumeToken: token };
      if (b.input !== undefined) params.input = b.input;
      return { path: '/', method: b.method, params };
    }
    case 'AwaitTaskResumption': {
      const conditions: Record<string, unknown> = { timeout: { durationMinutes: b.minutes, onTimeout: 'resume' } };
      if (b.at !== null) conditions.trigger = { at: b.at };
      return { path: '/', method: b.method, params: { taskId: resolveId(run, b.task), conditions } };
    }
    case 'AdvanceClock':
      return { path: '/control', method: b.method, params: { ms: b.ms } };
    case 'FireEvent': {
      const params: Record<string, unknown> = { name: b.name };
      if (b.target) params.payload = { taskId: resolveId(run, b.target) };
      return { path: '/control', method: b.method, params };
    }
    case 'GetClock':
      return { path: '/control', method: b.method, params: {} };
  }
}

/** Sets or deletes the member found by walking `path` (indexes into each level's keys). */
function mutate(
  value: Record<string, unknown>,
  path: number[],
  change: (holder: Record<string, unknown>, key: string) => void,
): void {
  let holder: Record<string, unknown> = value;
  for (let i = 0; i < path.length; i++) {
    const keys = Object.keys(holder);
    if (keys.length === 0) return;
    const key = keys[path[i]! % keys.length]!;
    const next = holder[key];
    if (i === path.length - 1 || next === null || typeof next !== 'object') return change(holder, key);
    holder = next as Record<string, unknown>;
  }
  change(holder, `extra${path.length}`);
}

interface Sent {
  body: string;
  headers: Record<string, string>;
  path: string;
  /** The id the answer must carry, when the request is a well-formed JSON-RPC request. */
  expectId: number | undefined;
  /** A JSON-RPC answer is due (the body is JSON). */
  jsonRpc: boolean;
}

function build(run: Run, s: Step): Sent & { method: string } {
  const { path, method, params } = request(run, s.base);
  const id = run.nextId++;
  const envelope: Record<string, unknown> = { jsonrpc: '2.0', id, method, params };
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
  let expectId: number | undefined = id;
  const m = s.mutation;
  if (m?.kind === 'set') mutate(params, m.path, (h, k) => (h[k] = m.value));
  if (m?.kind === 'delete') mutate(params, m.path, (h, k) => delete h[k]);
  if (m?.kind === 'no-version') delete headers['A2A-Version'];
  if (m?.kind === 'envelope') {
    if (m.change === 'no-id') delete envelope.id;
    if (m.change === 'object-id') envelope.id = { n: id };
    if (m.change === 'jsonrpc-1') envelope.jsonrpc = '1.0';
    if (m.change === 'scalar-params') envelope.params = 7;
    if (m.change === 'method') envelope.method = `${method}X`;
    if (m.change !== 'method' && m.change !== 'scalar-params') expectId = undefined;
  }
  if (m?.kind === 'oversize') params.padding = 'p'.repeat(BODY_LIMIT + 1);
  if (m?.kind === 'garbage') return { body: `{${m.text}`, headers, path, expectId: undefined, jsonRpc: true, method };
  const body = m?.kind === 'envelope' && m.change === 'batch' ? JSON.stringify([envelope]) : JSON.stringify(envelope);
  if (m?.kind === 'oversize') expectId = undefined;
  return { body, headers, path, expectId, jsonRpc: true, method };
}

/** Checks one JSON-RPC answer; returns its result when it is a success. */
function check(run: Run, sent: Sent, status: number, text: string, what: string): unknown {
  let reply: Record<string, unknown>;
  try {
    reply = JSON.parse(text) as Record<string, unknown>;
  } catch {
    run.problems.push(`${what}: the answer (HTTP ${status}) is not JSON: ${text.slice(0, 200)}`);
    return undefined;
  }
  if (reply.jsonrpc !== '2.0') run.problems.push(`${what}: no jsonrpc 2.0 in ${text.slice(0, 200)}`);
  if (sent.expectId !== undefined && reply.id !== sent.expectId && 'result' in reply) {
    run.problems.push(`${what}: id ${JSON.stringify(reply.id)} instead of ${sent.expectId}`);
  }
  if ('error' in reply) {
    const error = reply.error as { code?: unknown; message?: unknown; data?: unknown };
    if (typeof error.code !== 'number' || !KNOWN_CODES.has(error.code)) {
      run.problems.push(`${what}: an error code outside the table: ${text.slice(0, 200)}`);
    }
    if (error.code === INTERNAL) run.problems.push(`${what}: internal error: ${text.slice(0, 300)}`);
    if (typeof error.message !== 'string' || error.message.length === 0) run.problems.push(`${what}: no message`);
    if (!Array.isArray(error.data)) run.problems.push(`${what}: no ErrorInfo`);
    if (status !== 200 && status !== 413) run.problems.push(`${what}: HTTP ${status} for a JSON-RPC error`);
    return undefined;
  }
  if (!('result' in reply)) run.problems.push(`${what}: neither result nor error: ${text.slice(0, 200)}`);
  return reply.result;
}

function learn(run: Run, result: unknown): void {
  const r = result as { task?: { id?: unknown }; pause?: { resumeToken?: unknown } } | undefined;
  if (typeof r?.task?.id === 'string' && !run.taskIds.includes(r.task.id)) run.taskIds.push(r.task.id);
  if (typeof r?.pause?.resumeToken === 'string') run.tokens.push(r.pause.resumeToken);
}

/**
 * Sends one request. `first` settles with the first answer (a unary answer, or a stream's first
 * event), `done` once the whole answer was read and checked.
 */
function send(run: Run, sent: Sent & { method: string }, what: string): { first: Promise<void>; done: Promise<void> } {
  let firstSeen: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (firstSeen = resolve));
  const done = (async () => {
    const res = await fetch(run.url + sent.path, { method: 'POST', headers: sent.headers, body: sent.body });
    if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const parser = new SseParser();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const frame of parser.push(chunk)) {
          if (!frame.data) continue;
          learn(run, check(run, sent, 200, frame.data, `${what} (stream)`));
          firstSeen();
        }
      }
      return;
    }
    learn(run, check(run, sent, res.status, await res.text(), what));
  })()
    .catch((error: unknown) => {
      run.problems.push(`${what}: the request failed: ${String(error)}`);
    })
    .finally(() => firstSeen());
  return { first, done };
}

/**
 * Whether a request's answer may wait for the clock or a terminal state (a blocking SendMessage, a
 * pause waiting for a step): those are not awaited; streams are awaited up to their first event.
 */
function waits(method: string, body: string): 'no' | 'first' | 'yes' {
  switch (method) {
    case 'SendMessage': {
      let immediate = false;
      try {
        const sent = JSON.parse(body) as { params?: { configuration?: { returnImmediately?: unknown } } };
        immediate = sent.params?.configuration?.returnImmediately === true;
      } catch {
        // not JSON: answered at once
        immediate = true;
      }
      return immediate ? 'no' : 'yes';
    }
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
      return 'first';
    case 'PauseTask':
    case 'AwaitTaskResumption':
      return 'yes';
    default:
      return 'no';
  }
}

async function valid(run: Run, method: string, params: unknown, path = '/'): Promise<unknown> {
  const res = await fetch(run.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method, params }),
  });
  return ((await res.json()) as { result?: unknown }).result;
}

/** Every kept task, walking ListTasks pages. */
async function allTasks(run: Run): Promise<Task[]> {
  const tasks: Task[] = [];
  let pageToken = '';
  do {
    const page = (await valid(run, 'ListTasks', { pageSize: 100, pageToken })) as {
      tasks: Task[];
      nextPageToken: string;
    };
    tasks.push(...page.tasks);
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  return tasks;
}

async function settle(promises: Promise<void>[], ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const done = await Promise.race([Promise.all(promises).then(() => true as const), timeout]);
  clearTimeout(timer);
  return done;
}

it('survives mutated requests: no crash, no hang, a JSON-RPC answer for each, invariants after', async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
      const logFile = join(dir, `run-${runs++}.jsonl`);
      const failures: string[] = [];
      const peer = await startPeer({
        deterministic: true,
        maxTasks: MAX_TASKS,
        bodyLimitBytes: BODY_LIMIT,
        transitionsFile: logFile,
        log: (line) => {
          if (/failed|stopped/.test(line)) failures.push(line);
        },
      });
      const run: Run = { url: peer.url, taskIds: [], tokens: [], background: [], problems: [], nextId: 1 };
      try {
        for (const [i, s] of steps.entries()) {
          const sent = build(run, s);
          const what = `step ${i + 1} (${sent.method}${s.mutation ? `, ${s.mutation.kind}` : ''})`;
          const { first, done } = send(run, sent, what);
          run.background.push(done);
          const wait = waits(sent.method, sent.body);
          if (wait === 'no') await done;
          else if (wait === 'first') await first;
          // One turn of the event loop, so answers that are due reach the run (ids, tokens).
          else await new Promise((resolve) => setImmediate(resolve));
        }
        // End of the run: cancel every task that is not terminal (again, for requests that arrive
        // late) until every request is answered, within a deadline: past it, something hangs.
        let answered = false;
        for (let round = 0; round < 100 && !answered; round++) {
          for (const t of await allTasks(run)) {
            if (!isTerminal(t.status.state)) await valid(run, 'CancelTask', { id: t.id });
          }
          answered = await settle(run.background, 100);
        }
        expect(answered, 'every request answered (no hang)').toBe(true);
        expect(run.problems).toEqual([]);
        expect(failures).toEqual([]);

        const tasks = await allTasks(run);
        expect(tasks.filter((t) => isTerminal(t.status.state)).length).toBeLessThanOrEqual(MAX_TASKS);
        for (const t of tasks) {
          expect(TASK_STATES).toContain(t.status.state);
          expect(isTerminal(t.status.state)).toBe(true);
          expect(((await valid(run, 'GetTask', { id: t.id })) as Task).id).toBe(t.id);
        }
      } finally {
        await settle(run.background, 2000);
        await peer.close();
      }
      // The ground truth is a chain of allowed moves per task.
      const log = await readPeerTransitions(logFile);
      const states = new Map<string, string>();
      for (const line of log.lines) {
        if (line.event === 'transition') {
          expect(line.from ?? null).toBe(states.get(line.taskId) ?? null);
          if (line.from !== null) expect(checkTransition(line.from, line.to).allowed).toBe(true);
          states.set(line.taskId, line.to);
        } else if (line.event === 'evicted') {
          expect(isTerminal(line.state)).toBe(true);
          expect(states.get(line.taskId)).toBe(line.state);
        }
      }
    }),
    { numRuns: fuzzRuns(25), seed: 20260101, endOnFailure: true },
  );
}, 240_000);
