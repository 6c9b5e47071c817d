import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import { IdMap, MIN_EMBEDDED_ID_LENGTH, StringRewriter, rewriteCopy } from '../../src/replay/substitution.js';
import { fuzzRuns } from '../helpers/fuzz.js';

/** Own keys, values and prototypes all the way down, so a shared and a copied value compare alike. */
function layout(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  const kind = proto === Object.prototype ? 'object' : proto === Array.prototype ? 'array' : 'other';
  return { kind, own: Object.keys(value).map((k) => [k, layout((value as Record<string, unknown>)[k])]) };
}

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

  it('maps a call id minted in a confirmation DataPart into the approval echoing it, in both dialects', () => {
    const confirmation = (callId: string): JsonValue => ({
      request: { callId, name: 'deploy', args: { env: 'prod' } },
    });
    // v0.3: a status-update whose message holds a `kind: "data"` part.
    const v03 = new IdMap();
    v03.learn(
      {
        kind: 'status-update',
        status: { message: { parts: [{ kind: 'data', data: confirmation('call-rec-0001') }] } },
      },
      {
        kind: 'status-update',
        status: { message: { parts: [{ kind: 'data', data: confirmation('call-live-0001') }] } },
      },
    );
    expect(
      v03.toLive({ message: { parts: [{ kind: 'data', data: { callId: 'call-rec-0001', outcome: 'approved' } }] } }),
    ).toEqual({ message: { parts: [{ kind: 'data', data: { callId: 'call-live-0001', outcome: 'approved' } }] } });
    // v1.0: a data part is `{data: ...}`; snake-case and elicitation ids deeper still.
    const v10 = new IdMap();
    v10.learn(
      {
        statusUpdate: {
          status: { message: { parts: [{ data: { a: [{ tool_call_id: 'tc-rec-1', elicitationId: 'el-rec-1' }] } }] } },
        },
      },
      {
        statusUpdate: {
          status: {
            message: { parts: [{ data: { a: [{ tool_call_id: 'tc-live-1', elicitationId: 'el-live-1' }] } }] },
          },
        },
      },
    );
    expect(v10.toLive({ parts: [{ data: { call: 'tc-rec-1', of: ['el-rec-1'] } }] })).toEqual({
      parts: [{ data: { call: 'tc-live-1', of: ['el-live-1'] } }],
    });
    // A field whose name does not say it holds an id is content, never paired.
    const text = new IdMap();
    text.learn(
      { data: { name: 'deploy', valid: 'yes', kid: 'k1' } },
      { data: { name: 'rollback', valid: 'no', kid: 'k2' } },
    );
    expect(text.size).toBe(0);
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

  it('maps an id inside a string where it stands as a whole token, both ways', () => {
    const ids = new IdMap();
    ids.pair('6b9b5318-cfe7-462a-8109-885840a519df', '514e0334-e103-437a-8788-9aa6fe420361', 'id');
    ids.pair('a2a-replay:resume-token:sha256:ab12', 'suspend-77aa8d21-0001', 'resumeToken');
    ids.pair('a1', 'a2', 'artifactId');
    const live = {
      error: { code: -32002, message: 'Task not cancelable: 514e0334-e103-437a-8788-9aa6fe420361' },
      text: 'token suspend-77aa8d21-0001 (task 514e0334-e103-437a-8788-9aa6fe420361), a2 kept',
      longer: 'x514e0334-e103-437a-8788-9aa6fe420361 and 514e0334-e103-437a-8788-9aa6fe420361_2 stay',
    };
    expect(ids.toRecorded(live)).toEqual({
      error: { code: -32002, message: 'Task not cancelable: 6b9b5318-cfe7-462a-8109-885840a519df' },
      text: 'token a2a-replay:resume-token:sha256:ab12 (task 6b9b5318-cfe7-462a-8109-885840a519df), a2 kept',
      longer: live.longer,
    });
    expect(ids.toLive('resume a2a-replay:resume-token:sha256:ab12.')).toBe('resume suspend-77aa8d21-0001.');
    expect(ids.toLive('resume a2a-replay:resume-token:sha256:ab123')).toBe(
      'resume a2a-replay:resume-token:sha256:ab123',
    );
    // A short id is mapped only as a whole value.
    expect(ids.toLive(['a1', 'step a1'])).toEqual(['a2', 'step a1']);
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

  it('rewrites to what a full copy builds, sharing only what did not change', () => {
    const word = fc.constantFrom(
      't1',
      't2',
      'x',
      'id',
      '__proto__',
      'constructor',
      '0',
      'task-0000001',
      'task-0000002',
      'on task-0000001.',
    );
    const json = fc.letrec<{ value: JsonValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        word,
        fc.constantFrom<JsonValue>(0, 1, null, true),
        fc.array(tie('value'), { maxLength: 3 }),
        // JSON.parse makes `__proto__` an own key, as a recorded or live body would have it.
        fc.dictionary(word, tie('value'), { maxKeys: 3 }).map((d) => JSON.parse(JSON.stringify(d)) as JsonValue),
      ),
    })).value;
    const pairs = fc.array(fc.tuple(word, word), { maxLength: 3 });
    fc.assert(
      fc.property(json, pairs, (body, learned) => {
        const ids = new IdMap();
        // The pairs IdMap keeps: the first for a value on either side wins.
        const toLive = new Map<string, string>();
        const toRecorded = new Map<string, string>();
        for (const [recorded, live] of learned) {
          ids.pair(recorded, live);
          if (toLive.has(recorded) || toRecorded.has(live)) continue;
          toLive.set(recorded, live);
          toRecorded.set(live, recorded);
        }
        const before = JSON.stringify(body);
        expect(layout(ids.toLive(body))).toEqual(layout(rewriteCopy(body, toLive)));
        expect(layout(ids.toRecorded(body))).toEqual(layout(rewriteCopy(body, toRecorded)));
        expect(JSON.stringify(body)).toBe(before);
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('rewrites embedded ids and tokens as one regular expression over every key would, however many keys', () => {
    // The rule as a regular expression: at each position a key with other characters (longest
    // first) bounded by non-id characters, else a maximal run of id characters looked up whole.
    const reference = (map: ReadonlyMap<string, string>, value: string): string => {
      const whole = map.get(value);
      if (whole !== undefined) return whole;
      if (value.length <= MIN_EMBEDDED_ID_LENGTH) return value;
      const embedded = [...map].filter(([from, to]) => from !== to && from.length >= MIN_EMBEDDED_ID_LENGTH);
      const plain = new Map(embedded.filter(([from]) => /^[A-Za-z0-9_-]+$/.test(from)));
      const other = new Map(embedded.filter(([from]) => !/^[A-Za-z0-9_-]+$/.test(from)));
      const keys = [...other.keys()].sort((a, b) => b.length - a.length);
      const escaped = keys.map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
      const alternatives = escaped.length > 0 ? `(?<![A-Za-z0-9_-])(?:${escaped.join('|')})(?![A-Za-z0-9_-])|` : '';
      const pattern = new RegExp(`${alternatives}[A-Za-z0-9_-]+`, 'g');
      return value.replace(pattern, (token) => plain.get(token) ?? other.get(token) ?? token);
    };
    const piece = fc.constantFrom(
      'a2a-replay:resume-token:sha256:ab12',
      'a2a-replay:resume-token:sha256:ab1',
      'a2a:x',
      'task-0000001',
      'task-0000001-b',
      'tok.en.0001',
      'tok.en',
      ' ',
      '.',
      ':',
      '-',
      'x',
      'é',
    );
    const text = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
    const pairs = fc.array(fc.tuple(text, text), { maxLength: 6 });
    fc.assert(
      fc.property(pairs, text, (learned, value) => {
        const map = new Map<string, string>();
        for (const [from, to] of learned) if (!map.has(from)) map.set(from, to);
        expect(new StringRewriter(map).string(value)).toBe(reference(map, value));
      }),
      { numRuns: fuzzRuns(3000) },
    );
  });
});
