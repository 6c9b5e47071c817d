import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { setupTracing } from '../../src/tracing/tracing-setup.js';
import type { SuspensionSpanIds } from '../../src/observe/observer-spans.js';
import { PauseObserver } from '../../src/observe/pause-observer.js';
import { type LostPauseReason, isStopVerdict } from '../../src/observe/lost-pause-reasons.js';
import {
  ATTR_LINK_KIND,
  ATTR_LOST_REASON,
  ATTR_PAUSE_OPEN_AT_STOP,
  ATTR_RULE,
  ATTR_PAUSE_INITIATED_BY,
  ATTR_RECEIPT_HASH,
  ATTR_RESUME_CAUSE,
  ATTR_RESUME_OUTCOME,
  ATTR_TASK_ID,
} from '../../src/tracing/attributes.js';
import { LostPauseCollector } from '../../src/observe/lost-pauses.js';
import { CONTEXT_ID, EntryScript, RECORDING, TASK_ID } from './entries.js';
import { type MemoryTracing, at, hr, memoryTracing } from './memory-tracing.js';

let tracing: MemoryTracing;
afterEach(async () => {
  await tracing.provider.shutdown();
});

/** Runs the real PauseObserver over the entries and renders its span events; returns its lost listing too. */
function observe(
  script: EntryScript,
  finishAt: number,
  suspensionSpans: SuspensionSpanIds = 'pause',
): LostPauseCollector {
  tracing = memoryTracing();
  const observer = new PauseObserver({ recordingId: RECORDING.id, suspensionSpans });
  const collector = new LostPauseCollector();
  const outputs = [...script.entries.flatMap((entry) => observer.observe(entry)), ...observer.finish(at(finishAt))];
  for (const output of outputs) {
    if (output.type !== 'span') continue;
    const hash =
      output.event.type === 'suspension.end' || output.event.type === 'resume.end'
        ? `sha256:${output.event.key}`
        : undefined;
    tracing.bridge.handle(output.event, hash === undefined ? undefined : { receiptHash: hash });
    collector.handle(output.event);
  }
  expect(tracing.problems).toEqual([]);
  expect(tracing.bridge.openSpans).toBe(0);
  return collector;
}

function pausedOnStream(): EntryScript {
  return new EntryScript().openStream(0).clientPause(5, { stream: 'x-stream' });
}

const LOST_RULES: { reason: LostPauseReason; script: () => EntryScript; finishAt: number }[] = [
  { reason: 'stream_ended', script: () => pausedOnStream().end(20, 'x-stream'), finishAt: 30 },
  { reason: 'recording_ended', script: pausedOnStream, finishAt: 30 },
  {
    reason: 'paused_until_passed',
    script: () => new EntryScript().openStream(0).clientPause(5, { stream: 'x-stream', pausedUntil: at(100) }),
    finishAt: 200,
  },
  {
    reason: 'task_gone',
    script: () =>
      pausedOnStream()
        .request(40, 'x-get', 'GetTask', { id: TASK_ID })
        .error(41, 'x-get', -32001, 'task not found')
        .end(41, 'x-get'),
    finishAt: 50,
  },
  { reason: 'pause_ignored', script: () => pausedOnStream().artifact(12, 'x-stream'), finishAt: 30 },
];

