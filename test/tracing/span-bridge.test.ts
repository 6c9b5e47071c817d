import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import type { SpanRef } from '../../src/receipts/types.js';
import { type SpanAttributes, type SpanEvent, parseTraceparent } from '../../src/tracing/span-events.js';
import {
  ATTR_LINK_KIND,
  ATTR_LINK_PIPELINE_SPAN_ID,
  ATTR_LINK_PIPELINE_TRACE_ID,
  ATTR_LINK_SUSPENSION_SPAN_ID,
  ATTR_LINK_SUSPENSION_TRACE_ID,
  ATTR_LOST_REASON,
  ATTR_PAUSE_INITIATED_BY,
  ATTR_PAUSE_OPEN_AT_STOP,
  ATTR_RULE,
  ATTR_PAUSE_REASON,
  ATTR_PAUSE_VIA,
  ATTR_RECEIPT_HASH,
  ATTR_RESUME_CAUSE,
  ATTR_RESUME_OUTCOME,
  ATTR_TASK_ID,
  ATTR_GEN_AI_CONVERSATION_ID,
} from '../../src/tracing/attributes.js';
import { isoToHrTime } from '../../src/tracing/span-bridge.js';
import { type MemoryTracing, at, hr, memoryTracing, refFor } from './memory-tracing.js';
import { TASK, feed, pauseStory, suspensionIn, taskRef } from './stories.js';

let tracing: MemoryTracing;
afterEach(async () => {
  await tracing.provider.shutdown();
});

