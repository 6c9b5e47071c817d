/**
 * The one rule by which the recorder forwards a target to its upstream and replay sends a
 * recorded one to the live peer (src/http/request-target.ts): the server's own host, under its
 * base path, the target as path text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basePathOf, originForm, readTarget, underBase } from '../../src/http/request-target.js';
import { fuzzRuns } from '../helpers/fuzz.js';

describe('request targets', () => {
  it('puts a target under the base path as text, whatever it looks like', () => {
    const cases: [string, string, string][] = [
      ['http://127.0.0.1:8080', '/', '/'],
      ['http://127.0.0.1:8080/', '/rpc?x=1', '/rpc?x=1'],
      ['http://127.0.0.1:8080/a2a/', '/', '/a2a/'],
      ['http://127.0.0.1:8080/a2a//', '/rest/tasks/t-1:pause', '/a2a/rest/tasks/t-1:pause'],
      ['http://127.0.0.1:8080/a2a', '//other.example/x', '/a2a//other.example/x'],
      ['http://127.0.0.1:8080', 'http://other.example/x', '/http://other.example/x'],
      ['http://127.0.0.1:8080', '*', '/*'],
    ];
    for (const [server, target, sent] of cases) {
      expect(underBase(basePathOf(new URL(server)), target), `${server} ${target}`).toBe(sent);
    }
  });

  it('reads an absolute-form target as its path and query, and leaves every other target as it is', () => {
    expect(originForm('http://agent.example:8080/rpc?x=1')).toBe('/rpc?x=1');
    expect(originForm('HTTPS://agent.example')).toBe('/');
    expect(originForm('http://agent.example/a%20b/../c')).toBe('/c');
    for (const target of ['/', '/rpc?next=http://x/', '//agent.example/rpc', '*', 'http:/rpc', 'http://[bad/x']) {
      expect(originForm(target), target).toBe(target);
    }
  });
});

describe('the reading of a target', () => {
  it('normalizes the path as RFC 3986 does and keeps the query as sent', () => {
    const cases: [string, string, string][] = [
      ['/rest/tasks/t-1:pause', '/rest/tasks/t-1:pause', ''],
      ['/rest/t%61sks/%7Et%2d1:pause?x=%2e#', '/rest/tasks/~t-1:pause', 'x=%2e'],
      ['/a/%3a%e9/b', '/a/%3A%E9/b', ''],
      ['/rest/tasks/zz/../t-1:pause', '/rest/tasks/t-1:pause', ''],
      ['/rest/tasks/zz/%2E%2e/t-1:pause', '/rest/tasks/t-1:pause', ''],
      ['/a/./b/.', '/a/b/', ''],
      ['/..', '/', ''],
      ['/a//../b', '/a/b', ''],
      ['/rest/tasks\\t-1:pause', '/rest/tasks/t-1:pause', ''],
      ['/rest/tasks/t-1:pause#x', '/rest/tasks/t-1:pause', ''],
      ['//other.example/x?q', '//other.example/x', 'q'],
      ['http://agent.example:8080/a/../b?q=1', '/b', 'q=1'],
      ['*', '/*', ''],
    ];
    for (const [target, path, query] of cases) {
      expect(readTarget(target), target).toMatchObject({ path, query });
    }
  });

  it('names what servers read differently, and nothing in a plain target', () => {
    const cases: [string, string | undefined][] = [
      ['/rest/tasks/t-1:pause?next=../x\\y', undefined],
      ['/rest/tasks/t-1?a=1;b=2', undefined],
      ['//other.example/x', undefined],
      ['/a%20b/%3A', undefined],
      ['/rest/tasks/zz/../t-1:pause', 'dot segment'],
      ['/rest/tasks/zz/%2e%2E/t-1:pause', 'dot segment'],
      ['/rest/tasks/.%2e/t-1:pause', 'dot segment'],
      ['/rest/./tasks', 'dot segment'],
      ['/rest/tasks/t-1:pause#x', 'fragment'],
      ['/rest/tasks/t-1:pause?q#', 'fragment'],
      ['/rest/tasks\\t-1:pause', 'backslash'],
      ['http://h\\rest/tasks/t-1:pause', 'backslash'],
      ['/rest/tasks/a%2fb:pause', 'encoded slash'],
      ['/rest/tasks/t-1:pause;jsessionid=x', 'path parameter'],
      ['/rest/tasks/t-1;v=1:pause', 'path parameter'],
      ['/rest/tasks/a%5Cb:pause', 'encoded backslash'],
      ['/rest/tasks/a%zzb:pause', '% not followed by two hex digits'],
      ['http://agent.example/rest/../rest/tasks/t-1:pause', 'dot segment'],
    ];
    for (const [target, words] of cases) {
      const { ambiguity } = readTarget(target);
      if (words === undefined) expect(ambiguity, target).toBeUndefined();
      else expect(ambiguity, target).toContain(words);
    }
  });

  it('keeps the target as sent in origin form', () => {
    expect(readTarget('http://agent.example/a/../b#f').sent).toBe('/a/../b#f');
    expect(readTarget('/x\\y?q#f').sent).toBe('/x\\y?q#f');
  });
  it('reads an origin-form target as the same target in absolute form, plain or odd', () => {
    // Plain segments mostly, with now and then a character that needs normalizing or refusing.
    const char = fc.oneof(
      { arbitrary: fc.constantFrom(..."aZ09-_~!$&'()*+,=:@"), weight: 12 },
      { arbitrary: fc.constantFrom('.', '%', '%2e', '%2F', '%41', '\\', ';', '?', '#', '..', '/'), weight: 1 },
    );
    const segment = fc.array(char, { maxLength: 6 }).map((cs) => `/${cs.join('')}`);
    const target = fc.array(segment, { minLength: 1, maxLength: 5 }).map((ss) => ss.join(''));
    fc.assert(
      fc.property(target, (t) => {
        expect(readTarget(t), t).toEqual(readTarget(`http://agent.example${t}`));
      }),
      { numRuns: fuzzRuns(2000), seed: 8785 },
    );
    expect(readTarget('/tasks/t-1:pause')).toEqual({
      path: '/tasks/t-1:pause',
      query: '',
      sent: '/tasks/t-1:pause',
      ambiguity: undefined,
    });
  });
});
