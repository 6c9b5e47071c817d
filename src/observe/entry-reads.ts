/**
 * @module observe/entry-reads
 * Pure reads made of raw input before it is trusted: whether an entry has the recording-format
 * shape, and which task a call or an unparsed payload names.
 */
import type { MethodCall } from '../protocol/params.js';
import { isRecord } from '../protocol/read.js';
import { ENTRY_KINDS } from '../recording/format.js';

/** Why `entry` is not a recording entry (docs/design.md §5), as `field: expectation`; undefined when it is one. */
export function entryProblem(entry: unknown): string | undefined {
  if (!isRecord(entry)) return 'an entry must be an object';
  if (typeof entry.seq !== 'number' || !Number.isInteger(entry.seq) || entry.seq < 1)
    return 'seq: expected a positive integer';
  if (typeof entry.at !== 'string' || Number.isNaN(Date.parse(entry.at))) return 'at: expected an ISO 8601 time';
  if (typeof entry.xid !== 'string' || entry.xid === '') return 'xid: expected a non-empty string';
  if (!(ENTRY_KINDS as readonly unknown[]).includes(entry.kind))
    return `kind: expected one of ${ENTRY_KINDS.join(', ')}`;
  if (!isRecord(entry.http) || typeof entry.http.method !== 'string' || typeof entry.http.path !== 'string') {
    return 'http: expected {method, path}';
  }
  return undefined;
}

/** The task a parsed call names (`taskId`, `id` or `message.taskId`), if its method names one. */
export function taskIdOfCall(call: MethodCall | undefined): string | undefined {
  if (!call) return undefined;
  switch (call.method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return call.params.message.taskId;
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask':
      return call.params.id;
    case 'PauseTask':
    case 'ResumeTask':
    case 'AwaitTaskResumption':
      return call.params.taskId;
    case 'ListTasks':
    case 'AdvanceClock':
    case 'FireEvent':
    case 'GetClock':
      return undefined;
    default: {
      const never: never = call;
      return never;
    }
  }
}

/** Best-effort task id from unparsed params or results, for findings. */
export function taskIdFromRaw(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  for (const key of ['taskId', 'id'] as const) {
    const v = value[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  for (const member of ['statusUpdate', 'artifactUpdate', 'task'] as const) {
    const inner = value[member];
    if (isRecord(inner)) return taskIdFromRaw(inner);
  }
  return undefined;
}
