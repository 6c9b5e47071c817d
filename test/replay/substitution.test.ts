import { describe, expect, it } from 'vitest';
import { IdMap } from '../../src/replay/substitution.js';

describe('IdMap', () => {
  it('learns ids from parallel bodies and rewrites both ways', () => {
    const ids = new IdMap();
    ids.learn(
      { result: { task: { id: 'task-rec', contextId: 'ctx-rec', status: { pause: { resumeToken: 'tok-rec' } } } } },
      { result: { task: { id: 'task-live', contextId: 'ctx-live', status: { pause: { resumeToken: 'tok-live' } } } } },
    );
    expect(
      ids.toLive({ params: { taskId: 'task-rec', resumeToken: 'tok-rec', referenceTaskIds: ['task-rec'] } }),
    ).toEqual({
      params: { taskId: 'task-live', resumeToken: 'tok-live', referenceTaskIds: ['task-live'] },
    });
    expect(ids.toRecorded({ statusUpdate: { taskId: 'task-live', contextId: 'ctx-live' } })).toEqual({
      statusUpdate: { taskId: 'task-rec', contextId: 'ctx-rec' },
    });
  });

  it('maps the legacy metadata.harn.pause.handle like a resume token', () => {
    const ids = new IdMap();
    ids.learn(
      { metadata: { harn: { pause: { handle: 'h-rec' } } } },
      { metadata: { harn: { pause: { handle: 'h-live' } } } },
    );
    expect(ids.liveOf('h-rec')).toBe('h-live');
    expect(ids.recordedOf('h-live')).toBe('h-rec');
  });

  it('keeps the first pair and counts a contradicting one as a conflict', () => {
    const ids = new IdMap();
    ids.pair('a', 'b', 'taskId');
    ids.pair('a', 'c', 'taskId');
    ids.pair('d', 'b', 'taskId');
    expect(ids.liveOf('a')).toBe('b');
    expect(ids.liveOf('d')).toBe('d');
    expect(ids.conflicts).toHaveLength(2);
  });

  it('maps swapped ids as a bijection without chaining', () => {
    const ids = new IdMap();
    ids.pair('t1', 't2');
    ids.pair('t2', 't1');
    expect(ids.toLive(['t1', 't2'])).toEqual(['t2', 't1']);
    expect(ids.toRecorded(['t1', 't2'])).toEqual(['t2', 't1']);
  });

  it('never rewrites object keys or non-id values it has not learned', () => {
    const ids = new IdMap();
    ids.pair('task-rec', 'task-live');
    expect(ids.toLive({ 'task-rec': 'other', n: 1 })).toEqual({ 'task-rec': 'other', n: 1 });
  });

  it('pairs a resume token across shapes: the RFC resumeToken and the legacy handle, either way', () => {
    const native = { result: { taskId: 't1', state: 'TASK_STATE_PAUSED', pause: { resumeToken: 'tok-rec' } } };
    const legacy = {
      result: { taskId: 't1', state: 'TASK_STATE_WORKING', metadata: { harn: { pause: { handle: 'tok-live' } } } },
    };
    const ids = new IdMap();
    ids.learn(native, legacy);
    expect(ids.liveOf('tok-rec')).toBe('tok-live');
    const back = new IdMap();
    back.learn(legacy, native);
    expect(back.liveOf('tok-live')).toBe('tok-rec');
    // Same shapes pair by the walk; an already paired token is never re-paired across shapes.
    ids.learn(native, { result: { pause: { resumeToken: 'other' } } });
    expect(ids.liveOf('tok-rec')).toBe('tok-live');
  });
});
