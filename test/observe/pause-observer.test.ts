import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/canonical/canonical-json.js';
import { pauseSpan } from '../../src/observe/observer-spans.js';
import { PauseObserver } from '../../src/observe/pause-observer.js';
import { legacyMetadata, pauseToLegacy } from '../../src/protocol/legacy.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { deriveSpanId, deriveTraceId } from '../../src/tracing/span-events.js';
import {
  CTX,
  Entries,
  RECORDING_ID,
  TASK,
  TOKEN,
  agentPause,
  artifact,
  clientPause,
  findings,
  legacyPauseResult,
  legacyPaused,
  legacyResumeResult,
  legacyResumed,
  lost,
  observeAll,
  pauseResult,
  paused,
  resumeResult,
  resumed,
  resumptions,
  shape,
  spans,
  statusOf,
  suspensions,
  task,
  taskObject,
  userMessage,
  working,
} from './entries.js';

const RESUMED_AT = '2026-04-30T12:38:01.012Z';

/** A streaming task that is WORKING on stream `s1`. */
function streamingTask(e: Entries, principal = 'jwt:sub=alice'): void {
  e.request('s1', 'SendStreamingMessage', userMessage('work:5'), { principal });
  e.sseHead('s1');
  e.event('s1', task('TASK_STATE_SUBMITTED'));
  e.event('s1', working());
}

describe('PauseObserver: caller pause (PauseTask)', () => {
  it('writes one SuspensionReceipt from the PauseTask request and the first entry proving PAUSED', () => {
    const e = new Entries();
    streamingTask(e);
    const req = e.request('p1', 'PauseTask', { taskId: TASK, reason: 'operator review' }, { principal: 'jwt:sub=bob' });
    const ev = e.event('s1', paused(clientPause()));
    e.result('p1', pauseResult(clientPause()));
    const out = observeAll(e.list);
    const [draft, ...more] = suspensions(out);
    expect(more).toHaveLength(0);
    expect(draft).toEqual({
      type: 'SuspensionReceipt',
      taskId: TASK,
      contextId: CTX,
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      principal: 'jwt:sub=bob',
      via: 'PauseTask',
      reason: 'operator review',
      mode: 'finish_step',
      conditions: null,
      conditionsHash: null,
      resumeTokenHash: hashCanonical(TOKEN),
      pausedAt: '2026-04-30T12:34:56.789Z',
      pausedUntil: null,
      observedAt: ev.at,
      entries: [req.seq, ev.seq],
      span: pauseSpan(TASK, { resumeTokenHash: hashCanonical(TOKEN), pausedAt: '2026-04-30T12:34:56.789Z' }),
      binding: 'JSONRPC',
      repaired: [],
    });
  });

  it('names the Suspension span by the task trace and the request entry, with ids from the recording', () => {
    const e = new Entries();
    streamingTask(e);
    const req = e.request('p1', 'PauseTask', { taskId: TASK, reason: 'operator review' });
    e.event('s1', paused(clientPause()));
    const [draft] = suspensions(observeAll(e.list, undefined, RECORDING_ID, 'recording'));
    expect(draft?.span).toEqual({
      traceId: deriveTraceId(RECORDING_ID, `task:${TASK}`),
      spanId: deriveSpanId(RECORDING_ID, `suspension:${req.seq}`),
    });
  });

  it('emits suspension.start at the request, then suspension.end and the receipt, with ids from the recording', () => {
    const e = new Entries();
    streamingTask(e);
    const observer = new PauseObserver({ recordingId: RECORDING_ID, suspensionSpans: 'recording' });
    for (const entry of e.list) observer.observe(entry);
    const atRequest = observer.observe(e.request('p1', 'PauseTask', { taskId: TASK, mode: 'interrupt_immediate' }));
    expect(shape(atRequest)).toEqual(['span:suspension.start']);
    const atResponse = observer.observe(e.result('p1', pauseResult(clientPause())));
    expect(shape(atResponse)).toEqual(['span:suspension.end', 'suspension']);
    const end = atResponse[0];
    const receipt = atResponse[1];
    expect(end?.type === 'span' && end.event.key).toBe(receipt?.type === 'suspension' && receipt.key);
    expect(receipt?.type === 'suspension' && receipt.draft.mode).toBe('interrupt_immediate');
  });

  it('starts a Suspension span with ids from the pause at the proof, with the time of the request', () => {
    const e = new Entries();
    streamingTask(e);
    const observer = new PauseObserver({ recordingId: RECORDING_ID });
    for (const entry of e.list) observer.observe(entry);
    const req = e.request('p1', 'PauseTask', { taskId: TASK }, { principal: 'jwt:sub=bob' });
    expect(observer.observe(req)).toEqual([]);
    const atResponse = observer.observe(e.result('p1', pauseResult(clientPause())));
    expect(shape(atResponse)).toEqual(['span:suspension.start', 'span:suspension.end', 'suspension']);
    const start = atResponse[0];
    const receipt = atResponse[2];
    const span = pauseSpan(TASK, { resumeTokenHash: hashCanonical(TOKEN), pausedAt: clientPause().pausedAt });
    expect(start?.type === 'span' && start.event).toMatchObject({
      type: 'suspension.start',
      at: req.at,
      span,
      attributes: { 'a2a.principal': 'jwt:sub=bob', 'a2a.recording.entry_seq': req.seq },
    });
    expect(receipt?.type === 'suspension' && receipt.draft.span).toEqual(span);
  });

  it('starts and ends the span of a refused pause call under the recording ids', () => {
    const e = new Entries();
    streamingTask(e);
    const req = e.request('p1', 'PauseTask', { taskId: TASK });
    e.error('p1', -32002);
    const out = observeAll(e.list);
    expect(suspensions(out)).toEqual([]);
    const start = spans(out, 'suspension.start')[0];
    expect(start).toMatchObject({
      at: req.at,
      span: { spanId: deriveSpanId(RECORDING_ID, `suspension:${req.seq}`) },
    });
    const end = spans(out, 'suspension.end')[0];
    expect(end?.type === 'suspension.end' && end.key).toBe(start?.type === 'suspension.start' && start.key);
    expect(end?.type === 'suspension.end' && end.error).toMatch(/-32002/);
  });

  it('takes the answer as proof when it comes before the stream event', () => {
    const e = new Entries();
    streamingTask(e);
    const req = e.request('p1', 'PauseTask', { taskId: TASK });
    const res = e.result('p1', pauseResult(clientPause()));
    e.event('s1', paused(clientPause()));
    const [draft] = suspensions(observeAll(e.list));
    expect(draft?.entries).toEqual([req.seq, res.seq]);
    expect(draft?.observedAt).toBe(res.at);
  });

  it('writes a ResumptionReceipt for ResumeTask with the input hash and continueTranscript', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    const req = e.request(
      'r1',
      'ResumeTask',
      { taskId: TASK, resumeToken: TOKEN, input: { approved: true }, continueTranscript: false },
      { principal: 'jwt:sub=carol' },
    );
    const res = e.result('r1', resumeResult(RESUMED_AT));
    e.event(
      's1',
      resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT, hadResumeInput: true, continueTranscript: false }),
    );
    const out = observeAll(e.list);
    const [s] = suspensions(out);
    const [r, ...more] = resumptions(out);
    expect(more).toHaveLength(0);
    expect(r).toEqual({
      type: 'ResumptionReceipt',
      taskId: TASK,
      cause: 'explicit_resume',
      outcome: 'resumed',
      errorCode: null,
      principal: 'jwt:sub=carol',
      hadResumeInput: true,
      inputHash: hashCanonical({ approved: true }),
      continueTranscript: false,
      resumedAt: RESUMED_AT,
      inferred: false,
      observedAt: res.at,
      entries: [req.seq, res.seq],
      span: {
        traceId: deriveTraceId(RECORDING_ID, `resume:${req.seq}`),
        spanId: deriveSpanId(RECORDING_ID, `resume:${req.seq}`),
      },
      links: {
        suspension: s?.span,
        pipeline: {
          traceId: deriveTraceId(RECORDING_ID, `task:${TASK}`),
          spanId: deriveSpanId(RECORDING_ID, `task:${TASK}`),
        },
      },
      binding: 'JSONRPC',
      repaired: [],
    });
    expect(lost(out)).toHaveLength(0);
  });

  it('pairs the resumption with the suspension key and orders resume.start, resume.end, receipt', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT }));
    e.result('r1', resumeResult(RESUMED_AT));
    const out = observeAll(e.list);
    const suspension = out.find((o) => o.type === 'suspension');
    const resumption = out.find((o) => o.type === 'resumption');
    expect(resumption?.type === 'resumption' && resumption.suspensionKey).toBe(suspension?.key);
    const tail = shape(out).filter((s) => s.startsWith('span:resume') || s === 'resumption');
    expect(tail).toEqual(['span:resume.start', 'span:resume.end', 'resumption']);
    const [draft] = resumptions(out);
    expect(draft?.hadResumeInput).toBe(false);
    expect(draft?.inputHash).toBeNull();
    expect(draft?.continueTranscript).toBe(true);
  });
});

