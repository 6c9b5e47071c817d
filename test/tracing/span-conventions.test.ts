/**
 * The OTel A2A and GenAI semantic-convention attributes of the pause and interruption spans
 * (docs/design.md §7): `a2a.task.id`, `a2a.task.state` (the state the span's entry showed),
 * `a2a.method.name` (the A2A method of the entry that opened it), `gen_ai.conversation.id` (the
 * context) and `gen_ai.agent.name` (the recording's agent card), through the pipeline and the bridge.
 */
import { describe, expect, it } from 'vitest';
import { ObservationPipeline } from '../../src/observe/pipeline.js';
import { EntryMethods } from '../../src/observe/entry-methods.js';
import { agentNameOf } from '../../src/observe/span-conventions.js';
import {
  CTX,
  Entries,
  RECORDING_ID,
  TASK,
  TOKEN,
  clientPause,
  pauseResult,
  paused,
  resumeResult,
  resumed,
  userMessage,
  working,
} from '../observe/entries.js';
import { memoryTracing } from './memory-tracing.js';

const RESUMED_AT = '2026-04-30T12:38:01.012Z';
const OTHER = 'task-019abf6b-7d51-7c1d-bb02-0002';

/** A streamed task paused by PauseTask and resumed by ResumeTask; another paused and left behind. */
function pauses(): Entries {
  const e = new Entries();
  e.request('s1', 'SendStreamingMessage', userMessage('work:5'));
  e.sseHead('s1');
  e.event('s1', { task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_SUBMITTED' } } });
  e.event('s1', working());
  e.request('p1', 'PauseTask', { taskId: TASK });
  e.event('s1', paused(clientPause()));
  e.result('p1', pauseResult(clientPause()));
  e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
  e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT }));
  e.result('r1', resumeResult(RESUMED_AT));
  e.request('s2', 'SendMessage', userMessage('work:5'));
  e.result('s2', { task: { id: OTHER, contextId: CTX, status: { state: 'TASK_STATE_WORKING' } } });
  e.request('p2', 'PauseTask', { taskId: OTHER });
  e.result('p2', pauseResult(clientPause({ resumeToken: 'other-token', pausedAt: '2026-04-30T12:35:03.500Z' }), OTHER));
  return e;
}

/** A task asks for input and the answer completes it. */
function asked(): Entries {
  const e = new Entries();
  e.request('m0', 'SendMessage', userMessage('deploy'));
  e.result('m0', { task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
  e.request('m1', 'SendMessage', userMessage('yes', TASK));
  e.result('m1', { task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } } });
  return e;
}

async function traced(e: Entries, agentName?: string): Promise<ReturnType<typeof memoryTracing>> {
  const tracing = memoryTracing();
  const pipeline = new ObservationPipeline({
    recordingId: RECORDING_ID,
    spans: tracing.bridge,
    ...(agentName === undefined ? {} : { agentName }),
  });
  for (const entry of e.list) void pipeline.push(entry);
  await pipeline.finish(e.nextAt());
  return tracing;
}

const conventions = (attributes: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(attributes).filter(([k]) =>
      ['a2a.task.id', 'a2a.task.state', 'a2a.method.name', 'gen_ai.conversation.id', 'gen_ai.agent.name'].includes(k),
    ),
  );

describe('semantic-convention attributes', () => {
  it('names the task, its state, the opening method, the conversation and the agent on pause spans', async () => {
    const tracing = await traced(pauses(), 'Reference Agent');
    const suspensions = tracing.byName('Suspension').map((s) => conventions(s.attributes));
    expect(suspensions.length).toBeGreaterThanOrEqual(2);
    for (const taskId of [TASK, OTHER])
      expect(suspensions).toContainEqual({
        'a2a.task.id': taskId,
        'a2a.task.state': 'TASK_STATE_PAUSED',
        'a2a.method.name': 'PauseTask',
        'gen_ai.conversation.id': CTX,
        'gen_ai.agent.name': 'Reference Agent',
      });
    expect(conventions(tracing.one('Resume').attributes)).toEqual({
      'a2a.task.id': TASK,
      'a2a.task.state': 'TASK_STATE_WORKING',
      'a2a.method.name': 'ResumeTask',
      'gen_ai.conversation.id': CTX,
      'gen_ai.agent.name': 'Reference Agent',
    });
    // Still open when the recording ends: not lost (a stop is no evidence), a PauseOpenAtStop span
    // with no entry, so no method and no state shown.
    expect(tracing.byName('LostPause')).toEqual([]);
    expect(conventions(tracing.one('PauseOpenAtStop').attributes)).toEqual({
      'a2a.task.id': OTHER,
      'gen_ai.conversation.id': CTX,
      'gen_ai.agent.name': 'Reference Agent',
    });
    expect(tracing.problems).toEqual([]);
  });

  it('names them on Interruption and Continuation spans', async () => {
    const tracing = await traced(asked(), 'Reference Agent');
    expect(conventions(tracing.one('Interruption').attributes)).toEqual({
      'a2a.task.id': TASK,
      'a2a.task.state': 'TASK_STATE_INPUT_REQUIRED',
      'a2a.method.name': 'SendMessage',
      'gen_ai.conversation.id': CTX,
      'gen_ai.agent.name': 'Reference Agent',
    });
    expect(conventions(tracing.one('Continuation').attributes)).toEqual({
      'a2a.task.id': TASK,
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'a2a.method.name': 'SendMessage',
      'gen_ai.conversation.id': CTX,
      'gen_ai.agent.name': 'Reference Agent',
    });
  });

  it('takes the method from the exchange’s request, never from a control call, until the exchange ends', () => {
    const e = new Entries();
    const methods = new EntryMethods();
    expect(methods.methodOf(e.request('s1', 'SendStreamingMessage', userMessage('work:5')))).toBe(
      'SendStreamingMessage',
    );
    expect(methods.methodOf(e.sseHead('s1'))).toBe('SendStreamingMessage');
    expect(methods.methodOf(e.event('s1', working()))).toBe('SendStreamingMessage');
    expect(methods.methodOf(e.end('s1'))).toBe('SendStreamingMessage');
    expect(methods.methodOf(e.event('s1', working()))).toBeUndefined();
    expect(methods.methodOf(e.control('c1', 'FireEvent', { name: 'go' }))).toBeUndefined();
    expect(methods.methodOf(e.result('c1', {}))).toBeUndefined();
    expect(methods.methodOf(e.request('x1', 'NoSuchMethod', {}))).toBeUndefined();
    expect(methods.methodOf(e.raw({ kind: 'request' }))).toBeUndefined();
  });

  it('leaves the agent out when the recording holds no agent card', async () => {
    const tracing = await traced(asked());
    expect(tracing.one('Interruption').attributes['gen_ai.agent.name']).toBeUndefined();
    expect(agentNameOf(undefined)).toBeUndefined();
    expect(agentNameOf({ name: '' })).toBeUndefined();
    expect(agentNameOf(['x'])).toBeUndefined();
    expect(agentNameOf({ name: 'Reference Agent', version: '1' })).toBe('Reference Agent');
  });
});
