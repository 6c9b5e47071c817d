/**
 * Same verdicts whatever the client shows (docs/design.md §14.3): every client style (a stream, a
 * resubscribe, a blocking SendMessage, polling with GetTask or ListTasks, a stream then polls) times
 * every way a pause ends, from entries shaped as the reference peer sends them. Each yields one
 * ResumptionReceipt with the right cause, outcome and `inferred`, no LostPause span and no lost-pause
 * finding.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/canonical/canonical-json.js';
import type { ResumeConditions, TaskPause } from '../../src/protocol/types.js';
import {
  Entries,
  TASK,
  TOKEN,
  agentPause,
  clientPause,
  findings,
  lost,
  observeAll,
  pauseResult,
  paused,
  resumeResult,
  resumed,
  resumptions,
  statusOf,
  suspensions,
  task,
  taskObject,
  userMessage,
  working,
} from './entries.js';

const PAUSED_AT = '2026-04-30T12:34:56.789Z';
const LATER = '2026-04-30T13:10:00.000Z';
const TRIGGER_AT = '2026-04-30T12:40:00.000Z';

type Style = 'stream' | 'resubscribe' | 'blocking' | 'poll-get' | 'poll-list' | 'stream-then-poll';
type Path =
  | 'explicit-resume'
  | 'condition-fired'
  | 'trigger'
  | 'timeout-resume'
  | 'timeout-fail'
  | 'external-event'
  | 'cancel'
  | 'failure';

const STYLES: Style[] = ['stream', 'resubscribe', 'blocking', 'poll-get', 'poll-list', 'stream-then-poll'];
const PATHS: Path[] = [
  'explicit-resume',
  'condition-fired',
  'trigger',
  'timeout-resume',
  'timeout-fail',
  'external-event',
  'cancel',
  'failure',
];

/** Receipt cause and outcome each path must produce. */
const EXPECTED: Record<Path, { cause: string; outcome: string }> = {
  'explicit-resume': { cause: 'explicit_resume', outcome: 'resumed' },
  'condition-fired': { cause: 'condition_fired', outcome: 'resumed' },
  trigger: { cause: 'condition_fired', outcome: 'resumed' },
  'timeout-resume': { cause: 'timeout', outcome: 'resumed' },
  'timeout-fail': { cause: 'timeout', outcome: 'failed' },
  'external-event': { cause: 'external_event', outcome: 'resumed' },
  cancel: { cause: 'canceled', outcome: 'canceled' },
  failure: { cause: 'failure', outcome: 'failed' },
};

function conditionsOf(path: Path): ResumeConditions | undefined {
  switch (path) {
    case 'condition-fired':
    case 'external-event':
    case 'failure':
      return { onEvent: 'approval' };
    case 'trigger':
      return { trigger: { at: TRIGGER_AT } };
    case 'timeout-resume':
      return { timeout: { durationMinutes: 30, onTimeout: 'resume' } };
    case 'timeout-fail':
      return { timeout: { durationMinutes: 30, onTimeout: 'fail' } };
    case 'explicit-resume':
    case 'cancel':
      return undefined;
    default: {
      const never: never = path;
      return never;
    }
  }
}

/** The pause of each path: a caller pause for ResumeTask and CancelTask, an agent self-park otherwise. */
function pauseOf(path: Path): TaskPause {
  const conditions = conditionsOf(path);
  if (conditions === undefined) return clientPause({ pausedAt: PAUSED_AT });
  const pause = agentPause({ pausedAt: PAUSED_AT, reason: 'waiting', conditions });
  if (conditions.timeout) pause.pausedUntil = '2026-04-30T13:04:56.789Z';
  return pause;
}

const streaming = (style: Style): boolean => style === 'stream' || style === 'resubscribe';

/** The stream the end is seen on, for streaming styles. */
const endStream = (style: Style): string => (style === 'resubscribe' ? 's2' : 's1');