describe('PauseObserver: agent-initiated pauses', () => {
  it('writes a statusUpdate receipt for an agent self-park seen only on the stream', () => {
    const e = new Entries();
    streamingTask(e);
    const ev = e.event('s1', paused(agentPause()));
    const [draft] = suspensions(observeAll(e.list));
    expect(draft).toMatchObject({
      via: 'statusUpdate',
      initiatedBy: 'PAUSE_INITIATOR_AGENT',
      principal: null,
      mode: null,
      reason: 'waiting on ci/build:1234',
      conditions: agentPause().conditions,
      conditionsHash: hashCanonical(agentPause().conditions),
      entries: [ev.seq],
    });
    expect(draft?.span).toEqual(
      pauseSpan(TASK, { resumeTokenHash: hashCanonical(agentPause().resumeToken), pausedAt: agentPause().pausedAt }),
    );
    const [old] = suspensions(observeAll(e.list, undefined, RECORDING_ID, 'recording'));
    expect(old?.span.spanId).toBe(deriveSpanId(RECORDING_ID, `suspension:${ev.seq}`));
  });

  it('writes an AwaitTaskResumption receipt with the pause initiator and no mode', () => {
    const e = new Entries();
    streamingTask(e);
    const conditions = { onEvent: 'ci.build.completed:1234', timeout: { durationMinutes: 30, onTimeout: 'fail' } };
    const req = e.request(
      'a1',
      'AwaitTaskResumption',
      { taskId: TASK, reason: 'waiting on ci/build:1234', conditions },
      { principal: 'svc:worker' },
    );
    const res = e.result('a1', pauseResult(agentPause()));
    const [draft] = suspensions(observeAll(e.list));
    expect(draft).toMatchObject({
      via: 'AwaitTaskResumption',
      initiatedBy: 'PAUSE_INITIATOR_AGENT',
      mode: null,
      principal: 'svc:worker',
      entries: [req.seq, res.seq],
    });
  });

  it('attributes a condition_fired resume to the FireEvent that matches the pause condition', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(agentPause()));
    e.control('c0', 'FireEvent', { name: 'some.other.event' }, 'ops:mallory');
    e.result('c0', { fired: 0 });
    const fire = e.control('c1', 'FireEvent', { name: 'ci.build.completed:1234' }, 'ops:ci-bot');
    const ev = e.event('s1', resumed({ cause: 'condition_fired', resumedAt: RESUMED_AT }));
    e.result('c1', { fired: 1 });
    const [r] = resumptions(observeAll(e.list));
    expect(r).toMatchObject({
      cause: 'condition_fired',
      outcome: 'resumed',
      principal: 'ops:ci-bot',
      entries: [fire.seq, ev.seq],
      resumedAt: RESUMED_AT,
      observedAt: ev.at,
      hadResumeInput: false,
      inputHash: null,
    });
    expect(r?.span.spanId).toBe(deriveSpanId(RECORDING_ID, `resume:${ev.seq}`));
  });

  it('writes principal null for a condition fired with no control call', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(agentPause()));
    const ev = e.event('s1', resumed({ cause: 'external_event', resumedAt: RESUMED_AT }));
    const [r] = resumptions(observeAll(e.list));
    expect(r).toMatchObject({ cause: 'external_event', principal: null, entries: [ev.seq] });
  });
});

