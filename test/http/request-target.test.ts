/**
 * The one rule by which the recorder forwards a target to its upstream and replay sends a
 * recorded one to the live peer (src/http/request-target.ts): the server's own host, under its
 * base path, the target as path text.
 */
import { describe, expect, it } from 'vitest';
import { basePathOf, originForm, underBase } from '../../src/internal.js';

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
