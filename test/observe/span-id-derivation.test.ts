/**
 * Span ids are derived when read (docs/design.md §7): a task that never pauses, observed without a
 * span sink, costs no SHA-256 for its span; a paused one still names the same ids as before.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PauseObserver } from '../../src/observe/pause-observer.js';
import type * as spanEvents from '../../src/tracing/span-events.js';
import { deriveSpanId, deriveTraceId } from '../../src/tracing/span-events.js';
import { Entries, RECORDING_ID, TASK, statusOf, task, userMessage } from './entries.js';

const derived = vi.hoisted(() => ({ count: 0 }));

vi.mock('../../src/tracing/span-events.js', async (importOriginal) => {
  const actual = await importOriginal<typeof spanEvents>();
  return {
    ...actual,
    deriveTraceId: (recordingId: string, name: string): string => {
      derived.count += 1;
      return actual.deriveTraceId(recordingId, name);
    },
    deriveSpanId: (recordingId: string, name: string): string => {
      derived.count += 1;
      return actual.deriveSpanId(recordingId, name);
    },
  };
});

/** A stream that creates a task and runs it to COMPLETED, never paused. */
function completedStream(): Entries {
  const e = new Entries();
  e.request('x1', 'SendStreamingMessage', { message: userMessage('work:0') });
  e.sseHead('x1');
  e.event('x1', task('TASK_STATE_SUBMITTED'));
  e.event('x1', statusOf('TASK_STATE_WORKING'));
  e.event('x1', statusOf('TASK_STATE_COMPLETED'));
  e.end('x1');
  return e;
}

describe('span id derivation', () => {
  beforeEach(() => {
    derived.count = 0;
  });

  it('derives no span id for a task that is never paused when nothing reads its span', () => {
    const observer = new PauseObserver({ recordingId: RECORDING_ID });
    const out = completedStream().list.flatMap((entry) => observer.observe(entry));
    expect(out.some((o) => o.type === 'span' && o.event.type === 'task.start')).toBe(true);
    expect(derived.count).toBe(0);
  });

  it('gives the task span the ids derived from the recording id and its key once read', () => {
    const observer = new PauseObserver({ recordingId: RECORDING_ID });
    const out = completedStream().list.flatMap((entry) => observer.observe(entry));
    const start = out.find((o) => o.type === 'span' && o.event.type === 'task.start');
    if (start?.type !== 'span' || start.event.type !== 'task.start') throw new Error('no task.start');
    const key = `task:${TASK}`;
    const expected = { traceId: deriveTraceId(RECORDING_ID, key), spanId: deriveSpanId(RECORDING_ID, key) };
    derived.count = 0;
    // Each id is derived once, when first read, however often it is read.
    expect(start.event.span.traceId).toBe(expected.traceId);
    expect(start.event.span.traceId).toBe(expected.traceId);
    expect(derived.count).toBe(1);
    expect(JSON.parse(JSON.stringify(start.event.span))).toEqual(expected);
    expect(derived.count).toBe(2);
  });
});
