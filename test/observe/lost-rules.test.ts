/**
 * The LostPause rules of docs/design.md §14.5, one test per rule with the example the design
 * gives, and the near misses that must not be lost.
 */
import { describe, expect, it } from 'vitest';
import {
  Entries,
  TASK,
  agentPause,
  artifact,
  clientPause,
  findings,
  lost,
  observeAll,
  pauseResult,
  paused,
  resumptions,
  task,
  taskObject,
  userMessage,
  working,
} from './entries.js';

function stream(e: Entries): void {
  e.request('s1', 'SendStreamingMessage', userMessage('work:1 await:approval work:1'));
  e.sseHead('s1');
  e.event('s1', task('TASK_STATE_SUBMITTED'));
  e.event('s1', working());
}

describe('LostPause rules', () => {
  it('recording_ended: the recording ends while the task was last seen PAUSED', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_PAUSED', clientPause()));
    const out = observeAll(e.list);
    expect(lost(out).map((l) => [l.reason, l.at])).toEqual([['recording_ended', e.nextAt()]]);
    expect(resumptions(out)).toEqual([]);
  });

  it('stream_ended: every stream that carried the pause ended and nothing later shows the task', () => {
    const e = new Entries();
    stream(e);
    e.event('s1', paused(agentPause()));
    e.end('s1');
    expect(lost(observeAll(e.list)).map((l) => l.reason)).toEqual(['stream_ended']);
  });

  it('task_gone: the peer answers -32001 for the task while it is PAUSED', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.request('g1', 'GetTask', { id: TASK });
    const gone = e.error('g1', -32001, 'Task not found');
    expect(lost(observeAll(e.list)).map((l) => [l.reason, l.at])).toEqual([['task_gone', gone.at]]);
  });

  it('pause_ignored: the task does work on a stream that had delivered the pause', () => {
    const e = new Entries();
    stream(e);
    e.event('s1', paused(agentPause()));
    const work = e.event('s1', artifact(2));
    expect(lost(observeAll(e.list)).map((l) => [l.reason, l.at])).toEqual([['pause_ignored', work.at]]);
  });

  it('pause_ignored: a poll shows a caller pause over, and nothing in the recording can have resumed it', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.request('g1', 'GetTask', { id: TASK });
    const after = e.result('g1', taskObject('TASK_STATE_COMPLETED'));
    const out = observeAll(e.list);
    expect(lost(out).map((l) => [l.reason, l.at])).toEqual([['pause_ignored', after.at]]);
    expect(findings(out).find((f) => f.code === 'lost-pause')?.message).toMatch(/nothing in the recording/);
  });

  it('paused_until_passed: the peer still shows the pause PAUSED after its pausedUntil passed', () => {
    const pause = agentPause({
      conditions: { timeout: { durationMinutes: 30, onTimeout: 'resume' } },
      pausedUntil: '2026-04-30T13:04:56.789Z',
    });
    const e = new Entries();
    e.request('g0', 'GetTask', { id: TASK });
    e.result('g0', taskObject('TASK_STATE_PAUSED', pause));
    e.control('c1', 'AdvanceClock', { ms: 40 * 60_000 });
    e.result('c1', { now: '2026-04-30T13:14:56.789Z' });
    e.request('g1', 'GetTask', { id: TASK });
    const still = e.result('g1', taskObject('TASK_STATE_PAUSED', pause));
    const out = observeAll(e.list);
    expect(lost(out).map((l) => [l.reason, l.at])).toEqual([['paused_until_passed', still.at]]);
    expect(resumptions(out)).toEqual([]);
  });
  it('paused_until_passed: the peer still shows the pause PAUSED after the clock passed its timeout', () => {
    const pause = clientPause({ conditions: { timeout: { durationMinutes: 30, onTimeout: 'fail' } } });
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(pause));
    e.control('c1', 'AdvanceClock', { ms: 40 * 60_000 });
    e.result('c1', { now: '2026-04-30T13:14:56.789Z' });
    e.request('g1', 'GetTask', { id: TASK });
    const still = e.result('g1', taskObject('TASK_STATE_PAUSED', pause));
    const out = observeAll(e.list);
    expect(lost(out).map((l) => [l.reason, l.at])).toEqual([['paused_until_passed', still.at]]);
    expect(findings(out).find((f) => f.code === 'lost-pause')?.message).toMatch(/30-minute timeout passed/);
    expect(resumptions(out)).toEqual([]);
  });

  it('keeps a pause whose timeout the clock has not reached when the peer still shows it PAUSED', () => {
    const pause = clientPause({ conditions: { timeout: { durationMinutes: 30, onTimeout: 'fail' } } });
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(pause));
    e.control('c1', 'AdvanceClock', { ms: 10 * 60_000 });
    e.result('c1', { now: '2026-04-30T12:44:56.789Z' });
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_PAUSED', pause));
    e.request('f1', 'GetTask', { id: TASK });
    e.result('f1', taskObject('TASK_STATE_FAILED'));
    const out = observeAll(e.list);
    expect(lost(out)).toEqual([]);
    expect(resumptions(out)).toMatchObject([{ outcome: 'failed' }]);
  });
});