describe('PauseObserver: legacy metadata.harn.pause', () => {
  function session(legacy: boolean): Entries {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK, reason: 'operator review' }, { principal: 'jwt:sub=bob' });
    e.event('s1', legacy ? legacyPaused(clientPause(), TASK, 'finish_step') : paused(clientPause()));
    e.result('p1', legacy ? legacyPauseResult(clientPause(), TASK, 'finish_step') : pauseResult(clientPause()));
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN }, { principal: 'jwt:sub=carol' });
    e.event(
      's1',
      legacy
        ? legacyResumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT })
        : resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT }),
    );
    e.result('r1', legacy ? legacyResumeResult(RESUMED_AT) : resumeResult(RESUMED_AT));
    e.request('a1', 'AwaitTaskResumption', { taskId: TASK, conditions: { onEvent: 'ci.build.completed:1234' } });
    const pause2 = agentPause({
      resumeToken: 'suspend-2',
      pausedAt: RESUMED_AT,
      conditions: { onEvent: 'ci.build.completed:1234' },
    });
    e.result('a1', legacy ? legacyPauseResult(pause2) : pauseResult(pause2));
    e.event('s1', legacy ? legacyPaused(pause2) : paused(pause2));
    e.control('c1', 'FireEvent', { name: 'ci.build.completed:1234' });
    e.event(
      's1',
      legacy
        ? legacyResumed({ cause: 'condition_fired', resumedAt: RESUMED_AT })
        : resumed({ cause: 'condition_fired', resumedAt: RESUMED_AT }),
    );
    e.result('c1', { fired: 1 });
    e.event('s1', statusOf('TASK_STATE_COMPLETED'));
    e.end('s1');
    return e;
  }

  it('writes the same receipts as a native peer, except via', () => {
    const native = observeAll(session(false).list);
    const legacy = observeAll(session(true).list);
    const strip = <T extends { via?: string }>(d: T): Omit<T, 'via'> => {
      const { via: _via, ...rest } = d;
      return rest;
    };
    expect(suspensions(native)).toHaveLength(2);
    expect(suspensions(legacy).map(strip)).toEqual(suspensions(native).map(strip));
    expect(resumptions(legacy)).toEqual(resumptions(native));
    expect(suspensions(native).map((d) => d.via)).toEqual(['PauseTask', 'AwaitTaskResumption']);
    expect(suspensions(legacy).map((d) => d.via)).toEqual(['legacy-metadata', 'legacy-metadata']);
    expect(findings(legacy)).toEqual([]);
    expect(findings(native)).toEqual([]);
  });

  it('reads a self-park carried only as legacy metadata on a task snapshot', () => {
    const e = new Entries();
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', { ...taskObject('TASK_STATE_WORKING'), metadata: legacyMetadata(pauseToLegacy(agentPause())) });
    const [draft] = suspensions(observeAll(e.list));
    expect(draft).toMatchObject({
      via: 'legacy-metadata',
      initiatedBy: 'PAUSE_INITIATOR_AGENT',
      resumeTokenHash: hashCanonical(TOKEN),
    });
  });
});

describe('PauseObserver: a leftover legacy envelope', () => {
  it('reads a CANCELED task that still carries the paused envelope of its pause as CANCELED', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', legacyPauseResult(clientPause(), TASK, 'finish_step'));
    const cancel = e.request('x1', 'CancelTask', { id: TASK });
    const answer = e.result('x1', {
      ...taskObject('TASK_STATE_CANCELED'),
      metadata: legacyMetadata(pauseToLegacy(clientPause(), 'finish_step')),
    });
    const out = observeAll(e.list);
    expect(resumptions(out)).toMatchObject([
      { cause: 'canceled', outcome: 'canceled', entries: [cancel.seq, answer.seq] },
    ]);
    expect(lost(out)).toEqual([]);
  });
});

describe('PauseObserver: one pause, one receipt', () => {
  it('dedupes a pause seen in the answer, on two streams and again in GetTask', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('s2', 'SubscribeToTask', { id: TASK });
    e.sseHead('s2');
    e.event('s2', task('TASK_STATE_WORKING'));
    const req = e.request('p1', 'PauseTask', { taskId: TASK });
    const first = e.event('s2', paused(clientPause()));
    e.event('s1', paused(clientPause()));
    e.result('p1', pauseResult(clientPause()));
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_PAUSED', clientPause()));
    e.request('s3', 'SubscribeToTask', { id: TASK });
    e.sseHead('s3');
    e.event('s3', { task: taskObject('TASK_STATE_PAUSED', clientPause()) });
    const out = observeAll(e.list);
    const all = suspensions(out);
    expect(all).toHaveLength(1);
    expect(all[0]?.entries).toEqual([req.seq, first.seq]);
    expect(spans(out, 'suspension.start')).toHaveLength(1);
    expect(spans(out, 'suspension.end')).toHaveLength(1);
  });

  it('answers an idempotent second PauseTask without a second receipt or span', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.request('p2', 'PauseTask', { taskId: TASK });
    e.result('p2', pauseResult(clientPause()));
    const out = observeAll(e.list);
    expect(suspensions(out)).toHaveLength(1);
    expect(spans(out, 'suspension.start')).toHaveLength(1);
  });

  it('dedupes a late PAUSED on a second stream after the resume', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('s2', 'SubscribeToTask', { id: TASK });
    e.event('s2', task('TASK_STATE_WORKING'));
    e.event('s1', paused(agentPause()));
    e.event('s1', resumed({ cause: 'timeout', resumedAt: RESUMED_AT }));
    e.event('s2', paused(agentPause()));
    e.event('s2', resumed({ cause: 'timeout', resumedAt: RESUMED_AT }));
    const out = observeAll(e.list);
    expect(suspensions(out)).toHaveLength(1);
    expect(resumptions(out)).toHaveLength(1);
    expect(resumptions(out)[0]).toMatchObject({ cause: 'timeout', outcome: 'resumed' });
    expect(lost(out)).toHaveLength(0);
  });
});

