/**
 * Rows of the observer's tables (docs/design.md §14.8) the behaviour suites do not reach, one
 * test per row: each asserts the rule that fired and what it decided.
 */
import { describe, expect, it } from 'vitest';
import { PauseObserver } from '../../src/observe/pause-observer.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import type { ObserverOutput } from '../../src/observe/suspension.js';
import {
  Entries,
  RECORDING_ID,
  TASK,
  TOKEN,
  agentPause,
  clientPause,
  findings,
  lost,
  pauseResult,
  paused,
  resumeResult,
  resumed,
  resumptions,
  spans,
  suspensions,
  task,
  taskObject,
  userMessage,
  working,
} from './entries.js';

/** Observes every entry and the end; returns the outputs and, in order, the rules fired with their fact. */
function run(list: readonly RecordingEntry[], endAt?: string): { out: ObserverOutput[]; fired: string[] } {
  const observer = new PauseObserver({ recordingId: RECORDING_ID });
  const out: ObserverOutput[] = [];
  const fired: string[] = [];
  for (const entry of list) {
    out.push(...observer.observe(entry));
    fired.push(...observer.firedRules.map((f) => f.rule));
  }
  out.push(...observer.finish(endAt ?? list.at(-1)?.at ?? '2026-04-30T13:00:00.000Z'));
  fired.push(...observer.firedRules.map((f) => f.rule));
  return { out, fired };
}

function stream(e: Entries): void {
  e.request('s1', 'SendStreamingMessage', userMessage('work:1 await:approval work:1'));
  e.sseHead('s1');
  e.event('s1', task('TASK_STATE_SUBMITTED'));
  e.event('s1', working());
}

function pausedByCall(e: Entries): void {
  e.request('p1', 'PauseTask', { taskId: TASK });
  e.result('p1', pauseResult(clientPause()));
}

describe('task rows', () => {
  it('task/pause-call-on-finished-task: a pause call on a finished task opens nothing', () => {
    const e = new Entries();
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_COMPLETED'));
    e.request('p1', 'PauseTask', { taskId: TASK });
    const { out, fired } = run(e.list);
    expect(fired).toContain('task/pause-call-on-finished-task');
    expect(spans(out, 'suspension.start')).toEqual([]);
  });

  it('task/announce-outside: a resume announced for a task never seen paused ends a pause outside', () => {
    const e = new Entries();
    stream(e);
    e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: '2026-04-30T12:35:00.000Z' }));
    const { out, fired } = run(e.list);
    expect(fired).toContain('task/announce-outside');
    expect(findings(out).map((f) => f.code)).not.toContain('unmatched-resume');
    expect(resumptions(out)).toMatchObject([
      { taskId: TASK, cause: 'explicit_resume', outcome: 'resumed', resumedAt: '2026-04-30T12:35:00.000Z' },
    ]);
    expect(out.find((o) => o.type === 'resumption')).toMatchObject({
      suspensionKey: null,
      outside: { pausedAt: null, resumeTokenHash: null },
    });
  });

  it('task/announce-repeated: the same outside resume shown again adds no receipt', () => {
    const e = new Entries();
    stream(e);
    e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: '2026-04-30T12:35:00.000Z' }));
    e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: '2026-04-30T12:35:00.000Z' }));
    const { out, fired } = run(e.list);
    expect(fired).toContain('task/announce-repeated');
    expect(resumptions(out)).toHaveLength(1);
  });

  it('task/announce-awaits-resume-call: a resume announced with a ResumeTask in flight waits for its answer', () => {
    const e = new Entries();
    stream(e);
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: '2026-04-30T12:35:00.000Z' }));
    e.result('r1', resumeResult('2026-04-30T12:35:00.000Z'));
    const { out, fired } = run(e.list);
    expect(fired).toContain('task/announce-awaits-resume-call');
    expect(fired).toContain('resume-call/answered-outside');
    expect(resumptions(out)).toHaveLength(1);
  });

  it('task/fire-outside: a FireEvent answer listing a task with no pause observed ends a pause outside', () => {
    const e = new Entries();
    e.control('c1', 'FireEvent', { name: 'approval' });
    e.result('c1', { resumed: [TASK] });
    const { out, fired } = run(e.list);
    expect(fired).toEqual(['task/fire-outside']);
    expect(resumptions(out)).toMatchObject([
      { taskId: TASK, cause: 'condition_fired', outcome: 'resumed', inferred: true, resumedAt: null },
    ]);
    expect(findings(out)).toEqual([]);
  });

  it('task/fire-repeated: a FireEvent answer after the stream showed its outside resume adds no receipt', () => {
    const e = new Entries();
    stream(e);
    e.control('c1', 'FireEvent', { name: 'approval' });
    e.event('s1', resumed({ cause: 'condition_fired', resumedAt: '2026-04-30T12:35:00.000Z' }));
    e.result('c1', { resumed: [TASK] });
    const { out, fired } = run(e.list);
    expect(fired).toContain('task/fire-repeated');
    expect(resumptions(out)).toHaveLength(1);
  });
});

