import { describe, expect, it } from 'vitest';
import { JSON_RPC_ERRORS, errorInfoReason, errorNameForCode, jsonRpcError } from '../../src/protocol/errors.js';
import { parseJsonRpcMessage, parseJsonRpcRequest, parseJsonRpcResponse } from '../../src/protocol/json-rpc.js';
import { legacyMetadata, legacyToPause, parseLegacyEnvelope, pauseToLegacy } from '../../src/protocol/legacy.js';
import { type KnownMethod, isKnownMethod, parseMethodCall } from '../../src/protocol/params.js';
import {
  parsePauseTaskResult,
  parseResumeMetadata,
  parseResumeTaskResult,
  parseSendMessageResult,
  parseStreamResponse,
  parseTask,
} from '../../src/protocol/parse-objects.js';
import { type FieldIssue, type ParseResult, formatIssue } from '../../src/protocol/read.js';
import type { TaskPause } from '../../src/protocol/types.js';

const PAUSE: TaskPause = {
  initiatedBy: 'PAUSE_INITIATOR_CLIENT',
  reason: 'operator review',
  pausedAt: '2026-04-30T12:34:56.789Z',
  resumeToken: 'suspend-1',
  resumable: true,
};

function issueOf<T>(result: ParseResult<T>): FieldIssue {
  if (result.ok) throw new Error(`expected a parse failure, got ${JSON.stringify(result.value)}`);
  return result.issue;
}

describe('JSON-RPC envelope', () => {
  it('parses requests, notifications, successes and errors into a tagged union', () => {
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } })).toEqual({
      ok: true,
      value: { kind: 'request', id: 1, method: 'GetTask', params: { id: 't' } },
    });
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', method: 'Ping' })).toEqual({
      ok: true,
      value: { kind: 'notification', method: 'Ping' },
    });
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: 'a', result: null })).toEqual({
      ok: true,
      value: { kind: 'success', id: 'a', result: null },
    });
    expect(parseJsonRpcMessage({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })).toEqual({
      ok: true,
      value: { kind: 'error', id: null, error: { code: -32700, message: 'Parse error' } },
    });
  });

  it.each<[string, unknown, string]>([
    ['a non-object', 'hello', '$'],
    ['an array (batch)', [], '$'],
    ['a wrong version', { jsonrpc: '1.0', id: 1, method: 'GetTask' }, 'jsonrpc'],
    ['a numeric method', { jsonrpc: '2.0', id: 1, method: 7 }, 'method'],
    ['an empty method', { jsonrpc: '2.0', id: 1, method: '' }, 'method'],
    ['an object id', { jsonrpc: '2.0', id: {}, method: 'GetTask' }, 'id'],
    ['scalar params', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: 3 }, 'params'],
    ['a result beside an error', { jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'x' } }, 'result'],
    ['an error without a code', { jsonrpc: '2.0', id: 1, error: { message: 'x' } }, 'error.code'],
    ['neither method, result nor error', { jsonrpc: '2.0', id: 1 }, '$'],
  ])('rejects %s naming the field', (_what, input, field) => {
    expect(issueOf(parseJsonRpcMessage(input)).field).toBe(field);
  });

  it('tells requests from responses at the boundary', () => {
    expect(parseJsonRpcRequest({ jsonrpc: '2.0', id: 1, result: {} }).ok).toBe(false);
    expect(parseJsonRpcResponse({ jsonrpc: '2.0', id: 1, method: 'GetTask' }).ok).toBe(false);
    expect(parseJsonRpcResponse({ jsonrpc: '2.0', id: 1, result: {} }).ok).toBe(true);
  });
});

