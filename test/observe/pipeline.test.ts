import { describe, expect, it } from 'vitest';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring, ReceiptKey } from '../../src/receipts/keys.js';
import type { SpanEvent, SpanSink } from '../../src/tracing/span-events.js';
import { ObservationPipeline, type ReceiptSink } from '../../src/observe/pipeline.js';
import {
  Entries,
  RECORDING_ID,
  TASK,
  TOKEN,
  clientPause,
  artifact,
  pauseResult,
  paused,
  resumeResult,
  resumed,
  task,
  taskObject,
  userMessage,
  working,
} from './entries.js';

const RESUMED_AT = '2026-04-30T12:38:01.012Z';

function session(): Entries {
  const e = new Entries();
  e.request('s1', 'SendStreamingMessage', userMessage('work:5'));
  e.sseHead('s1');
  e.event('s1', task('TASK_STATE_SUBMITTED'));
  e.event('s1', working());
  e.request('p1', 'PauseTask', { taskId: TASK });
  e.event('s1', paused(clientPause()));
  e.result('p1', pauseResult(clientPause()));
  e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
  e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT }));
  e.result('r1', resumeResult(RESUMED_AT));
  e.request('r2', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
  e.error('r2', -32010);
  return e;
}

/** A ReceiptSink over the real in-memory chain; each append resolves a macrotask later, like a file write. */
function chainSink(order: string[] = []): { sink: ReceiptSink; lines: string[] } {
  const chain = new ReceiptChain({
    keyring: new Keyring([new ReceiptKey('k1', { hmac: Buffer.alloc(32, 7) })]),
    recording: RECORDING_ID,
    createdAt: '2026-04-30T12:00:00.000Z',
    tool: 'a2a-replay@test',
  });
  const lines: string[] = [chain.header.text];
  const later = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const sink: ReceiptSink = {
    async appendSuspension(draft) {
      await later();
      const sealed = chain.sealSuspension(draft);
      lines.push(sealed.receipt.text);
      order.push(`suspension:${draft.entries.join(',')}`);
      return { hash: sealed.receipt.hash };
    },
    async appendResumption(draft, suspensionHash) {
      await later();
      const sealed = chain.sealResumption(draft, suspensionHash);
      lines.push(sealed.receipt.text);
      order.push(`resumption:${draft.entries.join(',')}`);
      return { hash: sealed.receipt.hash };
    },
    async appendInterruption(draft) {
      await later();
      const sealed = chain.sealInterruption(draft);
      lines.push(sealed.receipt.text);
      order.push(`interruption:${draft.entries.join(',')}`);
      return { hash: sealed.receipt.hash };
    },
    async appendContinuation(draft, interruptionHash) {
      await later();
      const sealed = chain.sealContinuation(draft, interruptionHash);
      lines.push(sealed.receipt.text);
      order.push(`continuation:${draft.entries.join(',')}`);
      return { hash: sealed.receipt.hash };
    },
  };
  return { sink, lines };
}

class CollectingSpans implements SpanSink {
  readonly events: Array<{ event: SpanEvent; receiptHash: string | undefined }> = [];
  handle(event: SpanEvent, extra?: { receiptHash?: string }): void {
    this.events.push({ event, receiptHash: extra?.receiptHash });
  }
}