describe('kept-aside and pending rows', () => {
  it('kept-aside/answered-without-pause: a kept-aside call answered once the task finished opens nothing', () => {
    const e = new Entries();
    stream(e);
    e.event('s1', paused(agentPause()));
    e.request('p2', 'PauseTask', { taskId: TASK });
    e.event('s1', task('TASK_STATE_COMPLETED'));
    e.result('p2', pauseResult(agentPause()));
    const { out, fired } = run(e.list);
    expect(fired).toContain('open/pause-call-kept-aside');
    expect(fired).toContain('kept-aside/answered-without-pause');
    expect(spans(out, 'suspension.start')).toHaveLength(1);
  });

  it('kept-aside/call-failed: a kept-aside call that fails opens nothing', () => {
    const e = new Entries();
    pausedByCall(e);
    e.request('p2', 'PauseTask', { taskId: TASK });
    e.error('p2', -32002, 'cannot pause');
    const { out, fired } = run(e.list);
    expect(fired).toContain('kept-aside/call-failed');
    expect(spans(out, 'suspension.start')).toHaveLength(1);
  });

  it('pending/answered-with-proven-pause: a call answered with the pause another proved gets no receipt', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.request('p2', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.result('p2', pauseResult(clientPause()));
    const { out, fired } = run(e.list);
    expect(fired).toContain('pending/answered-with-proven-pause');
    expect(suspensions(out)).toHaveLength(1);
    expect(spans(out, 'suspension.end')).toHaveLength(2);
  });

  it('pending/refused: a pause call answered once the task had finished ends its span in error', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_COMPLETED'));
    e.result('p1', pauseResult(clientPause()));
    const { out, fired } = run(e.list);
    expect(fired).toContain('pending/refused');
    const end = spans(out, 'suspension.end')[0];
    expect(end?.type === 'suspension.end' ? end.error : undefined).toMatch(/cannot be paused in its state/);
    expect(suspensions(out)).toEqual([]);
  });

  it('pending/unanswered: a pause call the recording ends before answering ends its span in error', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    const { out, fired } = run(e.list);
    expect(fired).toEqual(['task/pause-call', 'pending/unanswered']);
    const end = spans(out, 'suspension.end')[0];
    expect(end?.type === 'suspension.end' ? end.error : undefined).toMatch(/before the recording ended/);
  });
});

describe('open rows', () => {
  it('open/new-token-unexplained: PAUSED with a new token on the stream that delivered the pause', () => {
    const e = new Entries();
    stream(e);
    e.event('s1', paused(agentPause()));
    e.event('s1', paused(agentPause({ resumeToken: `${TOKEN}-2` })));
    const { out, fired } = run(e.list);
    expect(fired).toContain('open/new-token-unexplained');
    expect(lost(out).map((l) => l.reason)).toContain('pause_ignored');
    expect(findings(out).map((f) => f.code)).toContain('impossible-transition');
  });

  it('open/announce-while-streaming: a snapshot announcing a resume while a stream carries the task waits', () => {
    const e = new Entries();
    stream(e);
    e.event('s1', paused(agentPause()));
    e.request('g1', 'GetTask', { id: TASK });
    const snapshot = taskObject('TASK_STATE_WORKING');
    snapshot.metadata = {
      previousState: 'TASK_STATE_PAUSED',
      cause: 'condition_fired',
      hadResumeInput: false,
      continueTranscript: true,
      resumedAt: '2026-04-30T12:36:00.000Z',
    };
    e.result('g1', snapshot);
    const { fired } = run(e.list);
    expect(fired).toContain('open/announce-while-streaming');
  });

  it('open/older-news-on-stream: a stream that has not delivered the pause shows older news', () => {
    const e = new Entries();
    stream(e);
    pausedByCall(e);
    e.event('s1', working());
    const { out, fired } = run(e.list);
    expect(fired).toContain('open/older-news-on-stream');
    expect(lost(out).map((l) => l.reason)).toEqual(['recording_ended']);
  });

  it('open/older-news-on-stream: a stream opened after the pause shows the task now; a poll waits for nothing', () => {
    const e = new Entries();
    pausedByCall(e);
    // Resumed elsewhere; then a SubscribeToTask whose first event is the task as it stands now.
    e.request('s2', 'SubscribeToTask', { id: TASK });
    e.sseHead('s2');
    e.event('s2', task('TASK_STATE_WORKING'));
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_WORKING'));
    const observer = new PauseObserver({ recordingId: RECORDING_ID });
    const out: ObserverOutput[] = [];
    const fired: string[] = [];
    const awaited: string[] = [];
    for (const entry of e.list) {
      out.push(...observer.observe(entry));
      fired.push(...observer.firedRules.map((f) => f.rule));
      awaited.push(...observer.awaited);
    }
    expect(fired).not.toContain('open/older-news-on-stream');
    expect(fired).toContain('open/resumed-unexplained');
    expect(lost(out).map((l) => l.reason)).toEqual(['pause_ignored']);
    // The stream will never deliver the pause nor its end: nothing waits for it to.
    expect(awaited).toEqual([]);
    expect(observer.awaits(TASK)).toBe(false);
  });

  it('open/went-back: a poll shows SUBMITTED while PAUSED', () => {
    const e = new Entries();
    pausedByCall(e);
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_SUBMITTED'));
    const { out, fired } = run(e.list);
    expect(fired).toContain('open/went-back');
    expect(lost(out).map((l) => l.reason)).toEqual(['pause_ignored']);
    expect(findings(out).map((f) => f.code)).toContain('impossible-transition');
  });

  it('open/end-deadline-reached: the clock passed the trigger and the recording ends: condition_fired', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause({ conditions: { trigger: { at: '2026-04-30T13:00:00.000Z' } } })));
    e.control('c1', 'AdvanceClock', { minutes: 40 }, 'u:ops');
    e.result('c1', { now: '2026-04-30T13:15:00.000Z' });
    const { out, fired } = run(e.list);
    expect(fired).toContain('open/deadline-reached');
    expect(fired).toContain('open/end-deadline-reached');
    expect(resumptions(out)).toMatchObject([{ cause: 'condition_fired', inferred: true, entries: [2, 3, 4] }]);
  });
});

