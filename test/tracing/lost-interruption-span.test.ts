/**
 * A lost interruption becomes a `LostInterruption` span (docs/design.md §7, §14.9): status ERROR,
 * its reason, rule, task, state and conversation, linked to the span of the interruption's
 * receipt; the observer's events through the bridge, as `record` and `run` export them.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { CTX, Entries, TASK, observeAll } from '../observe/entries.js';
import { memoryTracing } from './memory-tracing.js';

describe('LostInterruption spans', () => {
  it('carries the reason, the rule and the A2A attributes, linked to the interruption', () => {
    const e = new Entries();
    e.request('m0', 'SendMessage', { message: { messageId: 'm0', role: 'ROLE_USER', parts: [{ text: 'deploy' }] } });
    e.result('m0', { task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } });
    const out = observeAll(e.list);
    const tracing = memoryTracing();
    for (const o of out) if (o.type === 'span') tracing.bridge.handle(o.event);
    const span = tracing.one('LostInterruption');
    expect(span.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'interruption lost: bypassed' });
    expect(span.attributes).toMatchObject({
      'a2a.lost.reason': 'bypassed',
      'a2a_replay.rule': 'interrupted/bypassed',
      'a2a.task.id': TASK,
      'a2a.task.state': 'TASK_STATE_INPUT_REQUIRED',
      'gen_ai.conversation.id': CTX,
    });
    const interruption = out.find((o) => o.type === 'interruption');
    expect(span.links.map((l) => l.context.spanId)).toEqual([
      interruption?.type === 'interruption' ? interruption.draft.span.spanId : 'none',
    ]);
    expect(tracing.problems).toEqual([]);
  });
});