describe('observer span events rendered as OTel spans', () => {
  it('renders a resumed pause as Suspension and Resume and no LostPause (span ids from the recording)', () => {
    const collector = observe(
      pausedOnStream()
        .resume(60, 'x-stream')
        .status(70, 'x-stream', { state: 'TASK_STATE_COMPLETED', timestamp: at(70) })
        .end(70, 'x-stream'),
      80,
      'recording',
    );
    expect(tracing.byName('LostPause')).toEqual([]);
    expect(collector.lost).toEqual([]);
    const suspension = tracing.one('Suspension');
    const resume = tracing.one('Resume');
    const task = tracing.one('Task');
    expect(suspension.parentSpanContext?.spanId).toBe(task.spanContext().spanId);
    expect(suspension.spanContext().traceId).toBe(task.spanContext().traceId);
    expect([suspension.startTime, suspension.endTime]).toEqual([hr(5), hr(6)]);
    expect(suspension.attributes).toMatchObject({
      [ATTR_TASK_ID]: TASK_ID,
      [ATTR_PAUSE_INITIATED_BY]: 'PAUSE_INITIATOR_CLIENT',
    });
    expect(suspension.attributes[ATTR_RECEIPT_HASH]).toMatch(/^sha256:suspension:/);
    expect(resume.parentSpanContext).toBeUndefined();
    expect([resume.startTime, resume.endTime]).toEqual([hr(60), hr(61)]);
    expect(resume.links[0]).toMatchObject({
      context: { traceId: suspension.spanContext().traceId, spanId: suspension.spanContext().spanId },
      attributes: { [ATTR_LINK_KIND]: 'suspension' },
    });
    expect(resume.attributes[ATTR_RECEIPT_HASH]).toMatch(/^sha256:resume:/);
    expect(task.attributes['gen_ai.conversation.id']).toBe(CONTEXT_ID);
  });

  it('renders a cancel while paused as a Resume ending at CANCELED, and no LostPause', () => {
    observe(
      pausedOnStream()
        .request(30, 'x-cancel', 'CancelTask', { id: TASK_ID })
        .status(31, 'x-stream', { state: 'TASK_STATE_CANCELED', timestamp: at(31) })
        .result(31, 'x-cancel', {
          id: TASK_ID,
          contextId: CONTEXT_ID,
          status: { state: 'TASK_STATE_CANCELED', timestamp: at(31) },
        })
        .end(31, 'x-cancel')
        .end(31, 'x-stream'),
      40,
    );
    expect(tracing.byName('LostPause')).toEqual([]);
    const resume = tracing.one('Resume');
    expect([resume.startTime, resume.endTime]).toEqual([hr(30), hr(31)]);
    expect(resume.attributes).toMatchObject({ [ATTR_RESUME_CAUSE]: 'canceled', [ATTR_RESUME_OUTCOME]: 'canceled' });
    expect(resume.links[0]?.context.spanId).toBe(tracing.one('Suspension').spanContext().spanId);
  });

  it("parents the Suspension on the PauseTask caller's traceparent (Suspension span ids from the recording)", () => {
    observe(
      new EntryScript()
        .openStream(0)
        .clientPause(5, { stream: 'x-stream', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })
        .resume(60, 'x-stream'),
      80,
      'recording',
    );
    const suspension = tracing.one('Suspension');
    expect(suspension.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(suspension.parentSpanContext).toMatchObject({ spanId: '00f067aa0ba902b7', isRemote: true });
  });

  it("renders a Suspension with ids from the pause as a root of its own trace linked to the caller's span", () => {
    observe(
      new EntryScript()
        .openStream(0)
        .clientPause(5, { stream: 'x-stream', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })
        .resume(60, 'x-stream'),
      80,
    );
    const suspension = tracing.one('Suspension');
    const resume = tracing.one('Resume');
    expect(suspension.parentSpanContext).toBeUndefined();
    expect(suspension.spanContext().traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect([suspension.startTime, suspension.endTime]).toEqual([hr(5), hr(6)]);
    expect(suspension.links).toHaveLength(1);
    expect(suspension.links[0]?.context).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
    });
    expect(suspension.links[0]?.attributes).toEqual({ [ATTR_LINK_KIND]: 'pipeline' });
    expect(suspension.attributes).toMatchObject({
      'a2a.link.pipeline.trace_id': '4bf92f3577b34da6a3ce929d0e0e4736',
      'a2a.link.pipeline.span_id': '00f067aa0ba902b7',
    });
    expect(resume.links[0]?.context).toMatchObject({
      traceId: suspension.spanContext().traceId,
      spanId: suspension.spanContext().spanId,
    });
  });

  for (const rule of LOST_RULES) {
    const atStop = isStopVerdict(rule.reason);
    const name = atStop ? 'PauseOpenAtStop' : 'LostPause';
    it(`renders ${rule.reason} as exactly one ${atStop ? 'PauseOpenAtStop span' : 'LostPause ERROR span'}`, () => {
      const collector = observe(rule.script(), rule.finishAt);
      expect(tracing.byName(atStop ? 'LostPause' : 'PauseOpenAtStop')).toEqual([]);
      const lost = tracing.byName(name);
      expect(lost).toHaveLength(1);
      const span = lost[0]!;
      const suspension = tracing.one('Suspension');
      expect(span.status.code).toBe(atStop ? SpanStatusCode.UNSET : SpanStatusCode.ERROR);
      if (atStop) expect(span.parentSpanContext?.spanId).toBe(suspension.spanContext().spanId);
      expect(span.attributes[ATTR_LOST_REASON]).toBe(atStop ? undefined : rule.reason);
      expect(span.attributes[ATTR_PAUSE_OPEN_AT_STOP]).toBe(atStop ? true : undefined);
      expect(span.links.map((l) => l.context.spanId)).toEqual([suspension.spanContext().spanId]);
      // The listing names the rule that decided the loss, the one the span carries.
      expect(span.attributes[ATTR_RULE]).toMatch(/^[a-z-]+\/[a-z-]+$/);
      expect(collector.lost).toEqual([
        {
          taskId: TASK_ID,
          initiatedBy: 'PAUSE_INITIATOR_CLIENT',
          reason: rule.reason,
          rule: span.attributes[ATTR_RULE],
          since: at(6),
          detectedAt: expect.any(String) as string,
          pauseReason: 'needs approval',
          span: { traceId: suspension.spanContext().traceId, spanId: suspension.spanContext().spanId },
        },
      ]);
    });
  }

  it('writes the same trace file, byte for byte, each time the same recording is observed', async () => {
    tracing = memoryTracing();
    const dir = mkdtempSync(join(tmpdir(), 'a2a-observed-'));
    try {
      const script = pausedOnStream()
        .resume(60, 'x-stream')
        .clientPause(90, { stream: 'x-stream', token: 'tok-2' })
        .end(100, 'x-stream');
      const files: string[] = [];
      for (const name of ['first', 'second']) {
        const traced = setupTracing({ tracesDir: dir, name, env: {}, warn: (line) => tracing.problems.push(line) });
        const observer = new PauseObserver({ recordingId: RECORDING.id });
        for (const output of [
          ...script.entries.flatMap((entry) => observer.observe(entry)),
          ...observer.finish(at(120)),
        ]) {
          if (output.type === 'span') traced.sink.handle(output.event);
        }
        await traced.shutdown();
        files.push(readFileSync(join(dir, `${name}.otlp.json`), 'utf8'));
      }
      expect(tracing.problems).toEqual([]);
      expect(files[1]).toBe(files[0]);
      expect((files[0]?.match(/"name": "(Suspension|Resume|LostPause|PauseOpenAtStop)"/g) ?? []).sort()).toEqual([
        '"name": "PauseOpenAtStop"',
        '"name": "Resume"',
        '"name": "Suspension"',
        '"name": "Suspension"',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