describe('resuming and resume-call rows', () => {
  function race(e: Entries, calls: string[]): void {
    stream(e);
    e.event('s1', paused(clientPause()));
    for (const xid of calls) e.request(xid, 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.event('s1', resumed({ cause: 'explicit_resume', resumedAt: '2026-04-30T12:36:00.000Z' }));
  }

  it('resuming/loser-out: a racing call fails while two are left, and the race goes on', () => {
    const e = new Entries();
    race(e, ['r1', 'r2', 'r3']);
    e.error('r1', -32010, 'token already used');
    const { fired } = run(e.list);
    expect(fired).toContain('open/announce-resume-race');
    expect(fired).toContain('resuming/loser-out');
  });

  it('resuming/end-announced: the recording ends mid-race; the announced resume stands, no call credited', () => {
    const e = new Entries();
    race(e, ['r1', 'r2']);
    const { out, fired } = run(e.list);
    expect(fired).toContain('resuming/end-announced');
    expect(resumptions(out)).toMatchObject([{ cause: 'explicit_resume', outcome: 'resumed', principal: null }]);
  });

  it('resume-call/answered-outside: a ResumeTask succeeds with a token naming no pause seen here', () => {
    const e = new Entries();
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.result('r1', resumeResult('2026-04-30T12:36:00.000Z'));
    const { out, fired } = run(e.list);
    expect(fired).toContain('resume-call/answered-outside');
    expect(findings(out)).toEqual([]);
    const resumption = out.find((o) => o.type === 'resumption');
    expect(resumption).toMatchObject({
      suspensionKey: null,
      outside: { pausedAt: null, resumeTokenHash: expect.stringMatching(/^sha256:/) as unknown },
      draft: { taskId: TASK, cause: 'explicit_resume', outcome: 'resumed', resumedAt: '2026-04-30T12:36:00.000Z' },
    });
  });

  it('resume-call/answered-unmatched: a ResumeTask succeeds for a pause already resumed', () => {
    const e = new Entries();
    pausedByCall(e);
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.result('r1', resumeResult('2026-04-30T12:36:00.000Z'));
    e.request('r2', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.result('r2', resumeResult('2026-04-30T12:37:00.000Z'));
    const { out, fired } = run(e.list);
    expect(fired).toContain('resume-call/answered-unmatched');
    expect(findings(out).map((f) => f.code)).toContain('unmatched-resume');
  });

  it('resume-call/cancel-answered: a CancelTask no pause end credited is answered', () => {
    const e = new Entries();
    e.request('c1', 'CancelTask', { id: TASK });
    e.result('c1', taskObject('TASK_STATE_CANCELED'));
    const { out, fired } = run(e.list);
    expect(fired).toContain('resume-call/cancel-answered');
    expect(resumptions(out)).toEqual([]);
  });

  it('resume-call/unreadable-answer: a ResumeTask answer that is no resume result ends its span in error', () => {
    const e = new Entries();
    pausedByCall(e);
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    e.result('r1', { unexpected: true });
    const { out, fired } = run(e.list);
    expect(fired).toContain('resume-call/unreadable-answer');
    const end = spans(out, 'resume.end')[0];
    expect(end?.type === 'resume.end' ? end.error : undefined).toMatch(/malformed/);
  });

  it('resume-call/unanswered: a ResumeTask the recording ends before answering ends its span in error', () => {
    const e = new Entries();
    pausedByCall(e);
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN });
    const { out, fired } = run(e.list);
    expect(fired).toContain('resume-call/unanswered');
    const end = spans(out, 'resume.end')[0];
    expect(end?.type === 'resume.end' ? end.error : undefined).toMatch(/no answer to ResumeTask/);
  });
});