describe('PauseObserver: rejected and racing resumes', () => {
  it('writes a rejected receipt for -32011 that keeps the pause open, then the accepted resume', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    const bad = e.request(
      'r1',
      'ResumeTask',
      { taskId: TASK, resumeToken: 'wrong-token' },
      { principal: 'jwt:sub=eve' },
    );
    const badRes = e.error('r1', -32011, 'Resume token does not match the current suspension');
    const observer = new PauseObserver({ recordingId: RECORDING_ID });
    const out = e.list.flatMap((entry) => observer.observe(entry));
    const [rejected] = resumptions(out);
    expect(rejected).toMatchObject({
      cause: 'explicit_resume',
      outcome: 'rejected',
      errorCode: -32011,
      principal: 'jwt:sub=eve',
      resumedAt: null,
      entries: [bad.seq, badRes.seq],
    });
    expect(observer.openSuspensions().map((s) => s.taskId)).toEqual([TASK]);
    const endEvent = spans(out, 'resume.end')[0];
    expect(endEvent?.type === 'resume.end' && endEvent.error).toMatch(/-32011/);

    const more = [
      e.request('r2', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN }, { principal: 'jwt:sub=carol' }),
      e.result('r2', resumeResult(RESUMED_AT)),
    ].flatMap((entry) => observer.observe(entry));
    const [accepted] = resumptions(more);
    expect(accepted).toMatchObject({ outcome: 'resumed', principal: 'jwt:sub=carol', errorCode: null });
    const keys = [...out, ...more].flatMap((o) => (o.type === 'resumption' ? [o.suspensionKey] : []));
    expect(new Set(keys).size).toBe(1);
    expect(observer.openSuspensions()).toEqual([]);
    expect(lost(observer.finish(e.nextAt()))).toHaveLength(0);
  });

  it('writes rejected receipts for race losers answered -32010 and one resumed receipt for the winner', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    const a = e.request('ra', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN }, { principal: 'jwt:sub=alice' });
    const b = e.request('rb', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN }, { principal: 'jwt:sub=bob' });
    const ev = e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT }));
    const bRes = e.result('rb', resumeResult(RESUMED_AT));
    const aRes = e.error('ra', -32010, 'Task state does not allow this operation');
    const out = observeAll(e.list);
    const all = resumptions(out);
    expect(all.map((r) => [r.outcome, r.principal, r.errorCode])).toEqual([
      ['resumed', 'jwt:sub=bob', null],
      ['rejected', 'jwt:sub=alice', -32010],
    ]);
    expect(all[0]?.entries).toEqual([b.seq, ev.seq, bRes.seq]);
    expect(all[1]?.entries).toEqual([a.seq, aRes.seq]);
    expect(lost(out)).toHaveLength(0);
  });

  it('credits the last racer standing when the losers are answered first', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.request('ra', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN }, { principal: 'jwt:sub=alice' });
    const b = e.request('rb', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN }, { principal: 'jwt:sub=bob' });
    const ev = e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT }));
    e.error('ra', -32011);
    e.result('rb', resumeResult(RESUMED_AT));
    const all = resumptions(observeAll(e.list));
    expect(all.map((r) => [r.outcome, r.principal])).toEqual([
      ['rejected', 'jwt:sub=alice'],
      ['resumed', 'jwt:sub=bob'],
    ]);
    expect(all[1]?.entries).toEqual([b.seq, ev.seq]);
  });

  it('writes no receipt for -32010 on a task never seen paused', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.error('r1', -32010);
    const out = observeAll(e.list);
    expect(resumptions(out)).toEqual([]);
    expect(findings(out)).toEqual([]);
  });
});