describe('ObservationPipeline', () => {
  it('seals receipts in entry order and chains each resumption to its suspension hash', async () => {
    const order: string[] = [];
    const { sink, lines } = chainSink(order);
    const pipeline = new ObservationPipeline({ recordingId: RECORDING_ID, receipts: sink });
    // Pushed without awaiting: entries arrive faster than the sink writes.
    for (const entry of session().list) void pipeline.push(entry);
    await pipeline.finish('2026-04-30T12:40:00.000Z');
    expect(order).toEqual(['suspension:5,6', 'resumption:8,9', 'resumption:11,12']);
    const [, s, r1, r2] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(s?.type).toBe('SuspensionReceipt');
    const suspensionHash = pipeline.receiptHash('suspension:5');
    expect(suspensionHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r1).toMatchObject({ suspension: suspensionHash, outcome: 'resumed' });
    expect(r2).toMatchObject({ suspension: suspensionHash, outcome: 'rejected', errorCode: -32010 });
  });

  it('hands suspension.end and resume.end to the span sink with the hash of their receipt', async () => {
    const { sink } = chainSink();
    const spans = new CollectingSpans();
    const pipeline = new ObservationPipeline({ recordingId: RECORDING_ID, receipts: sink, spans });
    for (const entry of session().list) void pipeline.push(entry);
    await pipeline.finish('2026-04-30T12:40:00.000Z');
    const ends = spans.events.filter((s) => s.event.type === 'suspension.end' || s.event.type === 'resume.end');
    expect(ends.map((s) => [s.event.type, 'key' in s.event ? s.event.key : '', s.receiptHash])).toEqual([
      ['suspension.end', 'suspension:5', pipeline.receiptHash('suspension:5')],
      ['resume.end', 'resume:8', pipeline.receiptHash('resume:8')],
      ['resume.end', 'resume:11', pipeline.receiptHash('resume:11')],
    ]);
    expect(ends.every((s) => s.receiptHash !== undefined)).toBe(true);
    expect(spans.events.map((s) => s.event.type)).toEqual([
      'task.start',
      'suspension.start',
      'suspension.end',
      'resume.start',
      'resume.end',
      'resume.start',
      'resume.end',
      'task.end',
    ]);
  });

  it('reports a failing receipt sink once, never rejects, and still forwards spans', async () => {
    const errors: unknown[] = [];
    const spans = new CollectingSpans();
    const failing: ReceiptSink = {
      appendSuspension: () => Promise.reject(new Error('disk full')),
      appendResumption: () => Promise.reject(new Error('disk full')),
      appendInterruption: () => Promise.reject(new Error('disk full')),
      appendContinuation: () => Promise.reject(new Error('disk full')),
    };
    const pipeline = new ObservationPipeline({
      recordingId: RECORDING_ID,
      receipts: failing,
      spans,
      onSinkError: (error, sink) => errors.push([sink, (error as Error).message]),
    });
    await Promise.all(session().list.map((entry) => pipeline.push(entry)));
    await pipeline.finish('2026-04-30T12:40:00.000Z');
    expect(errors).toEqual([['receipts', 'disk full']]);
    expect(pipeline.failures.receipts).toBeGreaterThan(1);
    expect(spans.events.some((s) => s.event.type === 'suspension.end' && s.receiptHash === undefined)).toBe(true);
  });

  it('survives a throwing span sink and a throwing finding callback', async () => {
    const errors: string[] = [];
    const { sink, lines } = chainSink();
    const pipeline = new ObservationPipeline({
      recordingId: RECORDING_ID,
      receipts: sink,
      spans: {
        handle() {
          throw new Error('exporter down');
        },
      },
      onSinkError: (_error, which) => errors.push(which),
      onFinding: () => {
        throw new Error('callback bug');
      },
    });
    const e = session();
    e.raw({ xid: 'nobody', kind: 'end', http: { method: 'POST', path: '/' } });
    for (const entry of e.list) await pipeline.push(entry);
    await pipeline.finish('2026-04-30T12:40:00.000Z');
    expect(errors).toEqual(['spans']);
    expect(lines).toHaveLength(4);
    expect(pipeline.findings.map((f) => f.code)).toEqual(['orphan-entry']);
  });
});

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** A receipt sink whose `durable()` settles only when the test says so. */
function gatedSink(): { sink: ReceiptSink; lines: string[]; makeDurable(): Promise<void> } {
  const { sink, lines } = chainSink();
  let waiting: (() => void)[] = [];
  return {
    sink: { ...sink, durable: () => new Promise<void>((resolve) => waiting.push(resolve)) },
    lines,
    /** Once the appends so far are written (a turn each), makes them durable. */
    async makeDurable() {
      await turns(20);
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve();
    },
  };
}