describe('method params', () => {
  const valid: Record<KnownMethod, unknown> = {
    SendMessage: {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'work:2' }] },
      configuration: { returnImmediately: true },
    },
    SendStreamingMessage: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { a: 1 } }] } },
    GetTask: { id: 't1', historyLength: 2 },
    ListTasks: { contextId: 'c', status: 'TASK_STATE_PAUSED', pageSize: 10 },
    CancelTask: { id: 't1' },
    SubscribeToTask: { id: 't1' },
    PauseTask: { taskId: 't1', reason: 'review', mode: 'interrupt_immediate' },
    ResumeTask: { taskId: 't1', resumeToken: 'tok', input: { answer: 42 }, continueTranscript: false },
    AwaitTaskResumption: {
      taskId: 't1',
      reason: 'waiting on ci',
      conditions: {
        onEvent: 'ci.done',
        trigger: { at: '2026-01-01T09:00:00Z' },
        timeout: { durationMinutes: 30, onTimeout: 'fail' },
      },
      summary: 'Paused on CI',
    },
    AdvanceClock: { ms: 60000 },
    FireEvent: { name: 'ci.done', payload: { taskId: 't1' } },
    GetClock: {},
  };

  it.each(Object.entries(valid))('parses valid %s params', (method, params) => {
    expect(isKnownMethod(method)).toBe(true);
    const result = parseMethodCall(method as KnownMethod, params);
    expect(result.ok).toBe(true);
  });

  it('fills the RFC defaults: mode finish_step, continueTranscript true, input null is no input', () => {
    const pause = parseMethodCall('PauseTask', { taskId: 't1' });
    expect(pause.ok && pause.value.params).toEqual({ taskId: 't1', mode: 'finish_step' });
    const resume = parseMethodCall('ResumeTask', { taskId: 't1', resumeToken: 'x', input: null });
    expect(resume.ok && resume.value.params).toEqual({ taskId: 't1', resumeToken: 'x', continueTranscript: true });
  });

  it.each<[KnownMethod, unknown, string, RegExp]>([
    ['PauseTask', {}, 'params.taskId', /non-empty string/],
    ['PauseTask', { taskId: 't', mode: 'later' }, 'params.mode', /"finish_step"/],
    ['PauseTask', undefined, 'params', /object/],
    ['ResumeTask', { taskId: 't' }, 'params.resumeToken', /non-empty string/],
    [
      'ResumeTask',
      { taskId: 't', resumeToken: 'x', continueTranscript: 'yes' },
      'params.continueTranscript',
      /true or false/,
    ],
    ['AwaitTaskResumption', { taskId: 't' }, 'params.conditions', /onEvent, trigger or timeout/],
    ['AwaitTaskResumption', { taskId: 't', conditions: {} }, 'params.conditions', /at least one/],
    ['AwaitTaskResumption', { taskId: 't', conditions: { onEvent: '' } }, 'params.conditions.onEvent', /non-empty/],
    ['AwaitTaskResumption', { taskId: 't', conditions: { when: 'soon' } }, 'params.conditions.when', /no such key/],
    [
      'AwaitTaskResumption',
      { taskId: 't', conditions: { trigger: { at: 'tomorrow' } } },
      'params.conditions.trigger.at',
      /RFC 3339/,
    ],
    [
      'AwaitTaskResumption',
      { taskId: 't', conditions: { timeout: { durationMinutes: 0, onTimeout: 'fail' } } },
      'params.conditions.timeout.durationMinutes',
      /positive integer/,
    ],
    [
      'AwaitTaskResumption',
      { taskId: 't', conditions: { timeout: { durationMinutes: 5, onTimeout: 'retry' } } },
      'params.conditions.timeout.onTimeout',
      /"fail", "resume"/,
    ],
    ['SendMessage', { message: { messageId: 'm', role: 'ROLE_BOT', parts: [] } }, 'params.message.role', /ROLE_USER/],
    [
      'SendMessage',
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{}] } },
      'params.message.parts[0]',
      /exactly one/,
    ],
    [
      'SendMessage',
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a', url: 'b' }] } },
      'params.message.parts[0]',
      /exactly one/,
    ],
    ['GetTask', { id: 5 }, 'params.id', /non-empty string/],
    ['ListTasks', { pageSize: 500 }, 'params.pageSize', /1 to 100/],
    ['ListTasks', { status: 'PAUSED' }, 'params.status', /TASK_STATE_PAUSED/],
    ['AdvanceClock', { ms: -1 }, 'params.ms', /integer/],
    ['FireEvent', {}, 'params.name', /non-empty/],
  ])('rejects bad %s params naming %s', (method, params, field, expected) => {
    const issue = issueOf(parseMethodCall(method, params));
    expect(issue.field).toBe(field);
    expect(issue.expected).toMatch(expected);
    expect(formatIssue(issue)).toContain(field);
  });

  it('does not know methods outside A2A v1.0, the pause extension and the control channel', () => {
    expect(isKnownMethod('message/send')).toBe(false);
    expect(isKnownMethod('toString')).toBe(false);
  });
});

