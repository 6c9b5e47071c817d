import { describe, expect, it } from 'vitest';
import { A2aReplayError, locateJsonError, parseJsonText } from '../../src/internal.js';

describe('parseJsonText', () => {
  it('parses valid JSON', () => {
    expect(parseJsonText('{"a":[1,2]}')).toEqual({ a: [1, 2] });
  });

  it.each([
    ['{"a":1,}', 1, 8, /double-quoted property name/],
    ['[1,\n2,\n x]', 3, 2, /unexpected "x" where a value was expected/],
    ['{"a" 1}', 1, 6, /expected ':'/],
    ['"abc', 1, 5, /unterminated string/],
    ['{"a":"\\q"}', 1, 7, /bad escape/],
    ['[01]', 1, 3, /expected ',' or '\]'/],
    ['{} {}', 1, 4, /after the JSON value/],
    ['   ', 1, 4, /empty/],
    ['-', 1, 1, /malformed number/],
  ])('names line and column for %j', (text, line, column, problem) => {
    const where = locateJsonError(text);
    expect(where).toMatchObject({ line, column });
    expect(where?.problem).toMatch(problem);
    expect(() => parseJsonText(text, 'doc.json')).toThrow(new RegExp(`^doc\\.json:${line}:${column}: invalid JSON: `));
  });

  it('throws an A2aReplayError with code INVALID_JSON', () => {
    try {
      parseJsonText('[', 'x');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(A2aReplayError);
      expect((error as A2aReplayError).code).toBe('INVALID_JSON');
    }
  });

  it('agrees with JSON.parse on what is valid', () => {
    for (const text of ['1e5', '-0.5E-3', '"\\u00e9\\/"', '[true,false,null]', '{"":{}}', ' \n[ ] ']) {
      expect(locateJsonError(text)).toBeUndefined();
      expect(() => JSON.parse(text) as unknown).not.toThrow();
    }
  });
});
