/**
 * Interruption and Continuation spans (docs/design.md §7, §14.9) through the observation pipeline and
 * the bridge, as `record` and `run` export them: the Interruption span carries the id its
 * InterruptionReceipt names and that receipt's hash, the Continuation span is a root linked to it
 * carrying its ContinuationReceipt's id, hash, cause, principal and input hash.
 */
import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/canonical/canonical-json.js';
import { ObservationPipeline, type ReceiptSink } from '../../src/observe/pipeline.js';
import type { ContinuationDraft, InterruptionDraft } from '../../src/receipts/types.js';
import { CTX, Entries, RECORDING_ID, TASK, userMessage } from '../observe/entries.js';
import { memoryTracing } from './memory-tracing.js';

const INTERRUPTION_HASH = `sha256:${'1'.repeat(64)}`;
const CONTINUATION_HASH = `sha256:${'2'.repeat(64)}`;

/** A sink keeping the drafts and answering fixed hashes. */
function keepingSink(): { sink: ReceiptSink; interruptions: InterruptionDraft[]; continuations: ContinuationDraft[] } {
  const interruptions: InterruptionDraft[] = [];
  const continuations: ContinuationDraft[] = [];
  const sink: ReceiptSink = {
    appendSuspension: async () => ({ hash: `sha256:${'3'.repeat(64)}` }),
    appendResumption: async () => ({ hash: `sha256:${'4'.repeat(64)}` }),
    appendInterruption: async (draft) => {
      interruptions.push(draft);
      return { hash: INTERRUPTION_HASH };
    },
    appendContinuation: async (draft) => {
      continuations.push(draft);
      return { hash: CONTINUATION_HASH };
    },
  };
  return { sink, interruptions, continuations };
}

/** A task asks for input; alice answers it with the task's id and it completes. */
function askedAndAnswered(): Entries {
  const e = new Entries();
  e.request('m0', 'SendMessage', userMessage('deploy'), { principal: 'bob' });
  e.result('m0', {
    task: {
      id: TASK,
      contextId: CTX,
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: { messageId: 'a1', role: 'ROLE_AGENT', parts: [{ text: 'approve?' }] },
      },
    },
  });
  e.request('m1', 'SendMessage', userMessage('yes', TASK), { principal: 'alice' });
  e.result('m1', { task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } } });
  return e;
}

async function traced(e: Entries) {
  const tracing = memoryTracing();
  const receipts = keepingSink();
  const pipeline = new ObservationPipeline({
    recordingId: RECORDING_ID,
    receipts: receipts.sink,
    spans: tracing.bridge,
  });
  for (const entry of e.list) void pipeline.push(entry);
  await pipeline.finish(e.nextAt());
  return { tracing, ...receipts };
}

describe('Interruption and Continuation spans', () => {
  it('gives the interruption a span with its receipt’s ids and hash, a child of the task span', async () => {
    const { tracing, interruptions } = await traced(askedAndAnswered());
    const draft = interruptions[0];
    const span = tracing.one('Interruption');
    expect(span.spanContext()).toMatchObject({ traceId: draft?.span.traceId, spanId: draft?.span.spanId });
    expect(span.parentSpanContext?.spanId).toBe(tracing.one('Task').spanContext().spanId);
    expect(span.attributes).toMatchObject({
      'a2a.task.id': TASK,
      'a2a.task.state': 'TASK_STATE_INPUT_REQUIRED',
      'gen_ai.conversation.id': CTX,
      'a2a.interruption.prompt_hash': hashCanonical([{ text: 'approve?' }]),
      'a2a.receipt.hash': INTERRUPTION_HASH,
      'a2a_replay.rule': 'not-interrupted/input-required',
    });
    expect(tracing.problems).toEqual([]);
  });

  it('gives the continuation a root span linked to the interruption, saying who continued it with what', async () => {
    const { tracing, interruptions, continuations } = await traced(askedAndAnswered());
    const draft = continuations[0];
    const span = tracing.one('Continuation');
    expect(span.spanContext()).toMatchObject({ traceId: draft?.span.traceId, spanId: draft?.span.spanId });
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.links.map((l) => [l.context.spanId, l.attributes?.['a2a.link.kind']])).toEqual([
      [interruptions[0]?.span.spanId, 'interruption'],
    ]);
    expect(draft?.interruptionSpan).toEqual(interruptions[0]?.span);
    expect(span.attributes).toMatchObject({
      'a2a.task.id': TASK,
      'a2a.continuation.cause': 'message',
      'a2a.principal': 'alice',
      'a2a.continuation.input_hash': hashCanonical([{ text: 'yes' }]),
      'a2a.link.interruption.span_id': interruptions[0]?.span.spanId,
      'a2a.receipt.hash': CONTINUATION_HASH,
    });
    // From the answer (entry 3) to the entry that showed the task moving on (entry 4).
    expect(span.startTime[0]).toBeLessThan(span.endTime[0]);
    expect(tracing.problems).toEqual([]);
  });
});
