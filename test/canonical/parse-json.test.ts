import { describe, expect, it } from 'vitest';
import { findDuplicateKey, locateJsonError, parseJsonText } from '../../src/canonical/parse-json.js';
import { A2aReplayError } from '../../src/errors.js';

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

describe('duplicate keys (I-JSON)', () => {
  it('refuses a key repeated in one object, naming its line, column and JSON Pointer', () => {
    expect(() => parseJsonText('{"a":{"b":1,\n "b":2}}', 'x.json')).toThrow(
      /^x\.json:2:2: duplicate key "b" at \/a\/b: RFC 8785 input must be I-JSON/,
    );
    expect(findDuplicateKey('[{"k":1},{"k":2,"m":[{"x":0,"x":1}]}]')).toMatchObject({
      problem: 'duplicate key "x" at /1/m/0/x',
    });
  });

  it('sees keys that differ only in their escapes as the same key', () => {
    expect(findDuplicateKey('{"a":1,"\\u0061":2}')?.problem).toBe('duplicate key "a" at /a');
    expect(findDuplicateKey('{"a/b":1,"a~b":2,"c":{"a/b":3}}')).toBeUndefined();
  });

  it('accepts the same key in different objects, and duplicates when told to', () => {
    expect(parseJsonText('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseJsonText('{"a":1,"a":2}', 'x', { allowDuplicateKeys: true })).toEqual({ a: 2 });
  });

  it('scans any nesting depth without overflowing the stack', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(locateJsonError(deep)).toBeUndefined();
    expect(locateJsonError(`${'['.repeat(200_000)}`)?.problem).toMatch(/where a value was expected|expected ','/);
    const objects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    expect(findDuplicateKey(objects)).toBeUndefined();
  });
});