describe('near misses: pauses that came back', () => {
  it('closes a pause whose stream ended when a later poll shows it resumed by its event', () => {
    const e = new Entries();
    stream(e);
    e.event('s1', paused(agentPause({ conditions: { onEvent: 'approval' } })));
    e.end('s1');
    const fire = e.control('c1', 'FireEvent', { name: 'approval' });
    const answer = e.result('c1', { resumed: [TASK] });
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_COMPLETED'));
    const out = observeAll(e.list);
    expect(lost(out)).toEqual([]);
    expect(resumptions(out)).toMatchObject([
      { cause: 'condition_fired', outcome: 'resumed', inferred: true, entries: [5, fire.seq, answer.seq] },
    ]);
  });

  it('never credits a FireEvent whose answer did not list the task with the end of its pause', () => {
    // The pause timed out unseen; a FireEvent of its event came after and resumed nothing.
    const e = new Entries();
    const conditions = { onEvent: 'go', timeout: { durationMinutes: 1, onTimeout: 'resume' as const } };
    e.request('g0', 'GetTask', { id: TASK });
    e.result('g0', taskObject('TASK_STATE_PAUSED', agentPause({ pausedAt: '2026-01-01T00:00:00.000Z', conditions })));
    e.control('c1', 'FireEvent', { name: 'go' });
    e.result('c1', { resumed: [] });
    e.request('g1', 'GetTask', { id: TASK });
    const shown = taskObject('TASK_STATE_WORKING');
    (shown.status as Record<string, unknown>).timestamp = '2026-01-01T00:01:00.000Z';
    e.result('g1', shown);
    const out = observeAll(e.list);
    expect(resumptions(out)).toMatchObject([{ cause: 'timeout', inferred: true, principal: null }]);
  });

  it('infers condition_fired from the declared onEvent when the event came from outside the recording', () => {
    const e = new Entries();
    e.request('g0', 'GetTask', { id: TASK });
    e.result('g0', taskObject('TASK_STATE_PAUSED', agentPause({ conditions: { onEvent: 'ci.done' } })));
    e.request('g1', 'GetTask', { id: TASK });
    const after = e.result('g1', taskObject('TASK_STATE_WORKING'));
    const out = observeAll(e.list);
    expect(lost(out)).toEqual([]);
    expect(resumptions(out)).toMatchObject([
      { cause: 'condition_fired', inferred: true, principal: null, entries: [2, after.seq] },
    ]);
  });

  it('leaves the verdict to a ResumeTask in flight when a poll shows the task WORKING first', () => {
    const e = new Entries();
    e.request('p1', 'PauseTask', { taskId: TASK });
    e.result('p1', pauseResult(clientPause()));
    e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: clientPause().resumeToken }, { principal: 'u:carol' });
    e.request('g1', 'GetTask', { id: TASK });
    e.result('g1', taskObject('TASK_STATE_WORKING'));
    e.result('r1', {
      taskId: TASK,
      state: 'TASK_STATE_WORKING',
      previousState: 'TASK_STATE_PAUSED',
      cause: 'explicit_resume',
      resumedAt: '2026-04-30T12:40:00.000Z',
    });
    const out = observeAll(e.list);
    expect(lost(out)).toEqual([]);
    expect(resumptions(out)).toMatchObject([{ cause: 'explicit_resume', inferred: false, principal: 'u:carol' }]);
  });

  it('reads RFC resume metadata a peer keeps on Task.metadata, and ignores it when it predates the pause', () => {
    const meta = (resumedAt: string) => ({
      previousState: 'TASK_STATE_PAUSED',
      cause: 'external_event',
      hadResumeInput: false,
      continueTranscript: true,
      resumedAt,
    });
    const fresh = new Entries();
    fresh.request('g0', 'GetTask', { id: TASK });
    fresh.result('g0', taskObject('TASK_STATE_PAUSED', agentPause()));
    fresh.request('g1', 'GetTask', { id: TASK });
    fresh.result('g1', { ...taskObject('TASK_STATE_WORKING'), metadata: meta('2026-04-30T12:50:00.000Z') });
    expect(resumptions(observeAll(fresh.list))).toMatchObject([
      { cause: 'external_event', inferred: false, resumedAt: '2026-04-30T12:50:00.000Z' },
    ]);

    const stale = new Entries();
    stale.request('g0', 'GetTask', { id: TASK });
    stale.result('g0', {
      ...taskObject('TASK_STATE_PAUSED', clientPause()),
      metadata: meta('2026-04-30T12:00:00.000Z'),
    });
    stale.request('g1', 'GetTask', { id: TASK });
    stale.result('g1', { ...taskObject('TASK_STATE_WORKING'), metadata: meta('2026-04-30T12:00:00.000Z') });
    const out = observeAll(stale.list);
    expect(resumptions(out)).toEqual([]);
    expect(lost(out).map((l) => l.reason)).toEqual(['pause_ignored']);
  });
});