describe('SpanBridge', () => {
  it('renders a caller pause as a Suspension under the task span and a Resume root linked to both', () => {
    tracing = memoryTracing();
    feed(
      tracing.bridge,
      pauseStory({
        initiatedBy: 'PAUSE_INITIATOR_CLIENT',
        via: 'PauseTask',
        cause: 'explicit_resume',
        outcome: 'resumed',
        pipeline: taskRef,
      }),
      { 'suspension:5': 'sha256:aaaa', 'resume:9': 'sha256:bbbb' },
    );
    expect(tracing.problems).toEqual([]);
    const suspension = tracing.one('Suspension');
    const expectedSuspension = suspensionIn(taskRef);
    expect(suspension.spanContext()).toMatchObject(expectedSuspension);
    expect(suspension.parentSpanContext).toMatchObject({ traceId: taskRef.traceId, spanId: taskRef.spanId });
    expect(suspension.startTime).toEqual(hr(5));
    expect(suspension.endTime).toEqual(hr(6));
    expect(suspension.attributes).toEqual({
      [ATTR_PAUSE_INITIATED_BY]: 'PAUSE_INITIATOR_CLIENT',
      [ATTR_PAUSE_VIA]: 'PauseTask',
      [ATTR_TASK_ID]: TASK,
      [ATTR_PAUSE_REASON]: 'needs approval',
      [ATTR_RECEIPT_HASH]: 'sha256:aaaa',
    });
    expect(suspension.status.code).toBe(SpanStatusCode.UNSET);

    const resume = tracing.one('Resume');
    expect(resume.spanContext()).toMatchObject(refFor('resume', 9, 'resume:9'));
    expect(resume.parentSpanContext).toBeUndefined();
    expect([resume.startTime, resume.endTime]).toEqual([hr(60), hr(61)]);
    expect(
      resume.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId, attributes: l.attributes })),
    ).toEqual([
      { ...expectedSuspension, attributes: { [ATTR_LINK_KIND]: 'suspension' } },
      { ...taskRef, attributes: { [ATTR_LINK_KIND]: 'pipeline' } },
    ]);
    expect(resume.attributes).toEqual({
      [ATTR_LINK_PIPELINE_SPAN_ID]: taskRef.spanId,
      [ATTR_LINK_PIPELINE_TRACE_ID]: taskRef.traceId,
      [ATTR_LINK_SUSPENSION_SPAN_ID]: expectedSuspension.spanId,
      [ATTR_LINK_SUSPENSION_TRACE_ID]: expectedSuspension.traceId,
      [ATTR_RESUME_CAUSE]: 'explicit_resume',
      [ATTR_TASK_ID]: TASK,
      [ATTR_RESUME_OUTCOME]: 'resumed',
      [ATTR_RECEIPT_HASH]: 'sha256:bbbb',
    });
    const task = tracing.one('Task');
    expect(task.spanContext()).toMatchObject(taskRef);
    expect([task.startTime, task.endTime]).toEqual([hr(1), hr(62)]);
    expect(task.attributes).toEqual({ [ATTR_GEN_AI_CONVERSATION_ID]: 'ctx-1', [ATTR_TASK_ID]: TASK });
    expect(tracing.byName('LostPause')).toEqual([]);
  });

  it('renders an agent self-park with a single suspension link when no pipeline span was active', () => {
    tracing = memoryTracing();
    feed(
      tracing.bridge,
      pauseStory({
        initiatedBy: 'PAUSE_INITIATOR_AGENT',
        via: 'statusUpdate',
        cause: 'external_event',
        outcome: 'resumed',
        pipeline: null,
      }),
    );
    const resume = tracing.one('Resume');
    expect(resume.links.map((l) => [l.context.spanId, l.attributes?.[ATTR_LINK_KIND]])).toEqual([
      [suspensionIn(taskRef).spanId, 'suspension'],
    ]);
    expect(Object.keys(resume.attributes).filter((k) => k.startsWith('a2a.link.pipeline'))).toEqual([]);
    expect(tracing.one('Suspension').attributes[ATTR_PAUSE_INITIATED_BY]).toBe('PAUSE_INITIATOR_AGENT');
  });

  it('renders a timeout resume with cause timeout and no error', () => {
    tracing = memoryTracing();
    feed(
      tracing.bridge,
      pauseStory({
        initiatedBy: 'PAUSE_INITIATOR_AGENT',
        via: 'AwaitTaskResumption',
        cause: 'timeout',
        outcome: 'resumed',
        pipeline: null,
      }),
    );
    const resume = tracing.one('Resume');
    expect(resume.attributes[ATTR_RESUME_CAUSE]).toBe('timeout');
    expect(resume.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('ends the Resume span of a cancel while paused at the closing state, with the error the event names', () => {
    tracing = memoryTracing();
    feed(
      tracing.bridge,
      pauseStory({
        initiatedBy: 'PAUSE_INITIATOR_CLIENT',
        via: 'PauseTask',
        cause: 'canceled',
        outcome: 'canceled',
        pipeline: taskRef,
        resumeError: 'task canceled while paused',
      }),
    );
    const resume = tracing.one('Resume');
    expect(resume.attributes).toMatchObject({ [ATTR_RESUME_CAUSE]: 'canceled', [ATTR_RESUME_OUTCOME]: 'canceled' });
    expect(resume.status).toEqual({ code: SpanStatusCode.ERROR, message: 'task canceled while paused' });
    expect(resume.endTime).toEqual(hr(61));
  });

  it("takes the Suspension's parent and trace from the caller's traceparent header", () => {
    tracing = memoryTracing();
    const caller = parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(caller).toBeDefined();
    feed(
      tracing.bridge,
      pauseStory({
        initiatedBy: 'PAUSE_INITIATOR_CLIENT',
        via: 'PauseTask',
        cause: 'explicit_resume',
        outcome: 'resumed',
        parent: caller!,
        pipeline: caller!,
      }),
    );
    const suspension = tracing.one('Suspension');
    expect(suspension.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(suspension.spanContext().spanId).toBe(refFor('suspension', 5).spanId);
    expect(suspension.parentSpanContext).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      isRemote: true,
    });
    expect(tracing.one('Resume').links[0]?.context.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(tracing.problems).toEqual([]);
  });

  it('renders a lost event as a LostPause ERROR span under its Suspension, from PAUSED to detection', () => {
    tracing = memoryTracing();
    const suspension = suspensionIn(taskRef);
    const events: SpanEvent[] = pauseStory({
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      via: 'PauseTask',
      cause: 'x',
      outcome: 'x',
      pipeline: null,
    }).slice(0, 3);
    const lostRef: SpanRef = { traceId: suspension.traceId, spanId: refFor('lost', 5).spanId };
    events.push({
      type: 'lost',
      key: 'lost:5',
      suspensionKey: 'suspension:5',
      taskId: TASK,
      at: at(300),
      span: lostRef,
      link: suspension,
      reason: 'paused_until_passed',
      attributes: { [ATTR_PAUSE_INITIATED_BY]: 'PAUSE_INITIATOR_CLIENT' },
    });
    feed(tracing.bridge, events);
    const lost = tracing.one('LostPause');
    expect(lost.spanContext()).toMatchObject(lostRef);
    expect(lost.parentSpanContext?.spanId).toBe(suspension.spanId);
    expect(lost.status).toEqual({ code: SpanStatusCode.ERROR, message: 'pause lost: paused_until_passed' });
    expect([lost.startTime, lost.endTime]).toEqual([hr(6), hr(300)]);
    expect(lost.links.map((l) => [l.context.traceId, l.context.spanId, l.attributes])).toEqual([
      [suspension.traceId, suspension.spanId, { [ATTR_LINK_KIND]: 'suspension' }],
    ]);
    expect(lost.attributes).toEqual({
      [ATTR_LINK_SUSPENSION_SPAN_ID]: suspension.spanId,
      [ATTR_LINK_SUSPENSION_TRACE_ID]: suspension.traceId,
      [ATTR_LOST_REASON]: 'paused_until_passed',
      [ATTR_PAUSE_INITIATED_BY]: 'PAUSE_INITIATOR_CLIENT',
      [ATTR_TASK_ID]: TASK,
    });
  });

  for (const reason of ['recording_ended', 'stream_ended'] as const) {
    it(`renders a pause open when the recorder stopped (${reason}) under its Suspension, not as a LostPause`, () => {
      tracing = memoryTracing();
      const suspension = suspensionIn(taskRef);
      const events: SpanEvent[] = pauseStory({
        initiatedBy: 'PAUSE_INITIATOR_CLIENT',
        via: 'PauseTask',
        cause: 'x',
        outcome: 'x',
        pipeline: null,
      }).slice(0, 3);
      const lostRef: SpanRef = { traceId: suspension.traceId, spanId: refFor('lost', 5).spanId };
      events.push({
        type: 'lost',
        key: 'lost:5',
        suspensionKey: 'suspension:5',
        taskId: TASK,
        at: at(300),
        span: lostRef,
        link: suspension,
        reason,
        attributes: { [ATTR_LOST_REASON]: reason, [ATTR_RULE]: 'open/end-recording-ended' },
      });
      feed(tracing.bridge, events);
      expect(tracing.byName('LostPause')).toEqual([]);
      const stop = tracing.one('PauseOpenAtStop');
      expect(stop.spanContext()).toMatchObject(lostRef);
      expect(stop.parentSpanContext?.spanId).toBe(suspension.spanId);
      expect(stop.status).toEqual({ code: SpanStatusCode.UNSET });
      expect([stop.startTime, stop.endTime]).toEqual([hr(6), hr(300)]);
      expect(stop.attributes).toEqual({
        [ATTR_LINK_SUSPENSION_SPAN_ID]: suspension.spanId,
        [ATTR_LINK_SUSPENSION_TRACE_ID]: suspension.traceId,
        [ATTR_PAUSE_OPEN_AT_STOP]: true,
        [ATTR_RULE]: 'open/end-recording-ended',
        [ATTR_TASK_ID]: TASK,
      });
      expect(tracing.problems).toEqual([]);
    });
  }

  it('starts a LostPause at PAUSED even after a rejected resume attempt', () => {
    tracing = memoryTracing();
    const suspension = suspensionIn(taskRef);
    const events: SpanEvent[] = pauseStory({
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      via: 'PauseTask',
      cause: 'x',
      outcome: 'x',
      pipeline: null,
    }).slice(0, 3);
    events.push(
      {
        type: 'resume.start',
        key: 'resume:9',
        suspensionKey: 'suspension:5',
        taskId: TASK,
        at: at(60),
        span: refFor('resume', 9, 'resume:9'),
        links: { suspension, pipeline: null },
        attributes: {},
      },
      {
        type: 'resume.end',
        key: 'resume:9',
        at: at(61),
        attributes: { [ATTR_RESUME_OUTCOME]: 'rejected' },
        error: 'resume rejected (-32011)',
      },
      {
        type: 'lost',
        key: 'lost:5',
        suspensionKey: 'suspension:5',
        taskId: TASK,
        at: at(300),
        span: refFor('lost', 5, 'lost:5'),
        link: suspension,
        reason: 'task_gone',
        attributes: {},
      },
    );
    feed(tracing.bridge, events);
    expect(tracing.one('Resume').status).toEqual({ code: SpanStatusCode.ERROR, message: 'resume rejected (-32011)' });
    expect([tracing.one('LostPause').startTime, tracing.one('LostPause').endTime]).toEqual([hr(6), hr(300)]);
  });

  it('renders a lost event in another trace as a root that still links to its Suspension', () => {
    tracing = memoryTracing();
    const suspension = suspensionIn(taskRef);
    tracing.bridge.handle({
      type: 'lost',
      key: 'lost:5',
      suspensionKey: 'suspension:5',
      taskId: TASK,
      at: at(300),
      span: refFor('lost', 5, 'lost:5'),
      link: suspension,
      reason: 'task_gone',
      attributes: {},
    });
    const lost = tracing.one('LostPause');
    expect(lost.parentSpanContext).toBeUndefined();
    expect(lost.spanContext()).toMatchObject(refFor('lost', 5, 'lost:5'));
    expect([lost.startTime, lost.endTime]).toEqual([hr(300), hr(300)]);
    expect(lost.links[0]?.context.spanId).toBe(suspension.spanId);
  });

  it('ignores an end for a span it never started and says so once', () => {
    tracing = memoryTracing();
    const end: SpanEvent = { type: 'resume.end', key: 'resume:404', at: at(1), attributes: {} };
    expect(() => {
      tracing.bridge.handle(end);
      tracing.bridge.handle(end);
    }).not.toThrow();
    expect(tracing.problems).toEqual([
      'tracing: an end for span event key resume:404, which was never started, is ignored',
    ]);
    expect(tracing.spans()).toEqual([]);
  });

  it('reports a tracer that does not use its id generator', () => {
    tracing = memoryTracing({ honourIds: false });
    tracing.bridge.handle({
      type: 'task.start',
      key: 'task:1',
      taskId: TASK,
      at: at(1),
      span: taskRef,
      attributes: {},
    });
    expect(tracing.problems).toHaveLength(1);
    expect(tracing.problems[0]).toContain('EventIdGenerator');
  });

  it('closes spans still open at the latest instant any event carried', () => {
    tracing = memoryTracing();
    const attributes: SpanAttributes = {};
    tracing.bridge.handle({ type: 'task.start', key: 'task:1', taskId: TASK, at: at(1), span: taskRef, attributes });
    tracing.bridge.handle({
      type: 'suspension.start',
      key: 'suspension:5',
      taskId: TASK,
      at: at(7),
      span: suspensionIn(taskRef),
      parent: taskRef,
      attributes,
    });
    expect(tracing.spans()).toEqual([]);
    tracing.bridge.close();
    expect(tracing.bridge.openSpans).toBe(0);
    expect(tracing.spans().map((s) => [s.name, s.endTime])).toEqual([
      ['Task', hr(7)],
      ['Suspension', hr(7)],
    ]);
  });

  it('reads ISO instants to the nanosecond and rejects unreadable ones', () => {
    expect(isoToHrTime('2025-01-01T00:00:01.123456789Z')).toEqual([1735689601, 123456789]);
    expect(isoToHrTime('2025-01-01T00:00:01Z')).toEqual([1735689601, 0]);
    expect(isoToHrTime('yesterday')).toBeUndefined();
  });
});
