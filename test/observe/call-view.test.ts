/**
 * How a request is read into a call (src/observe/call-view.ts): its target as
 * src/http/request-target.ts reads it, and its binding decided by its route, never by its body.
 */
import { describe, expect, it } from 'vitest';
import { readRequestParts } from '../../src/observe/call-view.js';

const pause = (path: string, body: unknown) => readRequestParts({ http: { method: 'POST', path }, body });

describe('the call a request makes', () => {
  it('reads a body with a jsonrpc member sent to an HTTP+JSON route as that route’s call', () => {
    expect(pause('/a2a/rest/tasks/t-1:pause', { jsonrpc: '2.0', reason: 'r' })).toEqual({
      kind: 'call',
      binding: 'HTTP+JSON',
      rpcId: undefined,
      method: 'PauseTask',
      params: { jsonrpc: '2.0', reason: 'r', taskId: 't-1' },
    });
    const envelope = { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't-2' } };
    expect(pause('/rest/tasks/t-1:resume', envelope)).toMatchObject({ binding: 'HTTP+JSON', method: 'ResumeTask' });
  });

  it('reads a JSON-RPC envelope off every other path', () => {
    const envelope = { jsonrpc: '2.0', id: 1, method: 'PauseTask', params: { taskId: 't-1' } };
    expect(pause('/', envelope)).toMatchObject({ binding: 'JSONRPC', method: 'PauseTask', rpcId: 1 });
    expect(pause('/a2a?x=/tasks/t-1:pause', envelope)).toMatchObject({ binding: 'JSONRPC' });
  });

  it('reads the route of the normalized path, whatever spelling the target used', () => {
    for (const path of [
      '/rest/tasks/zz/../t-1:pause',
      '/rest/tasks/zz/%2e%2E/t-1:pause',
      '/rest/tasks/t-1:pause#x',
      '/rest/tasks\\t-1:pause',
      '/rest/t%61sks/t%2D1:pause?A2A-Version=1.0',
    ]) {
      expect(pause(path, { reason: 'r' }), path).toMatchObject({
        kind: 'call',
        binding: 'HTTP+JSON',
        method: 'PauseTask',
        params: { taskId: 't-1', reason: 'r' },
      });
    }
    expect(pause('/rest/tasks/t-1:PAUSE', { reason: 'r' }).kind).not.toBe('call');
  });
});
