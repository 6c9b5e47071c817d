/**
 * The interruption rules of docs/design.md §14.9: INPUT_REQUIRED and AUTH_REQUIRED seen, continued
 * (by a client message naming the task, out of band, by the task ending) or lost (never_continued,
 * continued_as_new_task, bypassed, lost_after_restart), each row fired by a session made to show it.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/canonical/canonical-json.js';
import { hashCanonical } from '../../src/canonical/canonical-json.js';
import type { ObserverOutput } from '../../src/observe/suspension.js';
import {
  CTX,
  Entries,
  TASK,
  findings,
  observeAll,
  statusOf,
  suspensions,
  task,
  userMessage,
  working,
} from './entries.js';

const OTHER = 'task-019abf6b-7d51-7c1d-bb02-0002';
const PROMPT = [{ text: 'Approve the deploy to production? (yes/no)' }];

function interrupted(state: string, prompt: JsonObject[] | null = PROMPT, taskId = TASK): JsonObject {
  const status: JsonObject = { state, timestamp: '2026-04-30T12:35:00.000Z' };
  if (prompt !== null)
    status.message = { messageId: `prompt-${state}`, role: 'ROLE_AGENT', parts: prompt, taskId, contextId: CTX };
  return { statusUpdate: { taskId, contextId: CTX, status } };
}

/** A client message continuing `taskId` (or none) in the test context. */
function answer(text: string, taskId?: string): JsonObject {
  const m = userMessage(text, taskId) as { message: JsonObject };
  return { message: { ...m.message, contextId: CTX } };
}

const interruptions = (out: readonly ObserverOutput[]) =>
  out.flatMap((o) => (o.type === 'interruption' ? [{ draft: o.draft, rule: o.rule }] : []));
const continuations = (out: readonly ObserverOutput[]) =>
  out.flatMap((o) => (o.type === 'continuation' ? [{ draft: o.draft, rule: o.rule, of: o.interruptionKey }] : []));
const lostOnes = (out: readonly ObserverOutput[]) =>
  out.flatMap((o) => (o.type === 'interruption-lost' ? [{ reason: o.reason, rule: o.rule, seq: o.seq }] : []));

/** A stream that asks for input: SUBMITTED, WORKING, then INPUT_REQUIRED with its prompt. */
function asks(e: Entries, state = 'TASK_STATE_INPUT_REQUIRED'): void {
  e.request('s1', 'SendStreamingMessage', answer('deploy'));
  e.sseHead('s1');
  e.event('s1', task('TASK_STATE_SUBMITTED'));
  e.event('s1', working());
  e.event('s1', interrupted(state));
  e.end('s1');
}

