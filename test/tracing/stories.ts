/**
 * Hand-written span-event scenarios: the events the PauseObserver emits for common pause stories.
 */
import type { SpanRef } from '../../src/receipts/types.js';
import type { SpanEvent, SpanSink } from '../../src/tracing/span-events.js';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_PAUSE_INITIATED_BY,
  ATTR_PAUSE_REASON,
  ATTR_PAUSE_VIA,
  ATTR_RESUME_CAUSE,
  ATTR_RESUME_OUTCOME,
} from '../../src/tracing/attributes.js';
import { at, refFor } from './memory-tracing.js';

export const TASK = 'task-1';
export const taskRef = refFor('task', 1);
/** The Suspension span of the stories: in its parent's trace. */
export const suspensionIn = (parent: SpanRef): SpanRef => ({
  traceId: parent.traceId,
  spanId: refFor('suspension', 5).spanId,
});

export interface PauseStory {
  initiatedBy: string;
  via: string;
  cause: string;
  outcome: string;
  /** The caller's span, when the PauseTask request carried a traceparent. */
  parent?: SpanRef;
  /** The span active when the pause began; null when the agent parked itself. */
  pipeline: SpanRef | null;
  resumeError?: string;
}

/** task opened at 1 s, pause requested at 5 s, PAUSED at 6 s, resume at 60 s, closing state at 61 s. */
export function pauseStory(story: PauseStory): SpanEvent[] {
  const suspensionRef = suspensionIn(story.parent ?? taskRef);
  return [
    {
      type: 'task.start',
      key: 'task:1',
      taskId: TASK,
      at: at(1),
      span: taskRef,
      attributes: { [ATTR_GEN_AI_CONVERSATION_ID]: 'ctx-1' },
    },
    {
      type: 'suspension.start',
      key: 'suspension:5',
      taskId: TASK,
      at: at(5),
      span: suspensionRef,
      parent: story.parent ?? taskRef,
      attributes: { [ATTR_PAUSE_INITIATED_BY]: story.initiatedBy, [ATTR_PAUSE_VIA]: story.via },
    },
    { type: 'suspension.end', key: 'suspension:5', at: at(6), attributes: { [ATTR_PAUSE_REASON]: 'needs approval' } },
    {
      type: 'resume.start',
      key: 'resume:9',
      suspensionKey: 'suspension:5',
      taskId: TASK,
      at: at(60),
      span: refFor('resume', 9, 'resume:9'),
      links: { suspension: suspensionRef, pipeline: story.pipeline },
      attributes: { [ATTR_RESUME_CAUSE]: story.cause },
    },
    {
      type: 'resume.end',
      key: 'resume:9',
      at: at(61),
      attributes: { [ATTR_RESUME_OUTCOME]: story.outcome },
      ...(story.resumeError === undefined ? {} : { error: story.resumeError }),
    },
    { type: 'task.end', key: 'task:1', at: at(62), attributes: {} },
  ];
}

export function feed(sink: SpanSink, events: SpanEvent[], hashes: Record<string, string> = {}): void {
  for (const event of events) {
    const hash = 'key' in event ? hashes[event.key] : undefined;
    sink.handle(event, hash === undefined ? undefined : { receiptHash: hash });
  }
}

/** The task of {@link lostStory}: another task in the same recording, entries from 101 on. */
export const LOST_TASK = 'task-2';
export const lostTaskRef = refFor('task', 101);
export const lostSuspensionRef: SpanRef = { traceId: lostTaskRef.traceId, spanId: refFor('suspension', 105).spanId };

/** A client pause on task-2 whose PAUSED was seen at 106 s, declared lost at 300 s for `reason`. */
export function lostStory(
  reason: 'stream_ended' | 'recording_ended' | 'paused_until_passed' | 'task_gone' | 'pause_ignored',
): SpanEvent[] {
  return [
    { type: 'task.start', key: 'task:101', taskId: LOST_TASK, at: at(101), span: lostTaskRef, attributes: {} },
    {
      type: 'suspension.start',
      key: 'suspension:105',
      taskId: LOST_TASK,
      at: at(105),
      span: lostSuspensionRef,
      parent: lostTaskRef,
      attributes: { [ATTR_PAUSE_INITIATED_BY]: 'PAUSE_INITIATOR_CLIENT', [ATTR_PAUSE_VIA]: 'PauseTask' },
    },
    { type: 'suspension.end', key: 'suspension:105', at: at(106), attributes: {} },
    {
      type: 'lost',
      key: 'lost:105',
      suspensionKey: 'suspension:105',
      taskId: LOST_TASK,
      at: at(300),
      span: { traceId: lostTaskRef.traceId, spanId: refFor('lost', 105).spanId },
      link: lostSuspensionRef,
      reason,
      attributes: { [ATTR_PAUSE_INITIATED_BY]: 'PAUSE_INITIATOR_CLIENT' },
    },
    { type: 'task.end', key: 'task:101', at: at(300), attributes: {} },
  ];
}