describe('PauseObserver: pauses that end without a resume', () => {
  it('writes a canceled receipt for CancelTask while paused, once', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    const cancel = e.request('x1', 'CancelTask', { id: TASK }, { principal: 'jwt:sub=dave' });
    const ev = e.event('s1', statusOf('TASK_STATE_CANCELED', '2026-04-30T12:40:00.000Z'));
    e.result('x1', taskObject('TASK_STATE_CANCELED'));
    e.end('s1');
    const out = observeAll(e.list);
    const all = resumptions(out);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      cause: 'canceled',
      outcome: 'canceled',
      principal: 'jwt:sub=dave',
      resumedAt: '2026-04-30T12:40:00.000Z',
      hadResumeInput: false,
      continueTranscript: null,
      entries: [cancel.seq, ev.seq],
    });
    expect(spans(out, 'task.end')).toHaveLength(1);
    expect(lost(out)).toHaveLength(0);
  });

  it('writes a canceled receipt from the CancelTask answer when no stream carries the task', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    const cancel = e.request('x1', 'CancelTask', { id: TASK });
    const res = e.result('x1', taskObject('TASK_STATE_CANCELED'));
    const [r] = resumptions(observeAll(e.list));
    expect(r).toMatchObject({ outcome: 'canceled', entries: [cancel.seq, res.seq] });
  });

  it('writes a failed receipt with cause timeout when the pause times out with onTimeout fail', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(agentPause()));
    const advance = e.control('c1', 'AdvanceClock', { ms: 30 * 60_000 }, 'ops:clock');
    const ev = e.event('s1', statusOf('TASK_STATE_FAILED', '2026-04-30T13:04:56.789Z'));
    e.result('c1', { now: '2026-04-30T13:04:56.789Z' });
    e.end('s1');
    const out = observeAll(e.list);
    const [r] = resumptions(out);
    expect(r).toMatchObject({
      cause: 'timeout',
      outcome: 'failed',
      principal: 'ops:clock',
      entries: [advance.seq, ev.seq],
      resumedAt: '2026-04-30T13:04:56.789Z',
    });
    const end = spans(out, 'resume.end')[0];
    expect(end?.type === 'resume.end' && end.error).toBeTruthy();
    expect(lost(out)).toHaveLength(0);
  });

  it('writes a resumed receipt with cause timeout when the pause times out with onTimeout resume', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(agentPause({ conditions: { timeout: { durationMinutes: 30, onTimeout: 'resume' } } })));
    e.control('c1', 'AdvanceClock', { ms: 30 * 60_000 });
    e.event('s1', resumed({ cause: 'timeout', resumedAt: '2026-04-30T13:04:56.789Z' }));
    e.result('c1', { now: '2026-04-30T13:04:56.789Z' });
    const out = observeAll(e.list);
    expect(resumptions(out)[0]).toMatchObject({ cause: 'timeout', outcome: 'resumed', principal: null });
    const end = spans(out, 'resume.end')[0];
    expect(end?.type === 'resume.end' && end.error).toBeUndefined();
  });
});