describe('stream events and results', () => {
  const statusUpdate = {
    statusUpdate: {
      taskId: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_PAUSED', pause: PAUSE, timestamp: '2026-04-30T12:34:56.789Z' },
    },
  };

  it('parses each StreamResponse member into its tagged form', () => {
    const task = { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } };
    expect(parseStreamResponse(task)).toMatchObject({ ok: true, value: { kind: 'task' } });
    expect(parseStreamResponse(statusUpdate)).toMatchObject({
      ok: true,
      value: { kind: 'statusUpdate', statusUpdate: { status: { state: 'TASK_STATE_PAUSED', pause: PAUSE } } },
    });
    const artifact = {
      artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } },
    };
    expect(parseStreamResponse(artifact)).toMatchObject({ ok: true, value: { kind: 'artifactUpdate' } });
    const message = { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } };
    expect(parseStreamResponse(message)).toMatchObject({ ok: true, value: { kind: 'message' } });
  });

  it('ignores unknown members (spec §5.7) but names missing required ones', () => {
    expect(parseTask({ id: 't', status: { state: 'TASK_STATE_WORKING', future: 1 }, extra: true }).ok).toBe(true);
    expect(issueOf(parseTask({ id: 't', status: {} })).field).toBe('result.status.state');
    expect(issueOf(parseStreamResponse({ task: {}, message: {} })).field).toBe('result');
    expect(
      issueOf(
        parseStreamResponse({
          statusUpdate: {
            ...statusUpdate.statusUpdate,
            status: { state: 'TASK_STATE_PAUSED', pause: { ...PAUSE, initiatedBy: 'ME' } },
          },
        }),
      ).field,
    ).toBe('result.statusUpdate.status.pause.initiatedBy');
  });

  it('parses the RFC PauseTask and ResumeTask results', () => {
    expect(parsePauseTaskResult({ taskId: 't1', state: 'TASK_STATE_PAUSED', pause: PAUSE })).toEqual({
      ok: true,
      value: { taskId: 't1', state: 'TASK_STATE_PAUSED', pause: PAUSE },
    });
    expect(issueOf(parsePauseTaskResult({ taskId: 't1', state: 'TASK_STATE_WORKING', pause: PAUSE })).field).toBe(
      'result.state',
    );
    const resumed = {
      taskId: 't1',
      state: 'TASK_STATE_WORKING',
      previousState: 'TASK_STATE_PAUSED',
      cause: 'explicit_resume',
      resumedAt: '2026-04-30T12:38:01.012Z',
    };
    expect(parseResumeTaskResult(resumed).ok).toBe(true);
    expect(issueOf(parseResumeTaskResult({ ...resumed, cause: 'magic' })).field).toBe('result.cause');
  });

  it('reads the resume metadata only when it claims to be a resume', () => {
    expect(parseResumeMetadata(undefined)).toEqual({ ok: true, value: undefined });
    expect(parseResumeMetadata({ other: 1 })).toEqual({ ok: true, value: undefined });
    const meta = {
      previousState: 'TASK_STATE_PAUSED',
      cause: 'condition_fired',
      hadResumeInput: false,
      continueTranscript: true,
      resumedAt: '2026-04-30T12:38:01.012Z',
    };
    expect(parseResumeMetadata(meta)).toEqual({ ok: true, value: meta });
    expect(issueOf(parseResumeMetadata({ ...meta, hadResumeInput: 'no' })).field).toBe('metadata.hadResumeInput');
  });

  it('accepts a SendMessage result only as a task or a message', () => {
    expect(parseSendMessageResult({ task: { id: 't', status: { state: 'TASK_STATE_COMPLETED' } } }).ok).toBe(true);
    expect(parseSendMessageResult(statusUpdate).ok).toBe(false);
  });
});

describe('legacy metadata.harn.pause envelope', () => {
  it('round-trips an RFC pause through the legacy envelope', () => {
    const pause: TaskPause = { ...PAUSE, conditions: { onEvent: 'ci.done' }, pausedUntil: '2026-04-30T13:04:56.789Z' };
    const metadata = legacyMetadata(pauseToLegacy(pause, 'finish_step'));
    const parsed = parseLegacyEnvelope(metadata);
    expect(parsed.ok && parsed.value?.state).toBe('paused');
    if (parsed.ok && parsed.value?.state === 'paused') expect(legacyToPause(parsed.value)).toEqual(pause);
  });

  it('finds nothing in ordinary metadata and names malformed envelopes', () => {
    expect(parseLegacyEnvelope({ foo: 1 })).toEqual({ ok: true, value: undefined });
    expect(issueOf(parseLegacyEnvelope({ harn: { pause: { state: 'paused', initiator: 'robot' } } })).field).toBe(
      'metadata.harn.pause.initiator',
    );
  });
});

describe('error table', () => {
  it('has one entry per code, each with its ErrorInfo reason', () => {
    const codes = Object.values(JSON_RPC_ERRORS).map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toEqual(expect.arrayContaining([-32700, -32600, -32601, -32602, -32603, -32010, -32011]));
    for (let code = -32001; code >= -32011; code--) expect(errorNameForCode(code)).toBeDefined();
  });

  it('builds errors with a google.rpc.ErrorInfo in data[]', () => {
    const error = jsonRpcError('RESUME_TOKEN_MISMATCH', undefined, { taskId: 't1' });
    expect(error).toEqual({
      code: -32011,
      message: 'Resume token does not match the current suspension',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RESUME_TOKEN_MISMATCH',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 't1' },
        },
      ],
    });
    expect(errorInfoReason(error)).toBe('RESUME_TOKEN_MISMATCH');
    expect(errorInfoReason({ code: 1, message: 'x' })).toBeUndefined();
  });
});
