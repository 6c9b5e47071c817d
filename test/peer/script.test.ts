/**
 * The scripted agent's directive parser.
 */
import { describe, expect, it } from 'vitest';
import { parseScript } from '../../src/peer/script.js';

const parse = (text: string) => parseScript([{ text }], 'params.message.parts');

describe('parseScript', () => {
  it('reads every directive in order', () => {
    const text = 'work:2 await:ci.done await:x:30 await:y:5:resume sleep-until:2026-01-01T09:00:00Z input auth fail';
    expect(parse(`${text} ask:ship_it? auth:sign_in`)).toEqual({
      ok: true,
      directives: [
        { kind: 'work', steps: 2 },
        { kind: 'await', event: 'ci.done' },
        { kind: 'await', event: 'x', timeout: { durationMinutes: 30, onTimeout: 'fail' } },
        { kind: 'await', event: 'y', timeout: { durationMinutes: 5, onTimeout: 'resume' } },
        { kind: 'sleep-until', at: '2026-01-01T09:00:00Z', atMs: Date.UTC(2026, 0, 1, 9) },
        { kind: 'interrupt', state: 'TASK_STATE_INPUT_REQUIRED' },
        { kind: 'interrupt', state: 'TASK_STATE_AUTH_REQUIRED' },
        { kind: 'fail' },
        { kind: 'interrupt', state: 'TASK_STATE_INPUT_REQUIRED', prompt: 'ship it?' },
        { kind: 'interrupt', state: 'TASK_STATE_AUTH_REQUIRED', prompt: 'sign in' },
      ],
    });
  });

  it.each(['hello', 'work', 'work:1 please', 'authorize', 'asked', '', '   '])('treats %j as work:3', (text) => {
    expect(parse(text)).toEqual({ ok: true, directives: [{ kind: 'work', steps: 3 }] });
  });

  it('treats a message without a text part as work:3', () => {
    expect(parseScript([{ data: { a: 1 } }], 'p')).toEqual({ ok: true, directives: [{ kind: 'work', steps: 3 }] });
  });

  it('names the first text part and the directive when arguments are malformed', () => {
    const r = parseScript([{ data: 1 }, { text: 'work:1 work:-1' }], 'params.message.parts');
    expect(r).toEqual({
      ok: false,
      issue: {
        field: 'params.message.parts[1].text',
        expected: 'work:N with N an integer from 0 to 10000 (steps)',
        got: 'directive 2 of 2, "work:-1"',
      },
    });
  });

  it.each([
    'work:x',
    'work:10001',
    'await:',
    'await:a:b',
    'await:a:1:b',
    'await:a:1:fail:extra',
    'sleep-until:',
    'sleep-until:2026-13-01',
    'tool:0',
    'tool:10001',
    'tool:x',
    'ask:',
    'auth:',
  ])('refuses %j', (text) => {
    expect(parse(text).ok).toBe(false);
  });
});
