/**
 * The pure checks behind the proxy's `/control` rule: which request targets name `/control`, and
 * which hosts are loopback.
 */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/http/loopback.js';
import { isControlTarget } from '../../src/intercept/recording-proxy.js';

describe('isControlTarget', () => {
  it('finds /control however the target spells it', () => {
    for (const target of [
      '/control',
      '/control/',
      '/control/anything',
      '/control?x=1',
      '/CONTROL',
      '//control',
      '/./control',
      '/a/../control',
      '/%63ontrol',
      '/%2e%2e/control',
      '\\\\control',
      '/control;jsessionid=1',
      'http://peer.example/control',
    ]) {
      expect(isControlTarget(target), target).toBe(true);
    }
  });

  it('leaves every other path alone', () => {
    for (const target of ['/', '/controls', '/a/control', '/?path=/control', '/.well-known/agent-card.json', '/%']) {
      expect(isControlTarget(target), target).toBe(false);
    }
  });
});

describe('isLoopbackHost', () => {
  it('knows localhost, 127.0.0.0/8 and ::1 in their URL and socket forms', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      'localhost.',
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '[::ffff:7f00:1]',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
  });

  it('treats every other host as reachable from elsewhere', () => {
    for (const host of [
      undefined,
      '',
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '192.0.2.1',
      'peer.example',
      '128.0.0.1',
      '::2',
      '::ffff:10.0.0.1',
      'localhost.example',
      '127.0.0.1.example',
    ]) {
      expect(isLoopbackHost(host), String(host)).toBe(false);
    }
  });
});