describe('PauseObserver: lost pauses', () => {
  it('loses a pause at the end of the recording (recording_ended), once', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    const out = observeAll(e.list);
    const [l, ...more] = lost(out);
    expect(more).toHaveLength(0);
    expect(l).toMatchObject({ reason: 'recording_ended', taskId: TASK, link: suspensions(out)[0]?.span });
    expect(l?.span).toEqual({
      traceId: deriveTraceId(RECORDING_ID, `lost:suspension:1`),
      spanId: deriveSpanId(RECORDING_ID, `lost:suspension:1`),
    });
    expect(findings(out).filter((f) => f.code === 'lost-pause')).toHaveLength(1);
  });

  it('loses a pause whose only stream ended while paused (stream_ended)', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(agentPause()));
    e.end('s1');
    expect(lost(observeAll(e.list)).map((l) => l.reason)).toEqual(['stream_ended']);
  });

  it('does not lose a pause whose stream ended but which is resumed later', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(clientPause()));
    e.broke('s1', 'client went away');
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.result('r1', resumeResult(RESUMED_AT));
    const out = observeAll(e.list);
    expect(lost(out)).toEqual([]);
    expect(resumptions(out)).toHaveLength(1);
  });

  it('loses a pause the peer still shows PAUSED after its pausedUntil passed (paused_until_passed), once', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause({ pausedUntil: '2026-04-30T13:00:00.000Z' })));
    e.control('c1', 'AdvanceClock', { ms: 3_600_000 });
    e.result('c1', { now: '2026-04-30T13:34:56.789Z' });
    e.request('g1', 'GetTask', { id: TASK });
    const still = e.result(
      'g1',
      taskObject('TASK_STATE_PAUSED', clientPause({ pausedUntil: '2026-04-30T13:00:00.000Z' })),
    );
    const observer = new PauseObserver({ recordingId: RECORDING_ID });
    const out = e.list.flatMap((entry) => observer.observe(entry));
    const [l, ...more] = lost(out);
    expect(more).toHaveLength(0);
    expect(l).toMatchObject({ reason: 'paused_until_passed', at: still.at });
    expect(lost(observer.finish(e.nextAt()))).toHaveLength(0);
  });

  it('loses a pause whose pausedUntil passed with nothing after it at the end (paused_until_passed)', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause({ pausedUntil: '2026-04-30T13:00:00.000Z' })));
    e.control('c1', 'AdvanceClock', { ms: 3_600_000 });
    e.result('c1', { now: '2026-04-30T13:34:56.789Z' });
    e.request('g1', 'GetTask', { id: TASK });
    const out = observeAll(e.list);
    expect(lost(out).map((l) => [l.reason, l.at])).toEqual([['paused_until_passed', e.nextAt()]]);
    expect(resumptions(out)).toEqual([]);
  });

  it('does not lose a pause closed by its own timeout event that raced the clock move', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(agentPause({ pausedUntil: '2026-04-30T13:04:56.789Z' })));
    e.control('c1', 'AdvanceClock', { ms: 31 * 60_000 });
    e.result('c1', { now: '2026-04-30T13:05:56.789Z' });
    e.event('s1', statusOf('TASK_STATE_FAILED', '2026-04-30T13:04:56.789Z'));
    e.request('g1', 'GetTask', { id: TASK });
    const out = observeAll(e.list);
    expect(lost(out)).toEqual([]);
    expect(resumptions(out)[0]).toMatchObject({ outcome: 'failed' });
  });

  /** An agent self-park seen by a poll, then the clock moved past its timeout (which resumes it, unseen). */
  function parkedPastItsTimeout(e: Entries): void {
    const park = agentPause({
      pausedUntil: '2026-04-30T13:05:00.000Z',
      conditions: { timeout: { durationMinutes: 30, onTimeout: 'resume' } },
    });
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_PAUSED', park));
    e.control('c1', 'AdvanceClock', { ms: 31 * 60_000 }, 'ops:clock');
    e.result('c1', { now: '2026-04-30T13:06:00.000Z' });
  }

  it('infers a timeout resume a late subscriber could not see, from the COMPLETED its stream shows', () => {
    const e = new Entries();
    // The agent's self-park is seen by a poll; the clock passes its deadline (the peer resumes it,
    // unseen); a SubscribeToTask opened afterwards shows the task finish.
    parkedPastItsTimeout(e);
    e.request('s2', 'SubscribeToTask', { id: TASK });
    e.sseHead('s2');
    e.event('s2', artifact(1));
    e.event('s2', statusOf('TASK_STATE_COMPLETED', '2026-04-30T13:06:00.000Z'));
    e.end('s2');
    const out = observeAll(e.list);
    expect(lost(out)).toEqual([]);
    expect(resumptions(out)).toHaveLength(1);
    expect(resumptions(out)[0]).toMatchObject({ cause: 'timeout', outcome: 'resumed', inferred: true });
  });

  it('still loses a pause when a late stream shows the task finished and nothing can have resumed it', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.request('s2', 'SubscribeToTask', { id: TASK });
    e.sseHead('s2');
    const done = e.event('s2', statusOf('TASK_STATE_COMPLETED'));
    const out = observeAll(e.list);
    expect(lost(out).map((l) => [l.reason, l.at])).toEqual([['pause_ignored', done.at]]);
  });

  it("proves the agent's own pause, not the client's, when a PauseTask finds the task already parked", () => {
    const e = new Entries();
    e.request('m1', 'SendMessage', { message: userMessage('work:1 await:ev') });
    e.result('m1', task('TASK_STATE_WORKING'));
    e.request('p1', 'PauseTask', { taskId: TASK, mode: 'finish_step' }, { principal: 'jwt:sub=alice' });
    const answer = e.result('p1', pauseResult(agentPause()));
    const out = observeAll(e.list);
    expect(suspensions(out)).toHaveLength(1);
    expect(suspensions(out)[0]).toMatchObject({
      initiatedBy: 'PAUSE_INITIATOR_AGENT',
      via: 'statusUpdate',
      principal: null,
      mode: null,
      entries: [answer.seq],
    });
  });

  it("credits a client's PauseTask with the new pause it made after the one in force ended unseen", () => {
    const e = new Entries();
    parkedPastItsTimeout(e);
    // The timeout resumed the task, unseen; alice pauses it again before anyone polls.
    const call = e.request('p1', 'PauseTask', { taskId: TASK, mode: 'interrupt_immediate' }, { principal: 'alice' });
    const answer = e.result(
      'p1',
      pauseResult(clientPause({ resumeToken: 'suspend-again-0002', pausedAt: '2026-04-30T13:06:00.000Z' })),
    );
    const out = observeAll(e.list);
    expect(resumptions(out)[0]).toMatchObject({ cause: 'timeout', inferred: true });
    expect(suspensions(out)[1]).toMatchObject({
      via: 'PauseTask',
      principal: 'alice',
      mode: 'interrupt_immediate',
      entries: [call.seq, answer.seq],
    });
  });

  it('credits an AwaitTaskResumption only with a pause that began after the call, not one it found', () => {
    for (const [pausedAt, via, principal] of [
      ['2026-04-30T12:35:00.000Z', 'statusUpdate', null],
      ['2026-04-30T12:36:00.000Z', 'AwaitTaskResumption', 'alice'],
    ] as const) {
      const e = new Entries();
      e.request('m1', 'SendMessage', { message: userMessage('work:1 await:ev') });
      e.result('m1', task('TASK_STATE_WORKING'));
      // The peer's clock read 12:36 before the call: a pause from 12:35 was in force already.
      e.control('c1', 'AdvanceClock', { ms: 60_000 }, 'ops:clock');
      e.result('c1', { now: '2026-04-30T12:36:00.000Z' });
      e.request(
        'a1',
        'AwaitTaskResumption',
        { taskId: TASK, conditions: { onEvent: 'other' } },
        { principal: 'alice' },
      );
      e.result('a1', pauseResult(agentPause({ pausedAt })));
      const [draft, ...more] = suspensions(observeAll(e.list));
      expect(more).toEqual([]);
      expect(draft).toMatchObject({ initiatedBy: 'PAUSE_INITIATOR_AGENT', via, principal });
    }
  });

  it('loses a pause when the task is gone (-32001) while paused (task_gone)', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.request('g1', 'GetTask', { id: TASK });
    const gone = e.error('g1', -32001, 'Task not found');
    const out = observeAll(e.list);
    expect(lost(out).map((l) => [l.reason, l.at])).toEqual([['task_gone', gone.at]]);
  });

  it('loses a pause the task ignores by delivering work after it (pause_ignored)', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.event('s1', paused(clientPause()));
    e.result('p1', pauseResult(clientPause()));
    const work = e.event('s1', artifact(4));
    e.event('s1', artifact(5));
    e.event('s1', working());
    const out = observeAll(e.list);
    expect(lost(out).map((l) => [l.reason, l.at])).toEqual([['pause_ignored', work.at]]);
  });

  it('does not count work already in flight on a stream that has not delivered the pause yet', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.event('s1', artifact(3));
    e.event('s1', paused(clientPause()));
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT }));
    e.result('r1', resumeResult(RESUMED_AT));
    e.event('s1', artifact(4));
    e.event('s1', statusOf('TASK_STATE_COMPLETED'));
    e.end('s1');
    const out = observeAll(e.list);
    expect(lost(out)).toEqual([]);
    expect(findings(out)).toEqual([]);
  });

  it('never loses a normally resumed pause', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(agentPause({ pausedUntil: '2026-04-30T13:04:56.789Z' })));
    e.control('c1', 'FireEvent', { name: 'ci.build.completed:1234' });
    e.event('s1', resumed({ cause: 'condition_fired', resumedAt: '2026-04-30T12:40:00.000Z' }));
    e.result('c1', { fired: 1 });
    e.control('c2', 'AdvanceClock', { ms: 3_600_000 });
    e.result('c2', { now: '2026-04-30T13:40:00.000Z' });
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_WORKING'));
    e.end('s1');
    const out = observeAll(e.list);
    expect(lost(out)).toEqual([]);
    expect(resumptions(out)).toHaveLength(1);
  });
});