/** One session: the task starts, pauses, ends by `path`, and completes (or stays ended). */
function session(style: Style, path: Path): Entries {
  const e = new Entries();
  const pause = pauseOf(path);
  const caller = conditionsOf(path) === undefined;
  // ---- the task starts and the pause is seen ----
  switch (style) {
    case 'stream':
    case 'resubscribe':
    case 'stream-then-poll':
      e.request('s1', 'SendStreamingMessage', userMessage('work:1 await:approval work:1'));
      e.sseHead('s1');
      e.event('s1', task('TASK_STATE_SUBMITTED'));
      e.event('s1', working());
      if (style === 'resubscribe') e.broke('s1', 'client went away');
      if (caller) {
        e.request('p1', 'PauseTask', { taskId: TASK, reason: 'operator review' }, { principal: 'jwt:sub=bob' });
        if (style !== 'resubscribe') e.event('s1', paused(pause));
        e.result('p1', pauseResult(pause));
      } else if (style !== 'resubscribe') {
        e.event('s1', paused(pause));
      }
      if (style === 'resubscribe') {
        e.request('s2', 'SubscribeToTask', { id: TASK });
        e.sseHead('s2');
        e.event('s2', { task: taskObject('TASK_STATE_PAUSED', pause) });
      }
      if (style === 'stream-then-poll') e.end('s1');
      break;
    case 'blocking':
      e.request('m1', 'SendMessage', userMessage('work:1 await:approval work:1'));
      if (caller) {
        e.request('p1', 'PauseTask', { taskId: TASK, reason: 'operator review' }, { principal: 'jwt:sub=bob' });
        e.result('p1', pauseResult(pause));
      }
      e.result('m1', { task: taskObject('TASK_STATE_PAUSED', pause) });
      break;
    case 'poll-get':
    case 'poll-list':
      e.request('m1', 'SendMessage', { ...userMessage('work:1 await:approval work:1'), configuration: {} });
      e.result('m1', { task: taskObject('TASK_STATE_WORKING') });
      if (caller) {
        e.request('p1', 'PauseTask', { taskId: TASK, reason: 'operator review' }, { principal: 'jwt:sub=bob' });
        e.result('p1', pauseResult(pause));
      }
      poll(e, style, 'TASK_STATE_PAUSED', pause, 'g1');
      break;
    default: {
      const never: never = style;
      return never;
    }
  }
  // ---- the pause ends ----
  const s = endStream(style);
  const stream = streaming(style);
  const afterState = (state: string): void => {
    if (stream) e.event(s, statusOf(state));
    else poll(e, style, state, undefined, 'g2');
  };
  switch (path) {
    case 'explicit-resume':
      e.request('r1', 'ResumeTask', { taskId: TASK, resumeToken: TOKEN }, { principal: 'jwt:sub=carol' });
      if (stream) e.event(s, resumed({ cause: 'explicit_resume', resumedAt: LATER }));
      e.result('r1', resumeResult(LATER));
      break;
    case 'condition-fired':
    case 'external-event': {
      const params =
        path === 'condition-fired' ? { name: 'approval' } : { name: 'operator.override', payload: { taskId: TASK } };
      e.control('c1', 'FireEvent', params, 'ops:ci-bot');
      const cause = path === 'condition-fired' ? 'condition_fired' : 'external_event';
      if (stream) e.event(s, resumed({ cause, resumedAt: LATER }));
      e.result('c1', { resumed: [TASK] });
      break;
    }
    case 'trigger':
    case 'timeout-resume':
    case 'timeout-fail': {
      e.control('c1', 'AdvanceClock', { ms: 40 * 60_000 }, 'ops:clock');
      if (stream) {
        if (path === 'timeout-fail') e.event(s, statusOf('TASK_STATE_FAILED', '2026-04-30T13:04:56.789Z'));
        else e.event(s, resumed({ cause: path === 'trigger' ? 'condition_fired' : 'timeout', resumedAt: LATER }));
      }
      e.result('c1', { now: '2026-04-30T13:14:56.789Z' });
      if (!stream && path === 'timeout-fail') afterState('TASK_STATE_FAILED');
      break;
    }
    case 'cancel':
      e.request('x1', 'CancelTask', { id: TASK }, { principal: 'jwt:sub=dave' });
      if (stream) e.event(s, statusOf('TASK_STATE_CANCELED', LATER));
      e.result('x1', taskObject('TASK_STATE_CANCELED'));
      break;
    case 'failure':
      afterState('TASK_STATE_FAILED');
      break;
    default: {
      const never: never = path;
      return never;
    }
  }
  // ---- and completes ----
  const ended = path === 'timeout-fail' || path === 'cancel' || path === 'failure';
  if (!ended) afterState('TASK_STATE_COMPLETED');
  if (stream) e.end(s);
  return e;
}

/** A GetTask or ListTasks poll answered with the task in `state`. */
function poll(e: Entries, style: Style, state: string, pause: TaskPause | undefined, xid: string): void {
  if (style === 'poll-list') {
    e.request(xid, 'ListTasks', {});
    e.result(xid, { tasks: [taskObject(state, pause)] as unknown as JsonObject[] });
  } else {
    e.request(xid, 'GetTask', { id: TASK });
    e.result(xid, taskObject(state, pause));
  }
}

/** Whether an A2A message of the peer stated the end (else it is inferred from the recording). */
function announced(style: Style, path: Path): boolean {
  if (streaming(style)) return true;
  return path === 'explicit-resume' || path === 'cancel';
}

describe.each(STYLES)('a %s client', (style) => {
  it.each(PATHS)('gets one receipt with the right cause and no lost pause when it ends by %s', (path) => {
    const e = session(style, path);
    const out = observeAll(e.list);
    expect(suspensions(out)).toHaveLength(1);
    const all = resumptions(out);
    expect(all).toHaveLength(1);
    const [r] = all;
    expect({ cause: r?.cause, outcome: r?.outcome }).toEqual(EXPECTED[path]);
    expect(r?.inferred).toBe(!announced(style, path));
    expect(lost(out)).toEqual([]);
    expect(findings(out).filter((f) => f.code === 'lost-pause')).toEqual([]);
    expect(findings(out)).toEqual([]);
    if (path === 'condition-fired' || path === 'external-event') expect(r?.principal).toBe('ops:ci-bot');
    if (path === 'explicit-resume') expect(r?.principal).toBe('jwt:sub=carol');
    if (path === 'cancel') expect(r?.principal).toBe('jwt:sub=dave');
    if (r?.inferred) {
      // An inferred end cites the control call that proves it (and never an entry after the last one).
      const control = e.list.find((entry) => entry.xid === 'c1');
      if (control) expect(r.entries).toContain(control.seq);
      expect(Math.max(...r.entries)).toBeLessThanOrEqual(e.lastSeq);
    }
  });
});