/** 'settled' when `hold` settles within many turns of the event loop, else 'pending'. */
async function stateOf(hold: Promise<unknown> | undefined): Promise<'none' | 'settled' | 'pending'> {
  if (hold === undefined) return 'none';
  let settled = false;
  void hold.then(() => (settled = true));
  await turns(20);
  return settled ? 'settled' : 'pending';
}

/** A stream of TASK open and its pause proven by the stream's PAUSED event (seq 5). */
function pausedOnStream(): Entries {
  const e = new Entries();
  e.request('s1', 'SendStreamingMessage', userMessage('work:5'));
  e.sseHead('s1');
  e.event('s1', task('TASK_STATE_SUBMITTED'));
  e.request('p1', 'PauseTask', { taskId: TASK });
  e.event('s1', paused(clientPause()));
  return e;
}

describe('ObservationPipeline.pushHeld', () => {
  it('settles a hold through the callbacks of sinks that have them, never asking for a promise', async () => {
    const { sink } = chainSink();
    let receiptsDurable: () => void = () => undefined;
    let linesDurable: () => void = () => undefined;
    const pipeline = new ObservationPipeline({
      recordingId: RECORDING_ID,
      receipts: {
        ...sink,
        durable: () => Promise.reject(new Error('durable() is not asked for when whenDurable is there')),
        whenDurable: (done) => (receiptsDurable = done),
      },
      entriesDurable: () => Promise.reject(new Error('entriesDurable is not asked for when whenEntriesDurable is')),
      whenEntriesDurable: (done) => (linesDurable = done),
    });
    const e = pausedOnStream();
    const holds = e.list.map((entry) => pipeline.pushHeld(entry));
    const hold = holds[4];
    expect(await stateOf(hold)).toBe('pending');
    receiptsDurable();
    expect(await stateOf(hold)).toBe('pending');
    linesDurable();
    expect(await stateOf(hold)).toBe('settled');
    expect(pipeline.failures.receipts).toBe(0);
  });

  it('holds every entry that shows the task while its receipt is not durable, whichever entry made it', async () => {
    const gated = gatedSink();
    const pipeline = new ObservationPipeline({ recordingId: RECORDING_ID, receipts: gated.sink });
    const e = pausedOnStream();
    const holds = e.list.map((entry) => pipeline.pushHeld(entry));
    expect(await Promise.all(holds.slice(0, 4).map(stateOf))).toEqual(['none', 'none', 'none', 'none']);
    const streamEvent = holds[4];
    const answer = pipeline.pushHeld(e.result('p1', pauseResult(clientPause())));
    const other = pipeline.pushHeld(e.event('s2', working('task-other')));
    expect([await stateOf(streamEvent), await stateOf(answer), await stateOf(other)]).toEqual([
      'pending',
      'pending',
      'none',
    ]);
    await gated.makeDurable();
    expect([await stateOf(streamEvent), await stateOf(answer)]).toEqual(['settled', 'settled']);
    expect(await stateOf(pipeline.pushHeld(e.event('s1', artifact(1))))).toBe('none');
  });

  it('holds the stream event after the ResumeTask answer that made the receipt, and the recording lines', async () => {
    const gated = gatedSink();
    let linesDurable: () => void = () => undefined;
    const pipeline = new ObservationPipeline({
      recordingId: RECORDING_ID,
      receipts: gated.sink,
      entriesDurable: () => new Promise<void>((resolve) => (linesDurable = resolve)),
    });
    const e = pausedOnStream();
    e.result('p1', pauseResult(clientPause()));
    for (const entry of e.list) void pipeline.pushHeld(entry);
    await gated.makeDurable();
    linesDurable();
    void pipeline.pushHeld(e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN }));
    const answer = pipeline.pushHeld(e.result('r1', resumeResult(RESUMED_AT)));
    const streamEvent = pipeline.pushHeld(e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT })));
    expect([await stateOf(answer), await stateOf(streamEvent)]).toEqual(['pending', 'pending']);
    await gated.makeDurable();
    // The receipt is durable, the recording lines it cites are not yet.
    expect(await stateOf(answer)).toBe('pending');
    linesDurable();
    expect([await stateOf(answer), await stateOf(streamEvent)]).toEqual(['settled', 'settled']);
    expect(gated.lines.filter((l) => l.includes('ResumptionReceipt'))).toHaveLength(1);
  });

  it('holds a stream resume event while two ResumeTask calls race, until the winner is receipted', async () => {
    const gated = gatedSink();
    const pipeline = new ObservationPipeline({ recordingId: RECORDING_ID, receipts: gated.sink });
    const e = pausedOnStream();
    e.result('p1', pauseResult(clientPause()));
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.request('r2', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    for (const entry of e.list) void pipeline.pushHeld(entry);
    await gated.makeDurable();
    const streamEvent = pipeline.pushHeld(e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT })));
    expect(await stateOf(streamEvent)).toBe('pending');
    expect(gated.lines.filter((l) => l.includes('ResumptionReceipt'))).toHaveLength(0);
    const loser = pipeline.pushHeld(e.error('r2', -32010));
    const winner = pipeline.pushHeld(e.result('r1', resumeResult(RESUMED_AT)));
    expect([await stateOf(streamEvent), await stateOf(winner), await stateOf(loser)]).toEqual([
      'pending',
      'pending',
      'pending',
    ]);
    await gated.makeDurable();
    expect([await stateOf(streamEvent), await stateOf(winner)]).toEqual(['settled', 'settled']);
  });

  it('holds a poll showing the task resumed while a stream carries it, until the stream tells, durably', async () => {
    const gated = gatedSink();
    const pipeline = new ObservationPipeline({ recordingId: RECORDING_ID, receipts: gated.sink });
    const e = pausedOnStream();
    e.result('p1', pauseResult(clientPause()));
    for (const entry of e.list) void pipeline.pushHeld(entry);
    await gated.makeDurable();
    void pipeline.pushHeld(e.request('g1', 'GetTask', { id: TASK }));
    const poll = pipeline.pushHeld(e.result('g1', taskObject('TASK_STATE_WORKING')));
    expect(await stateOf(poll)).toBe('pending');
    const streamEvent = pipeline.pushHeld(e.event('s1', resumed({ cause: 'external_event', resumedAt: RESUMED_AT })));
    expect([await stateOf(poll), await stateOf(streamEvent)]).toEqual(['pending', 'pending']);
    expect(gated.lines.filter((l) => l.includes('ResumptionReceipt'))).toHaveLength(1);
    await gated.makeDurable();
    expect([await stateOf(poll), await stateOf(streamEvent)]).toEqual(['settled', 'settled']);
  });

  it('releases a held poll when the observer stops waiting: the stream that would tell ended', async () => {
    const gated = gatedSink();
    const pipeline = new ObservationPipeline({ recordingId: RECORDING_ID, receipts: gated.sink });
    const e = pausedOnStream();
    e.result('p1', pauseResult(clientPause()));
    for (const entry of e.list) void pipeline.pushHeld(entry);
    await gated.makeDurable();
    void pipeline.pushHeld(e.request('g1', 'GetTask', { id: TASK }));
    const poll = pipeline.pushHeld(e.result('g1', taskObject('TASK_STATE_WORKING')));
    expect(await stateOf(poll)).toBe('pending');
    void pipeline.pushHeld(e.end('s1'));
    expect(await stateOf(poll)).toBe('settled');
  });
});
