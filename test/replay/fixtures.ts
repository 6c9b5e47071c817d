/**
 * Hand-made recording entries for the replay unit tests.
 */
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import type { RecordingEntry } from '../../src/recording/format.js';

const BASE = Date.UTC(2026, 0, 1);

export function entry(
  seq: number,
  xid: string,
  kind: RecordingEntry['kind'],
  body?: JsonValue,
  path = '/',
): RecordingEntry {
  const e: RecordingEntry = {
    seq,
    at: new Date(BASE + seq * 1000).toISOString(),
    xid,
    kind,
    http: { method: 'POST', path },
  };
  if (kind === 'response') e.http.status = 200;
  if (body !== undefined) e.body = body;
  return e;
}

export function rpc(method: string, params: JsonValue, id: string | number = 1): JsonValue {
  return { jsonrpc: '2.0', id, method, params };
}

export function result(value: JsonValue, id: string | number = 1): JsonValue {
  return { jsonrpc: '2.0', id, result: value };
}

export function statusUpdate(taskId: string, state: string, extra: Record<string, JsonValue> = {}): JsonValue {
  return result({ statusUpdate: { taskId, contextId: 'ctx-1', status: { state, ...extra } } });
}

/** A streaming task that pauses itself, then a FireEvent, then the resumed tail. */
export function selfParkRecording(): RecordingEntry[] {
  const pause = {
    initiatedBy: 'PAUSE_INITIATOR_AGENT',
    resumeToken: 'tok-rec-1',
    pausedAt: '2026-01-01T00:00:01.000Z',
    resumable: true,
  };
  return [
    entry(
      1,
      'x1',
      'request',
      rpc('SendStreamingMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'await:go' }] } }),
    ),
    entry(2, 'x1', 'response'),
    entry(
      3,
      'x1',
      'event',
      result({ task: { id: 'task-rec-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_SUBMITTED' } } }),
    ),
    entry(4, 'x1', 'event', statusUpdate('task-rec-1', 'TASK_STATE_PAUSED', { pause })),
    entry(5, 'x2', 'request', rpc('FireEvent', { name: 'go' }), '/control'),
    entry(6, 'x1', 'event', statusUpdate('task-rec-1', 'TASK_STATE_WORKING')),
    entry(7, 'x2', 'response', result({})),
    entry(8, 'x3', 'request', rpc('GetTask', { id: 'task-rec-1' })),
    entry(
      9,
      'x3',
      'response',
      result({ id: 'task-rec-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } }),
    ),
    entry(10, 'x1', 'event', statusUpdate('task-rec-1', 'TASK_STATE_COMPLETED')),
    entry(11, 'x1', 'end'),
  ];
}