describe('PauseObserver: spans', () => {
  it('parents the Suspension on the caller traceparent and links the Resume to it, with ids from the recording', () => {
    const caller = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    const e = new Entries();
    streamingTask(e);
    const req = e.request(
      'p1',
      'PauseTask',
      { taskId: TASK },
      { traceparent: `00-${caller.traceId}-${caller.spanId}-01` },
    );
    e.result('p1', pauseResult(clientPause()));
    const resume = e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.result('r1', resumeResult(RESUMED_AT));
    const out = observeAll(e.list, undefined, RECORDING_ID, 'recording');
    const start = spans(out, 'suspension.start')[0];
    expect(start?.type === 'suspension.start' && start.parent).toEqual(caller);
    const suspensionSpan = { traceId: caller.traceId, spanId: deriveSpanId(RECORDING_ID, `suspension:${req.seq}`) };
    expect(start?.type === 'suspension.start' && start.span).toEqual(suspensionSpan);
    expect(suspensions(out)[0]?.span).toEqual(suspensionSpan);
    const rs = spans(out, 'resume.start')[0];
    expect(rs).toMatchObject({
      span: {
        traceId: deriveTraceId(RECORDING_ID, `resume:${resume.seq}`),
        spanId: deriveSpanId(RECORDING_ID, `resume:${resume.seq}`),
      },
      links: { suspension: suspensionSpan, pipeline: caller },
      attributes: {
        'a2a.link.suspension.trace_id': caller.traceId,
        'a2a.link.suspension.span_id': suspensionSpan.spanId,
        'a2a.link.pipeline.trace_id': caller.traceId,
        'a2a.link.pipeline.span_id': caller.spanId,
      },
    });
    expect(resumptions(out)[0]?.links).toEqual({ suspension: suspensionSpan, pipeline: caller });
  });

  it('puts a Suspension with ids from the pause in its own trace, below the caller, and links the Resume to it', () => {
    const caller = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK }, { traceparent: `00-${caller.traceId}-${caller.spanId}-01` });
    e.result('p1', pauseResult(clientPause()));
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.result('r1', resumeResult(RESUMED_AT));
    const out = observeAll(e.list);
    const suspensionSpan = pauseSpan(TASK, { resumeTokenHash: hashCanonical(TOKEN), pausedAt: null });
    const start = spans(out, 'suspension.start')[0];
    expect(start).toMatchObject({ parent: caller, span: suspensionSpan });
    expect(suspensions(out)[0]?.span).toEqual(suspensionSpan);
    expect(spans(out, 'resume.start')[0]).toMatchObject({ links: { suspension: suspensionSpan, pipeline: caller } });
    expect(resumptions(out)[0]?.links).toEqual({ suspension: suspensionSpan, pipeline: caller });
  });

  it('parents on the task span without a traceparent and ends the task span at its terminal state', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(agentPause()));
    e.event('s1', statusOf('TASK_STATE_CANCELED'));
    const out = observeAll(e.list);
    const taskSpan = {
      traceId: deriveTraceId(RECORDING_ID, `task:${TASK}`),
      spanId: deriveSpanId(RECORDING_ID, `task:${TASK}`),
    };
    expect(spans(out, 'task.start')[0]).toMatchObject({
      span: taskSpan,
      attributes: { 'a2a.task.id': TASK, 'a2a.context.id': CTX, 'gen_ai.conversation.id': CTX },
    });
    expect(spans(out, 'suspension.start')[0]).toMatchObject({ parent: taskSpan });
    expect(spans(out, 'task.end')).toHaveLength(1);
    expect(shape(out).at(-1)).toBe('span:task.end');
  });

  it('puts the pause facts on suspension.end as a2a.* attributes', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK, mode: 'wait_for_completion' }, { principal: 'jwt:sub=bob' });
    e.result('p1', pauseResult(clientPause({ conditions: { onEvent: 'x' }, pausedUntil: '2026-04-30T13:00:00.000Z' })));
    const end = spans(observeAll(e.list), 'suspension.end')[0];
    expect(end?.attributes).toEqual({
      'a2a.task.id': TASK,
      'a2a.context.id': CTX,
      'gen_ai.conversation.id': CTX,
      'a2a.pause.initiated_by': 'PAUSE_INITIATOR_CLIENT',
      'a2a.pause.reason': 'operator review',
      'a2a.pause.via': 'PauseTask',
      'a2a.pause.mode': 'wait_for_completion',
      'a2a.pause.conditions_hash': hashCanonical({ onEvent: 'x' }),
      'a2a.pause.paused_at': '2026-04-30T12:34:56.789Z',
      'a2a.pause.paused_until': '2026-04-30T13:00:00.000Z',
      'a2a.principal': 'jwt:sub=bob',
      'a2a.recording.entry_seq': 6,
      'a2a_replay.rule': 'pending/proven',
      // The state the answer showed (docs/design.md §7, semantic conventions).
      'a2a.task.state': 'TASK_STATE_PAUSED',
    });
  });

  it('ends a PauseTask span in error when the peer refuses the pause', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.error('p1', -32010, 'Task state does not allow this operation');
    const out = observeAll(e.list);
    expect(suspensions(out)).toEqual([]);
    const end = spans(out, 'suspension.end')[0];
    expect(end?.type === 'suspension.end' && end.error).toMatch(/-32010/);
    expect(lost(out)).toEqual([]);
  });
});

