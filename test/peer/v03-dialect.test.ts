/**
 * The v0.3 edge of the reference peer (src/peer/v03-dialect.ts, docs/design.md §4 "Two dialects"):
 * v0.3 params in as the v1.0 call the handler reads, v1.0 answers out in v0.3 shapes.
 */
import { describe, expect, it } from 'vitest';
import { endsV03Stream, eventToV03, paramsFromV03, resultToV03 } from '../../src/peer/v03-dialect.js';
import { stateFromV03, stateToV03 } from '../../src/protocol/methods.js';
import { readSendMessageParams } from '../../src/protocol/params.js';
import type { StreamResponse } from '../../src/protocol/types.js';

describe('v0.3 in', () => {
  it('reads a v0.3 message of every part kind, and blocking: false, as the v1.0 params', () => {
    const params = paramsFromV03('SendMessage', {
      message: {
        kind: 'message',
        messageId: 'm1',
        role: 'user',
        taskId: 't1',
        parts: [
          { kind: 'text', text: 'work:1' },
          { kind: 'data', data: { callId: 'c1', outcome: 'approved' }, metadata: { a: 1 } },
          { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
          { kind: 'file', file: { uri: 'https://example.test/x' } },
        ],
      },
      configuration: { blocking: false, historyLength: 2 },
    });
    expect(readSendMessageParams(params)).toEqual({
      message: {
        messageId: 'm1',
        role: 'ROLE_USER',
        taskId: 't1',
        parts: [
          { text: 'work:1' },
          { data: { callId: 'c1', outcome: 'approved' }, metadata: { a: 1 } },
          { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' },
          { url: 'https://example.test/x' },
        ],
      },
      configuration: { historyLength: 2, returnImmediately: true },
    });
  });

  it('leaves a part that is no v0.3 part for the v1.0 reader to name', () => {
    const params = paramsFromV03('SendMessage', {
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'video' }] },
    });
    expect(() => readSendMessageParams(params)).toThrow(/params\.message\.parts\[0\]/);
  });
});

describe('v0.3 out', () => {
  it('names states in kebab case and back', () => {
    expect(stateToV03('TASK_STATE_INPUT_REQUIRED')).toBe('input-required');
    expect(stateToV03('TASK_STATE_PAUSED')).toBe('paused');
    expect(stateToV03('TASK_STATE_UNSPECIFIED')).toBe('unknown');
    expect(stateFromV03('auth-required')).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(stateFromV03('unknown')).toBe('TASK_STATE_UNSPECIFIED');
    expect(stateFromV03('TASK_STATE_WORKING')).toBe('TASK_STATE_WORKING');
  });

  it('shows a task with kind, kebab states and v0.3 parts and roles', () => {
    const task = {
      id: 't1',
      contextId: 'c1',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: { messageId: 'p', role: 'ROLE_AGENT', parts: [{ data: { request: { callId: 'c' } } }] },
      },
      history: [{ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] }],
      artifacts: [{ artifactId: 'a', parts: [{ raw: 'aGk=', mediaType: 'text/plain' }] }],
    };
    expect(resultToV03('SendMessage', { task })).toEqual({
      kind: 'task',
      id: 't1',
      contextId: 'c1',
      status: {
        state: 'input-required',
        message: {
          kind: 'message',
          messageId: 'p',
          role: 'agent',
          parts: [{ kind: 'data', data: { request: { callId: 'c' } } }],
        },
      },
      history: [{ kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] }],
      artifacts: [{ artifactId: 'a', parts: [{ kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain' } }] }],
    });
    expect(
      resultToV03('ResumeTask', { taskId: 't1', state: 'TASK_STATE_WORKING', previousState: 'TASK_STATE_PAUSED' }),
    ).toEqual({
      taskId: 't1',
      state: 'working',
      previousState: 'paused',
    });
  });

  it('marks final the status updates of terminal and interrupted states, not working or paused', () => {
    const update = (state: string): StreamResponse =>
      ({ statusUpdate: { taskId: 't', contextId: 'c', status: { state } } }) as StreamResponse;
    for (const state of [
      'TASK_STATE_COMPLETED',
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_AUTH_REQUIRED',
      'TASK_STATE_CANCELED',
    ]) {
      expect(eventToV03(update(state))).toMatchObject({ kind: 'status-update', final: true });
      expect(endsV03Stream(update(state))).toBe(true);
    }
    for (const state of ['TASK_STATE_WORKING', 'TASK_STATE_PAUSED']) {
      expect(eventToV03(update(state))).toMatchObject({ kind: 'status-update', final: false });
      expect(endsV03Stream(update(state))).toBe(false);
    }
    const artifact = {
      artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } },
    };
    expect(eventToV03(artifact as StreamResponse)).toEqual({
      kind: 'artifact-update',
      taskId: 't',
      contextId: 'c',
      artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'x' }] },
    });
  });
});