describe('interruptions', () => {
  it('INPUT_REQUIRED answered by a message naming the task: one interruption, one continuation by its sender', () => {
    const e = new Entries();
    asks(e);
    e.request('s2', 'SendStreamingMessage', answer('yes', TASK), { principal: 'jwt:sub=alice' });
    e.sseHead('s2');
    e.event('s2', working());
    const done = e.event('s2', statusOf('TASK_STATE_COMPLETED'));
    e.end('s2');
    const out = observeAll(e.list);
    const [i] = interruptions(out);
    expect(i?.rule).toBe('not-interrupted/input-required');
    expect(i?.draft).toMatchObject({
      type: 'InterruptionReceipt',
      taskId: TASK,
      contextId: CTX,
      state: 'TASK_STATE_INPUT_REQUIRED',
      promptHash: hashCanonical(PROMPT),
      interruptedAt: '2026-04-30T12:35:00.000Z',
      entries: [5],
      binding: 'JSONRPC',
    });
    const c = continuations(out);
    expect(c).toHaveLength(1);
    expect(c[0]?.rule).toBe('interrupted/continued-by-message');
    expect(c[0]?.draft).toMatchObject({
      cause: 'message',
      principal: 'jwt:sub=alice',
      inputHash: hashCanonical([{ text: 'yes' }]),
      entries: [5, 7, 9],
      interruptionSpan: i?.draft.span,
    });
    expect(c[0]?.draft.observedAt).toBe(e.list[8]?.at);
    expect(done.seq).toBe(10);
    expect(lostOnes(out)).toEqual([]);
    expect(suspensions(out)).toEqual([]);
  });

  it('AUTH_REQUIRED continued out of band: the control call naming the task is who continued it', () => {
    const e = new Entries();
    asks(e, 'TASK_STATE_AUTH_REQUIRED');
    e.control('c1', 'FireEvent', { name: 'credentials', payload: { taskId: TASK } }, 'jwt:sub=vault');
    e.result('c1', { resumed: [] });
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_WORKING' } });
    const out = observeAll(e.list);
    expect(interruptions(out).map((i) => [i.rule, i.draft.state])).toEqual([
      ['not-interrupted/auth-required', 'TASK_STATE_AUTH_REQUIRED'],
    ]);
    expect(continuations(out).map((c) => [c.rule, c.draft.cause, c.draft.principal, c.draft.entries])).toEqual([
      ['interrupted/auth-out-of-band', 'out_of_band', 'jwt:sub=vault', [5, 7, 10]],
    ]);
  });

  it('asked again after an answer: the answer continues the first, a second interruption opens', () => {
    const e = new Entries();
    asks(e);
    e.request('m1', 'SendMessage', answer('yes', TASK), { principal: 'jwt:sub=alice' });
    e.result('m1', {
      task: {
        id: TASK,
        contextId: CTX,
        status: {
          state: 'TASK_STATE_INPUT_REQUIRED',
          message: { messageId: 'p2', role: 'ROLE_AGENT', parts: [{ text: 'Which region?' }] },
        },
      },
    });
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', {
      id: TASK,
      contextId: CTX,
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: { messageId: 'p2', role: 'ROLE_AGENT', parts: [{ text: 'Which region?' }] },
      },
    });
    const out = observeAll(e.list);
    expect(interruptions(out).map((i) => i.draft.promptHash)).toEqual([
      hashCanonical(PROMPT),
      hashCanonical([{ text: 'Which region?' }]),
    ]);
    expect(continuations(out).map((c) => [c.rule, c.draft.cause, c.draft.principal])).toEqual([
      ['interrupted/asked-again', 'message', 'jwt:sub=alice'],
    ]);
    expect(lostOnes(out).map((l) => [l.reason, l.rule])).toEqual([
      ['never_continued', 'interrupted/end-never-continued'],
    ]);
  });

  it('the task canceled while interrupted: a continuation canceled by the CancelTask sender', () => {
    const e = new Entries();
    asks(e);
    e.request('x1', 'CancelTask', { id: TASK }, { principal: 'jwt:sub=bob' });
    e.result('x1', { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_CANCELED' } });
    const out = observeAll(e.list);
    expect(continuations(out).map((c) => [c.rule, c.draft.cause, c.draft.principal, c.draft.inputHash])).toEqual([
      ['interrupted/canceled', 'canceled', 'jwt:sub=bob', null],
    ]);
  });

  it('the task failed while interrupted: a continuation failed, nobody named', () => {
    const e = new Entries();
    asks(e);
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_FAILED' } });
    expect(continuations(observeAll(e.list)).map((c) => [c.rule, c.draft.cause, c.draft.principal])).toEqual([
      ['interrupted/failed', 'failed', null],
    ]);
  });

  it('never_continued: the recording ends with the task still interrupted', () => {
    const e = new Entries();
    asks(e);
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
    const out = observeAll(e.list);
    expect(lostOnes(out)).toEqual([{ reason: 'never_continued', rule: 'interrupted/end-never-continued', seq: null }]);
    expect(
      findings(out)
        .filter((f) => f.code === 'lost-interruption')
        .map((f) => f.taskId),
    ).toEqual([TASK]);
    expect(continuations(out)).toEqual([]);
  });

  it('continued_as_new_task: the answer named no task and a new task started in the context', () => {
    const e = new Entries();
    asks(e);
    e.request('m1', 'SendMessage', answer('yes'), { principal: 'jwt:sub=alice' });
    const started = e.result('m1', {
      task: { id: OTHER, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } },
    });
    const out = observeAll(e.list);
    expect(lostOnes(out)).toEqual([
      { reason: 'continued_as_new_task', rule: 'interrupted/answered-as-new-task', seq: started.seq },
    ]);
    expect(continuations(out)).toEqual([]);
  });

  /** The task as GetTask shows it: INPUT_REQUIRED with `prompt`, its status stamped `timestamp`. */
  function stillAsking(e: Entries, xid: string, prompt = PROMPT, timestamp = '2026-04-30T12:35:00.000Z'): void {
    e.request(xid, 'GetTask', { id: TASK });
    e.result(xid, {
      id: TASK,
      contextId: CTX,
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        timestamp,
        message: { messageId: 'prompt-TASK_STATE_INPUT_REQUIRED', role: 'ROLE_AGENT', parts: prompt },
      },
    });
  }

  /** The ask answered in its context without the task's id: a new task started instead. */
  function answeredAsNewTask(e: Entries): void {
    e.request('m1', 'SendMessage', answer('yes'), { principal: 'jwt:sub=alice' });
    e.result('m1', { task: { id: OTHER, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } } });
  }

  it('the lost interruption seen again (same prompt, same status timestamp) is that interruption: one receipt', () => {
    const e = new Entries();
    asks(e);
    answeredAsNewTask(e);
    stillAsking(e, 'g1');
    stillAsking(e, 'g2');
    const out = observeAll(e.list);
    expect(interruptions(out).map((i) => i.rule)).toEqual(['not-interrupted/input-required']);
    expect(lostOnes(out).map((l) => [l.reason, l.rule])).toEqual([
      ['continued_as_new_task', 'interrupted/answered-as-new-task'],
    ]);
    expect(continuations(out)).toEqual([]);
  });

  it('a new ask after the lost one (another prompt, or a later status timestamp) is a second interruption', () => {
    for (const [prompt, timestamp] of [
      [[{ text: 'Which region?' }], '2026-04-30T12:35:00.000Z'],
      [PROMPT, '2026-04-30T12:36:00.000Z'],
    ] as const) {
      const e = new Entries();
      asks(e);
      answeredAsNewTask(e);
      stillAsking(e, 'g1', [...prompt], timestamp);
      const out = observeAll(e.list);
      expect(interruptions(out).map((i) => [i.rule, i.draft.promptHash, i.draft.interruptedAt])).toEqual([
        ['not-interrupted/input-required', hashCanonical(PROMPT), '2026-04-30T12:35:00.000Z'],
        ['not-interrupted/input-required', hashCanonical([...prompt]), timestamp],
      ]);
      expect(lostOnes(out).map((l) => l.reason)).toEqual(['continued_as_new_task', 'never_continued']);
    }
  });

  it('the task moving on forgets the lost interruption: the same ask seen afterwards opens again', () => {
    const e = new Entries();
    asks(e);
    answeredAsNewTask(e);
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_WORKING' } });
    stillAsking(e, 'g2');
    const out = observeAll(e.list);
    expect(interruptions(out)).toHaveLength(2);
    expect(lostOnes(out).map((l) => l.reason)).toEqual(['continued_as_new_task', 'never_continued']);
  });

  it('a message elsewhere followed by a sighting of a known task is not a new task', () => {
    const e = new Entries();
    e.request('g0', 'GetTask', { id: OTHER });
    e.result('g0', { id: OTHER, contextId: CTX, status: { state: 'TASK_STATE_WORKING' } });
    asks(e);
    e.request('m1', 'SendMessage', answer('status?', OTHER));
    e.result('m1', { task: { id: OTHER, contextId: CTX, status: { state: 'TASK_STATE_WORKING' } } });
    expect(lostOnes(observeAll(e.list)).map((l) => l.reason)).toEqual(['never_continued']);
  });

  it('bypassed: an INPUT_REQUIRED task moved on with no message naming it', () => {
    const e = new Entries();
    asks(e);
    e.request('g1', 'GetTask', { id: TASK });
    const moved = e.result('g1', { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } });
    const out = observeAll(e.list);
    expect(lostOnes(out)).toEqual([{ reason: 'bypassed', rule: 'interrupted/bypassed', seq: moved.seq }]);
    expect(continuations(out)).toEqual([]);
  });

  it('lost_after_restart: the peer answers task-not-found for a task last seen interrupted', () => {
    const e = new Entries();
    asks(e);
    e.request('g1', 'GetTask', { id: TASK });
    const gone = e.error('g1', -32001, 'Task not found');
    expect(lostOnes(observeAll(e.list))).toEqual([
      { reason: 'lost_after_restart', rule: 'interrupted/task-gone', seq: gone.seq },
    ]);
  });

  it('a refused answer continues nothing: the task moving on later is a bypass', () => {
    const e = new Entries();
    asks(e);
    e.request('m1', 'SendMessage', answer('yes', TASK));
    e.error('m1', -32602, 'bad message');
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_WORKING' } });
    const out = observeAll(e.list);
    expect(continuations(out)).toEqual([]);
    expect(lostOnes(out).map((l) => l.reason)).toEqual(['bypassed']);
  });

  it('an answer the recording ends after continues the interruption', () => {
    const e = new Entries();
    asks(e);
    e.request('m1', 'SendMessage', answer('yes', TASK), { principal: 'jwt:sub=alice' });
    const out = observeAll(e.list);
    expect(continuations(out).map((c) => [c.rule, c.draft.principal, c.draft.entries])).toEqual([
      ['interrupted/end-after-answer', 'jwt:sub=alice', [5, 7]],
    ]);
    expect(lostOnes(out)).toEqual([]);
  });

  it('a stream that has not delivered the interruption shows older news: it decides nothing', () => {
    const e = new Entries();
    e.request('s1', 'SendStreamingMessage', answer('deploy'));
    e.sseHead('s1');
    e.event('s1', task('TASK_STATE_SUBMITTED'));
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', {
      id: TASK,
      contextId: CTX,
      status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'p', role: 'ROLE_AGENT', parts: PROMPT } },
    });
    e.event('s1', working());
    e.event('s1', interrupted('TASK_STATE_INPUT_REQUIRED'));
    const out = observeAll(e.list);
    expect(interruptions(out)).toHaveLength(1);
    expect(lostOnes(out).map((l) => l.reason)).toEqual(['never_continued']);
  });
});