describe('PauseObserver: findings', () => {
  it('reports garbage entries with their seq and field and never throws', () => {
    const e = new Entries();
    streamingTask(e);
    e.raw({ xid: 'g0', kind: 'request', http: { method: 'POST', path: '/' }, body: { hello: 'world' } });
    e.raw({
      xid: 'nobody',
      kind: 'response',
      http: { method: 'POST', path: '/' },
      body: { jsonrpc: '2.0', id: 1, result: {} },
    });
    e.request('p1', 'PauseTask', { taskId: TASK, mode: 'sometime' });
    e.event('s1', {
      statusUpdate: {
        taskId: TASK,
        contextId: CTX,
        status: {
          state: 'TASK_STATE_PAUSED',
          pause: { initiatedBy: 'PAUSE_INITIATOR_CLIENT', pausedAt: 'yesterday', resumeToken: 't' },
        },
      },
    });
    e.event('s1', { statusUpdate: { taskId: TASK, contextId: CTX, status: { state: 'TASK_STATE_PAUSED' } } });
    e.event('s1', statusOf('TASK_STATE_COMPLETED'));
    e.event('s1', statusOf('TASK_STATE_WORKING'));
    e.event('s1', { neither: true });
    e.raw({ xid: 's1', kind: 'event', http: { method: 'POST', path: '/' }, bodyText: 'data: not json' });
    const garbage = [
      null,
      42,
      { seq: 'x' },
      { seq: 99, at: 'never', xid: 'a', kind: 'request', http: { method: 'POST', path: '/' } },
      { seq: 100, at: '2026-04-30T12:00:00Z', xid: 'a', kind: 'telegram', http: { method: 'POST', path: '/' } },
    ] as unknown as RecordingEntry[];
    const observer = new PauseObserver({ recordingId: RECORDING_ID });
    const out = [...e.list, ...garbage].flatMap((entry) => observer.observe(entry));
    out.push(...observer.finish(e.nextAt()));
    const got = findings(out).map((f) => [f.code, f.seq, f.field]);
    expect(got).toEqual([
      ['malformed-json-rpc', 5, 'body.jsonrpc'],
      ['orphan-entry', 6, 'xid'],
      ['malformed-params', 7, 'body.params.mode'],
      ['malformed-pause', 8, 'body.result.statusUpdate.status.pause.pausedAt'],
      ['malformed-pause', 9, 'body.result.statusUpdate.status.pause'],
      // PAUSED (entry 9 said so, without its pause) -> COMPLETED, then COMPLETED -> WORKING.
      ['impossible-transition', 10, 'body.result.statusUpdate.status.state'],
      ['impossible-transition', 11, 'body.result.statusUpdate.status.state'],
      ['malformed-result', 12, 'body.result'],
      ['malformed-json-rpc', 13, 'body'],
      ['malformed-entry', null, 'entry'],
      ['malformed-entry', null, 'entry'],
      ['malformed-entry', null, 'entry'],
      ['malformed-entry', 99, 'entry'],
      ['malformed-entry', 100, 'entry'],
    ]);
    expect(suspensions(out)).toEqual([]);
  });

  it('flags a PAUSED -> COMPLETED jump as an impossible transition and a lost pause', () => {
    const e = new Entries();
    streamingTask(e);
    e.event('s1', paused(agentPause()));
    const done = e.event('s1', statusOf('TASK_STATE_COMPLETED'));
    const out = observeAll(e.list);
    expect(findings(out).map((f) => [f.code, f.seq])).toEqual([
      ['impossible-transition', done.seq],
      ['lost-pause', done.seq],
    ]);
    expect(lost(out).map((l) => l.reason)).toEqual(['pause_ignored']);
  });

  it('reports entries fed out of order and keeps going', () => {
    const e = new Entries();
    streamingTask(e);
    const [a, b, ...rest] = e.list;
    const out = observeAll([b, a, ...rest] as RecordingEntry[]);
    expect(findings(out).some((f) => f.code === 'out-of-order' && f.seq === 1)).toBe(true);
  });
});

describe('PauseObserver: determinism', () => {
  it('gives deep-equal outputs for the same entries twice', () => {
    const e = new Entries();
    streamingTask(e);
    e.request('p1', 'PauseTask', { taskId: TASK }, { principal: 'jwt:sub=bob' });
    e.event('s1', paused(clientPause({ pausedUntil: '2026-04-30T13:00:00.000Z' })));
    e.result('p1', pauseResult(clientPause({ pausedUntil: '2026-04-30T13:00:00.000Z' })));
    e.request('ra', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN, input: { x: [1, 2] } });
    e.request('rb', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: RESUMED_AT, hadResumeInput: true }));
    e.error('rb', -32011);
    e.result('ra', resumeResult(RESUMED_AT));
    e.event('s1', paused(agentPause({ resumeToken: 'second' })));
    e.end('s1');
    const first = observeAll(e.list);
    const second = observeAll(structuredClone(e.list));
    expect(second).toEqual(first);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(suspensions(first)).toHaveLength(2);
    expect(resumptions(first)).toHaveLength(2);
    expect(lost(first).map((l) => l.reason)).toEqual(['stream_ended']);
  });

  it('with Suspension span ids from the recording, derives different span ids for different recording ids', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    const a = suspensions(observeAll(e.list, undefined, 'rec-a', 'recording'))[0];
    const b = suspensions(observeAll(e.list, undefined, 'rec-b', 'recording'))[0];
    expect(a?.span.spanId).not.toBe(b?.span.spanId);
  });

  it('with Suspension span ids from the pause, names one pause by one span in every recording', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    const a = suspensions(observeAll(e.list, undefined, 'rec-a'))[0];
    const b = suspensions(observeAll(e.list, undefined, 'rec-b'))[0];
    expect(a?.span).toEqual(b?.span);
    const other = new Entries();
    other.request('p1', 'PauseTask', { taskId: TASK });
    other.result('p1', pauseResult(clientPause({ resumeToken: 'another-token' })));
    expect(suspensions(observeAll(other.list, undefined, 'rec-a'))[0]?.span).not.toEqual(a?.span);
  });
});
