import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { planReplay } from '../../src/replay/lanes.js';
import { type LiveAnswer, ReplayLedger } from '../../src/replay/ledger.js';
import { IdMap } from '../../src/replay/substitution.js';
import { entry, result, rpc, selfParkRecording, statusUpdate } from './fixtures.js';

function live(kind: LiveAnswer['kind'], body?: JsonValue): LiveAnswer {
  const a: LiveAnswer = { kind, http: { method: 'POST', path: '/', status: 200 } };
  if (body !== undefined) a.body = body;
  return a;
}

function exchange(ledger: ReplayLedger, xid: string) {
  const ex = ledger.plan.exchanges.find((x) => x.xid === xid);
  if (!ex) throw new Error(`no exchange ${xid}`);
  return ex;
}

const livePause = {
  initiatedBy: 'PAUSE_INITIATOR_AGENT',
  resumeToken: 'tok-live-9',
  pausedAt: '2026-05-05T10:00:00.000Z',
  resumable: true,
};

describe('planReplay', () => {
  it('puts a task’s exchanges in its lane and control calls in no lane', () => {
    const plan = planReplay(selfParkRecording());
    expect(plan.exchanges.map((x) => [x.xid, x.method, x.lane])).toEqual([
      ['x1', 'SendStreamingMessage', 'task:task-rec-1'],
      ['x2', 'FireEvent', null],
      ['x3', 'GetTask', 'task:task-rec-1'],
    ]);
    expect(plan.exchanges[0]?.events.map((e) => e.seq)).toEqual([3, 4, 6, 10]);
    expect(plan.exchanges[0]?.terminal?.seq).toBe(11);
  });

  it('rejects an answer without an earlier request, naming its seq', () => {
    expect(() => planReplay([entry(1, 'x9', 'response', result({}))])).toThrow(
      /entry seq 1 \(xid x9\): a response with no earlier request/,
    );
  });
});

