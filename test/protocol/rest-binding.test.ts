/**
 * The HTTP+JSON binding as data (docs/design.md §15): routes, params from path/query/body and back,
 * the error mapping both ways, and recorded targets rewritten to live ids.
 */
import { describe, expect, it } from 'vitest';
import { JSON_RPC_ERRORS, type JsonRpcErrorName } from '../../src/protocol/errors.js';
import {
  matchRestRoute,
  matchRestTail,
  mayNameRoute,
  readRestError,
  restError,
  restParams,
  restRequestOf,
} from '../../src/protocol/rest-binding.js';
import { IdMap } from '../../src/replay/substitution.js';

describe('routes', () => {
  it('names each method by verb and path, with an optional tenant, and the path id decoded', () => {
    expect(matchRestRoute('POST', '/message:send')).toMatchObject({ kind: 'route', method: 'SendMessage' });
    expect(matchRestRoute('GET', '/tasks/t%2F1')).toMatchObject({ kind: 'route', method: 'GetTask', id: 't/1' });
    expect(matchRestRoute('GET', '/tasks')).toMatchObject({ kind: 'route', method: 'ListTasks' });
    expect(matchRestRoute('POST', '/acme/tasks/t-1:pause')).toMatchObject({
      method: 'PauseTask',
      id: 't-1',
      tenant: 'acme',
    });
    expect(matchRestRoute('GET', '/tasks/t-1:subscribe')).toMatchObject({ method: 'SubscribeToTask' });
    expect(matchRestRoute('POST', '/tasks/t-1:subscribe')).toMatchObject({ method: 'SubscribeToTask' });
    expect(matchRestRoute('DELETE', '/tasks/t-1/pushNotificationConfigs/c-1')).toMatchObject({
      method: 'DeleteTaskPushNotificationConfig',
      id: 't-1',
      configId: 'c-1',
    });
    expect(matchRestRoute('GET', '/tasks/t-1:pause')).toEqual({ kind: 'wrong-verb', allow: 'POST' });
    expect(matchRestRoute('GET', '/nothing/here/at/all')).toEqual({ kind: 'none' });
  });

  it('reads a recorded path by its tail when the interface URL is not known', () => {
    expect(matchRestTail('POST', '/a2a/rest/tasks/t-1:resume')).toMatchObject({ method: 'ResumeTask', id: 't-1' });
    expect(matchRestTail('POST', '/')).toEqual({ kind: 'none' });
  });

  it('turns every call into a request whose route gives the same params back', () => {
    const calls: [string, Record<string, unknown>][] = [
      ['SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }],
      ['GetTask', { id: 't 1', historyLength: 2 }],
      ['ListTasks', { pageSize: 5, includeArtifacts: true, contextId: 'c' }],
      ['CancelTask', { id: 't-1' }],
      ['SubscribeToTask', { id: 't-1' }],
      ['PauseTask', { taskId: 't-1', reason: 'r', mode: 'finish_step' }],
      ['ResumeTask', { taskId: 't-1', resumeToken: 'tok', input: { a: 1 } }],
      ['AwaitTaskResumption', { taskId: 't-1', conditions: { onEvent: 'e' } }],
    ];
    for (const [method, params] of calls) {
      const request = restRequestOf(method, params)!;
      const [path, query = ''] = request.path.split('?');
      const match = matchRestRoute(request.verb, path!);
      if (match.kind !== 'route') throw new Error(`${method}: ${request.verb} ${request.path} is no route`);
      expect(match.method).toBe(method);
      expect(restParams(match, new URLSearchParams(query), request.body ?? {}).params, method).toEqual(params);
    }
    expect(restRequestOf('AdvanceClock', { ms: 1 })).toBeUndefined();
  });

  it('answers a path holding no route text without its patterns, and reads every other path by them', () => {
    // JSON-RPC endpoints and near misses of a route's text: no pattern could match, so none.
    for (const path of ['/', '/a2a', '/a2a/jsonrpc', '/task/t-1', '/Tasks/t-1', '/messages', '/v1/card']) {
      expect(mayNameRoute(path), path).toBe(false);
      expect(matchRestRoute('POST', path), path).toEqual({ kind: 'none' });
      expect(matchRestTail('GET', path), path).toEqual({ kind: 'none' });
    }
    // A path holding a route's text goes to the patterns: near misses are none, a wrong verb is read.
    for (const path of ['/a2a/tasksx', '/x/message:sendx', '/tasks/', '/extendedAgentCards']) {
      expect(mayNameRoute(path), path).toBe(true);
      expect(matchRestTail('GET', path), path).toEqual({ kind: 'none' });
    }
    expect(matchRestTail('GET', '/a2a/tasks/t-1:pause')).toEqual({ kind: 'wrong-verb', allow: 'POST' });
    expect(matchRestRoute('PUT', '/message:send')).toEqual({ kind: 'wrong-verb', allow: 'POST' });
    // Every route of the table holds one: the shortcut never hides a route.
    const routes: [string, string, string][] = [
      ['POST', '/message:send', 'SendMessage'],
      ['POST', '/message:stream', 'SendStreamingMessage'],
      ['POST', '/t/tasks/a:cancel', 'CancelTask'],
      ['GET', '/tasks/a:subscribe', 'SubscribeToTask'],
      ['POST', '/tasks/a:pause', 'PauseTask'],
      ['POST', '/tasks/a:resume', 'ResumeTask'],
      ['POST', '/tasks/a:awaitResumption', 'AwaitTaskResumption'],
      ['GET', '/tasks/a/pushNotificationConfigs/c', 'GetTaskPushNotificationConfig'],
      ['DELETE', '/tasks/a/pushNotificationConfigs/c', 'DeleteTaskPushNotificationConfig'],
      ['POST', '/tasks/a/pushNotificationConfigs', 'CreateTaskPushNotificationConfig'],
      ['GET', '/tasks/a/pushNotificationConfigs', 'ListTaskPushNotificationConfigs'],
      ['GET', '/tasks/a', 'GetTask'],
      ['GET', '/tasks', 'ListTasks'],
      ['GET', '/extendedAgentCard', 'GetExtendedAgentCard'],
    ];
    for (const [verb, path, method] of routes) {
      expect(mayNameRoute(path), path).toBe(true);
      expect(matchRestRoute(verb, path), path).toMatchObject({ kind: 'route', method });
      expect(matchRestTail(verb, `/a2a/rest${path}`), path).toMatchObject({ kind: 'route', method });
    }
  });

  it('reports a body naming another task than its path', () => {
    const match = matchRestRoute('POST', '/tasks/t-1:resume');
    if (match.kind !== 'route') throw new Error('no route');
    const { conflict } = restParams(match, new URLSearchParams(), { taskId: 't-2', resumeToken: 'x' });
    expect(conflict?.field).toBe('params.taskId');
    expect(conflict?.message).toContain('"t-2"');
  });
});

describe('errors', () => {
  it('sends the RFC codes as 400 FAILED_PRECONDITION with their ErrorInfo reasons', () => {
    expect(restError('INVALID_TASK_STATE', 'no')).toEqual({
      http: 400,
      body: {
        error: {
          code: 400,
          status: 'FAILED_PRECONDITION',
          message: 'no',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'INVALID_TASK_STATE',
              domain: 'a2a-protocol.org',
            },
          ],
        },
      },
    });
    expect(restError('RESUME_TOKEN_MISMATCH', 'x').body.error.status).toBe('FAILED_PRECONDITION');
    expect(restError('TASK_NOT_FOUND', 'x').http).toBe(404);
    expect(restError('INTERNAL', 'x').http).toBe(500);
  });

  it('reads every error of the table back to its JSON-RPC code', () => {
    for (const name of Object.keys(JSON_RPC_ERRORS) as JsonRpcErrorName[]) {
      const read = readRestError(restError(name, 'why', { taskId: 't' }).body);
      expect(read, name).toEqual({
        code: JSON_RPC_ERRORS[name].code,
        reason: JSON_RPC_ERRORS[name].reason,
        message: 'why',
      });
    }
    expect(readRestError({ task: {} })).toBeUndefined();
    expect(readRestError({ error: { message: 'plain' } })).toEqual({
      code: undefined,
      reason: undefined,
      message: 'plain',
    });
  });
});

it('rewrites the ids a recorded target names in its path and query to live ids', () => {
  const ids = new IdMap();
  ids.pair('task-rec', 'task live');
  ids.pair('ctx-rec', 'ctx-live', 'contextId');
  expect(ids.targetToLive('/rest/tasks/task-rec:pause')).toBe('/rest/tasks/task%20live:pause');
  expect(ids.targetToLive('/rest/tasks?contextId=ctx-rec&pageSize=2')).toBe(
    '/rest/tasks?contextId=ctx-live&pageSize=2',
  );
  expect(ids.targetToLive('/rest/tasks/other')).toBe('/rest/tasks/other');
});