describe('ReplayLedger', () => {
  it('holds a control call until every earlier entry came, then maps live ids back', () => {
    const ledger = new ReplayLedger(planReplay(selfParkRecording()), new IdMap());
    const x1 = exchange(ledger, 'x1');
    const x2 = exchange(ledger, 'x2');
    expect(ledger.blocker(x1)).toBeUndefined();
    expect(ledger.blocker(x2)?.seq).toBe(1);
    ledger.sent(x1);
    ledger.live(x1, live('response'));
    ledger.live(
      x1,
      live(
        'event',
        result({ task: { id: 'task-live-1', contextId: 'ctx-live', status: { state: 'TASK_STATE_SUBMITTED' } } }),
      ),
    );
    expect(ledger.blocker(x2)?.seq).toBe(4);
    const paused = ledger.live(
      x1,
      live('event', statusUpdate('task-live-1', 'TASK_STATE_PAUSED', { pause: livePause })),
    );
    expect(ledger.blocker(x2)).toBeUndefined();
    if (!paused) throw new Error('the PAUSED event was dropped');
    expect(paused.seq).toBe(4);
    expect(paused.at).toBe(selfParkRecording()[3]?.at);
    expect(JSON.stringify(paused.body)).toContain('tok-rec-1');
    expect(JSON.stringify(paused.body)).not.toContain('tok-live-9');
    expect(ledger.ids.liveOf('task-rec-1')).toBe('task-live-1');
  });

  it('holds a lane request behind earlier entries of its lane and of barriers only', () => {
    const ledger = new ReplayLedger(planReplay(selfParkRecording()), new IdMap());
    const [x1, x2, x3] = ['x1', 'x2', 'x3'].map((x) => exchange(ledger, x)) as [never, never, never];
    ledger.sent(x1);
    for (const b of [
      undefined,
      result({ task: { id: 't', status: { state: 'TASK_STATE_SUBMITTED' } } }),
      statusUpdate('t', 'TASK_STATE_PAUSED', { pause: livePause }),
    ]) {
      ledger.live(x1, b === undefined ? live('response') : live('event', b));
    }
    ledger.sent(x2);
    expect(ledger.blocker(x3)?.seq).toBe(6);
    ledger.live(x1, live('event', statusUpdate('t', 'TASK_STATE_WORKING')));
    expect(ledger.blocker(x3)?.seq).toBe(7);
    ledger.live(x2, live('response', result({})));
    expect(ledger.blocker(x3)).toBeUndefined();
  });

  it('reports another state, an extra event with its closest recorded one, and events that never came', () => {
    const ledger = new ReplayLedger(planReplay(selfParkRecording()), new IdMap());
    const x1 = exchange(ledger, 'x1');
    ledger.sent(x1);
    ledger.live(x1, live('response'));
    ledger.live(x1, live('event', result({ task: { id: 't', status: { state: 'TASK_STATE_SUBMITTED' } } })));
    ledger.live(x1, live('event', statusUpdate('t', 'TASK_STATE_WORKING')));
    ledger.live(x1, live('end'));
    const drift = ledger.finish();
    const mismatch = drift.find((d) => d.type === 'mismatch' && d.expected.seq === 4);
    expect(mismatch?.type === 'mismatch' ? mismatch.differences : []).toContain(
      'state: TASK_STATE_PAUSED → TASK_STATE_WORKING',
    );
    const missing = drift.filter((d) => d.type === 'missing').map((d) => d.expected.seq);
    expect(missing).toEqual([5, 6, 7, 8, 9, 10]);
    const six = drift.find((d) => d.type === 'missing' && d.expected.seq === 6);
    expect(six?.type === 'missing' ? six.reason : '').toMatch(/stream ended/);
  });

  it('keeps an extra live event right after the entry it followed, under a fresh seq', () => {
    const entries: RecordingEntry[] = [
      entry(1, 'x1', 'request', rpc('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } })),
      entry(2, 'x1', 'response'),
      entry(3, 'x1', 'event', statusUpdate('t', 'TASK_STATE_WORKING')),
      entry(4, 'x1', 'end'),
    ];
    const ledger = new ReplayLedger(planReplay(entries), new IdMap());
    const x1 = exchange(ledger, 'x1');
    ledger.sent(x1);
    ledger.live(x1, live('response'));
    ledger.live(x1, live('event', statusUpdate('t', 'TASK_STATE_WORKING')));
    ledger.live(x1, live('event', statusUpdate('t', 'TASK_STATE_PAUSED')));
    ledger.live(x1, live('end'));
    expect(ledger.replayed().map((e) => e.seq)).toEqual([1, 2, 3, 5, 4]);
    const extra = ledger.finish().find((d) => d.type === 'extra');
    expect(extra).toMatchObject({
      actual: { seq: 5 },
      closest: { seq: 3 },
      differences: ['state: TASK_STATE_WORKING → TASK_STATE_PAUSED'],
    });
  });
});

describe('ReplayLedger task creation order', () => {
  const send = (seq: number, xid: string, method = 'SendMessage'): RecordingEntry =>
    entry(seq, xid, 'request', rpc(method, { message: { messageId: xid, role: 'ROLE_USER', parts: [] } }));
  const task = (id: string): JsonValue => result({ task: { id, status: { state: 'TASK_STATE_WORKING' } } });
  const created = (id: string): LiveAnswer => live('response', task(id));

  it('holds a create behind the answers that named the tasks created before it was sent, and no others', () => {
    // a answered before b and c went; b and c overlap: c went before b's answer.
    const entries = [
      send(1, 'a'),
      entry(2, 'a', 'response', task('task-a')),
      send(3, 'b'),
      send(4, 'c'),
      entry(5, 'b', 'response', task('task-b')),
      entry(6, 'c', 'response', task('task-c')),
      send(7, 'd'),
      entry(8, 'd', 'response', task('task-d')),
      entry(9, 'g', 'request', rpc('GetTask', { id: 'task-a' })),
    ];
    const ledger = new ReplayLedger(planReplay(entries), new IdMap());
    const [a, b, c, d, g] = ['a', 'b', 'c', 'd', 'g'].map((x) => exchange(ledger, x)) as [
      never,
      never,
      never,
      never,
      never,
    ];
    ledger.sent(a);
    expect(ledger.blocker(b)?.seq).toBe(2);
    expect(ledger.blocker(c)?.seq).toBe(2);
    ledger.live(a, created('task-live-a'));
    expect(ledger.blocker(b)).toBeUndefined();
    expect(ledger.blocker(c)).toBeUndefined();
    ledger.sent(c);
    ledger.live(c, created('task-live-c'));
    ledger.sent(b);
    expect(ledger.blocker(d)?.seq).toBe(5);
    // A request that creates nothing waits for its own lane only.
    expect(ledger.blocker(g)).toBeUndefined();
    ledger.live(b, created('task-live-b'));
    expect(ledger.blocker(d)).toBeUndefined();
  });

  it('holds a create behind a stream’s first event naming its task, not behind the head that names none', () => {
    const entries = [
      send(1, 's', 'SendStreamingMessage'),
      entry(2, 's', 'response'),
      send(3, 'early'),
      entry(4, 's', 'event', statusUpdate('task-s', 'TASK_STATE_WORKING')),
      entry(5, 'early', 'response', task('task-early')),
      send(6, 'late'),
      entry(7, 'late', 'response', task('task-late')),
      entry(8, 's', 'end'),
    ];
    const ledger = new ReplayLedger(planReplay(entries), new IdMap());
    const [s, early, late] = ['s', 'early', 'late'].map((x) => exchange(ledger, x)) as [never, never, never];
    ledger.sent(s);
    // The head came before `early` went, the task's first event after: they overlap.
    expect(ledger.blocker(early)).toBeUndefined();
    ledger.live(s, live('response'));
    ledger.sent(early);
    ledger.live(early, created('task-live-early'));
    expect(ledger.blocker(late)?.seq).toBe(4);
    ledger.live(s, live('event', statusUpdate('task-live-s', 'TASK_STATE_WORKING')));
    expect(ledger.blocker(late)).toBeUndefined();
  });

  it('does not hold a create behind a message-only reply, which created no task', () => {
    const entries = [
      send(1, 'm'),
      entry(2, 'm', 'response', result({ message: { messageId: 'r', role: 'ROLE_AGENT', parts: [] } })),
      send(3, 'n'),
      entry(4, 'n', 'response', task('task-n')),
    ];
    const ledger = new ReplayLedger(planReplay(entries), new IdMap());
    ledger.sent(exchange(ledger, 'm'));
    expect(ledger.blocker(exchange(ledger, 'n'))).toBeUndefined();
  });
});

describe('ReplayLedger streams', () => {
  /** A streamed task: WORKING, `beats` WORKING heartbeats, an artifact (unless left out), COMPLETED. */
  function streamed(taskId: string, beats: number, withArtifact = true): JsonValue[] {
    return [
      result({ task: { id: taskId, contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } }),
      ...Array.from({ length: beats }, () => statusUpdate(taskId, 'TASK_STATE_WORKING')),
      ...(withArtifact ? [result({ artifactUpdate: { taskId, artifact: { artifactId: 'report' } } })] : []),
      statusUpdate(taskId, 'TASK_STATE_COMPLETED'),
    ];
  }
  function recording(): RecordingEntry[] {
    const events = streamed('task-rec-7', 3);
    return [
      entry(1, 'x1', 'request', rpc('SendStreamingMessage', { message: { messageId: 'm', parts: [] } })),
      entry(2, 'x1', 'response'),
      ...events.map((body, i) => entry(3 + i, 'x1', 'event', body)),
      entry(3 + events.length, 'x1', 'end'),
    ];
  }
  function replay(events: JsonValue[]): ReturnType<ReplayLedger['finish']> {
    const ledger = new ReplayLedger(planReplay(recording()), new IdMap());
    const x1 = exchange(ledger, 'x1');
    ledger.sent(x1);
    ledger.live(x1, live('response'));
    for (const body of events) ledger.live(x1, live('event', body));
    ledger.live(x1, live('end'));
    return ledger.finish();
  }

  it('compares the states and artifacts a stream carries, not how many heartbeats came', () => {
    for (const beats of [0, 1, 3, 7]) expect(replay(streamed('task-live-7', beats)), `${beats} beats`).toEqual([]);
  });

  it('names a missing artifact as drift, however many heartbeats came', () => {
    const drift = replay(streamed('task-live-7', 5, false));
    expect(drift.map((d) => d.type)).toEqual(['mismatch', 'missing']);
    expect(drift[0]).toMatchObject({ expected: { shape: 'event artifactUpdate' } });
    expect(drift.some((d) => d.type === 'extra')).toBe(false);
  });

  it('lets a request recorded after the third heartbeat go once the live stream shows WORKING', () => {
    const ledger = new ReplayLedger(planReplay(recording()), new IdMap());
    const x1 = exchange(ledger, 'x1');
    ledger.sent(x1);
    ledger.live(x1, live('response'));
    ledger.live(x1, live('event', streamed('task-live-7', 0)[0]));
    // Seqs 4–6 are the recorded heartbeats: nothing before seq 7 is awaited any more.
    expect(ledger.blockerAt(7, 'task:task-rec-7')).toBeUndefined();
    expect(ledger.blockerAt(8, 'task:task-rec-7')?.seq).toBe(7);
  });

  it('waits for a WORKING that carries a message: a "pause requested" update is content, not a heartbeat', () => {
    const said = statusUpdate('task-rec-7', 'TASK_STATE_WORKING', {
      message: { messageId: 'pm', role: 'ROLE_AGENT', parts: [{ text: 'pause requested' }] },
    });
    const events = [
      streamed('task-rec-7', 0)[0] as JsonValue,
      said,
      statusUpdate('task-rec-7', 'TASK_STATE_COMPLETED'),
    ];
    const entries: RecordingEntry[] = [
      entry(1, 'x1', 'request', rpc('SendStreamingMessage', { message: { messageId: 'm', parts: [] } })),
      entry(2, 'x1', 'response'),
      ...events.map((body, i) => entry(3 + i, 'x1', 'event', body)),
      entry(6, 'x1', 'end'),
    ];
    const ledger = new ReplayLedger(planReplay(entries), new IdMap());
    const x1 = exchange(ledger, 'x1');
    ledger.sent(x1);
    ledger.live(x1, live('response'));
    ledger.live(x1, live('event', events[0]));
    // Seq 4 says something: what the client sent after it waits for a live one.
    expect(ledger.blockerAt(5, 'task:task-rec-7')?.seq).toBe(4);
    ledger.live(x1, live('event', events[1]));
    expect(ledger.blockerAt(5, 'task:task-rec-7')).toBeUndefined();
  });
});
