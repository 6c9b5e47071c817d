/**
 * @module observe/observed-exchange
 * One exchange as the fact reader follows it (docs/design.md §14.2), from its request to its end,
 * and the facts read from it alone: what its request asked for, what a control call's answer said,
 * where its result sits in its binding.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { readTarget } from '../http/request-target.js';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import { CONTROL_PATH } from '../protocol/methods.js';
import type { MethodCall } from '../protocol/params.js';
import { type FieldIssue, formatIssue, isRecord } from '../protocol/read.js';
import type { CallBinding } from './call-view.js';
import type { TaskState } from '../protocol/types.js';
import type { SpanRef } from '../receipts/types.js';
import type { RecordingEntry } from '../recording/format.js';
import { tokenHashOf } from '../recording/resume-token.js';
import { parseTraceparent } from '../tracing/span-events.js';
import type { ControlCall, EntryRef, Fact } from './fact.js';
import type { A2aVersion } from './dialect-view.js';
import { v03Result } from './v03-dialect.js';
import type { SightingIssue } from './sightings.js';

/** One exchange from its request to its end. */
export interface ObservedExchange {
  xid: string;
  principal: string | null;
  parent: SpanRef | undefined;
  control: boolean;
  /** The binding of the call, once its request was read as one; undefined for what is no call. */
  binding: CallBinding | undefined;
  rpcId: JsonRpcId | undefined;
  /** The A2A version its request was read in (observe/dialect-view); undefined for what is no call. */
  version: A2aVersion | undefined;
  call: MethodCall | undefined;
  /** The call's params did not parse (`malformed-params`): a result the peer answers it with is unread. */
  paramsUnread: boolean;
  seq: number;
  /** Tasks this exchange carried (stream events, or a streaming method's single JSON answer). */
  carries: Set<string>;
  /** Last effective state per task on this stream, for transition checks. */
  lastState: Map<string, TaskState>;
  /** Per task, the status message with a DataPart this stream showed last, until the next status (§14.9). */
  prompts: Map<string, unknown>;
}

/** The exchange a request entry opens: no call read yet. */
export function openExchange(entry: RecordingEntry): ObservedExchange {
  return {
    xid: entry.xid,
    principal: entry.principal ?? null,
    parent: parseTraceparent(entry.http.headers?.traceparent),
    control: readTarget(entry.http.path).path === CONTROL_PATH,
    binding: undefined,
    rpcId: undefined,
    version: undefined,
    call: undefined,
    paramsUnread: false,
    seq: entry.seq,
    carries: new Set(),
    lastState: new Map(),
    prompts: new Map(),
  };
}

/** The fact a call's request gives, if its method is one the rules read. */
export function callFact(
  ex: ObservedExchange,
  entry: RecordingEntry,
  c: MethodCall,
  binding: CallBinding,
): Fact | undefined {
  const at = ref(entry);
  switch (c.method) {
    case 'PauseTask':
    case 'AwaitTaskResumption':
      return {
        type: 'PauseRequested',
        entry: at,
        xid: ex.xid,
        taskId: c.params.taskId,
        method: c.method,
        mode: c.method === 'PauseTask' ? c.params.mode : null,
        reason: c.params.reason ?? null,
        principal: ex.principal,
        bodyRepaired: entry.bodyRepaired !== undefined,
        parent: ex.parent,
        binding,
      };
    case 'ResumeTask':
      return {
        type: 'ResumeCalled',
        entry: at,
        xid: ex.xid,
        taskId: c.params.taskId,
        tokenHash: tokenHashOf(c.params.resumeToken),
        input: c.params.input,
        continueTranscript: c.params.continueTranscript,
        principal: ex.principal,
        binding,
        parent: ex.parent,
      };
    case 'CancelTask':
      return {
        type: 'CancelCalled',
        entry: at,
        xid: ex.xid,
        taskId: c.params.id,
        principal: ex.principal,
        binding,
      };
    case 'AdvanceClock':
    case 'FireEvent':
      return { type: 'ControlCalled', entry: at, call: controlCallOf(ex, c) };
    case 'SendStreamingMessage':
    case 'SendMessage': {
      const m = c.params.message;
      return {
        type: 'MessageSent',
        entry: at,
        xid: ex.xid,
        taskId: m.taskId === '' ? undefined : m.taskId,
        contextId: m.contextId === undefined || m.contextId === '' ? null : m.contextId,
        parts: m.parts as unknown as JsonValue,
        principal: ex.principal,
        binding,
      };
    }
    case 'SubscribeToTask':
    case 'GetTask':
    case 'ListTasks':
    case 'GetClock':
      return undefined;
    default: {
      const never: never = c;
      return never;
    }
  }
}

/** What a control call's answer said: the peer's clock and, for FireEvent, the tasks it resumed. */
export function controlAnswerFact(ex: ObservedExchange, entry: RecordingEntry, result: unknown): Fact | undefined {
  const c = ex.call;
  const call: ControlCall =
    c && (c.method === 'AdvanceClock' || c.method === 'FireEvent' || c.method === 'GetClock')
      ? controlCallOf(ex, c)
      : { seq: ex.seq, method: 'GetClock', name: undefined, payloadTaskId: undefined, principal: ex.principal };
  if (!isRecord(result)) return undefined;
  let now: string | undefined;
  if (typeof result.now === 'string') now = result.now;
  else if (typeof result.now === 'number' && Number.isFinite(result.now)) now = new Date(result.now).toISOString();
  let resumed: string[] | undefined;
  if (call.method === 'FireEvent' && Array.isArray(result.resumed))
    resumed = result.resumed.filter((id): id is string => typeof id === 'string' && id !== '');
  if (now === undefined && resumed === undefined) return undefined;
  return { type: 'ControlAnswered', entry: ref(entry), call, now, resumed };
}

/** Where a call's result sits in its answer: `body.result` (JSON-RPC) or `body` (HTTP+JSON, gRPC). */
export function resultField(ex: ObservedExchange): string {
  return ex.binding === 'JSONRPC' || ex.binding === undefined ? 'body.result' : 'body';
}

/** The binding a fact names for the exchange: JSON-RPC unless its request was read as HTTP+JSON. */
export function bindingOf(ex: ObservedExchange): CallBinding {
  return ex.binding ?? 'JSONRPC';
}

/** The entry a fact is read from. */
export function ref(entry: RecordingEntry): EntryRef {
  return { seq: entry.seq, at: entry.at };
}

/** A control call as its request named it. */
function controlCallOf(
  ex: ObservedExchange,
  c: Extract<MethodCall, { method: 'AdvanceClock' | 'FireEvent' | 'GetClock' }>,
): ControlCall {
  if (c.method !== 'FireEvent')
    return { seq: ex.seq, method: c.method, name: undefined, payloadTaskId: undefined, principal: ex.principal };
  const payload = c.params.payload;
  const payloadTaskId =
    isRecord(payload) && typeof payload.taskId === 'string' && payload.taskId !== '' ? payload.taskId : undefined;
  return { seq: ex.seq, method: 'FireEvent', name: c.params.name, payloadTaskId, principal: ex.principal };
}

/**
 * An answer's result as the fact reader reads it: in v1.0's shapes whatever dialect it came in
 * (observe/v03-dialect), with a tool-call gate's prompt carried ({@link carryPrompt}).
 */
export function readAnswer(ex: ObservedExchange, answer: unknown): unknown {
  const form = ex.binding === 'JSONRPC' ? 'rpc' : 'proto';
  return carryPrompt(ex, ex.version === '0.3' ? v03Result(ex.call?.method, answer, form) : answer);
}

/**
 * A stream's status update as the fact reader reads it, with the prompt a tool-call gate put in
 * the event before (docs/design.md §14.9): a status update whose message carries a DataPart (a
 * confirmation request such as `{request: {callId, name, args}}`) is remembered for its task, and
 * an INPUT_REQUIRED or AUTH_REQUIRED status update of that task without a message of its own comes
 * back with that message as its prompt. Any other status update of the task forgets it.
 */
export function carryPrompt(ex: ObservedExchange, result: unknown): unknown {
  if (!isRecord(result) || !isRecord(result.statusUpdate)) return result;
  const update = result.statusUpdate;
  const taskId = update.taskId;
  const status = update.status;
  if (typeof taskId !== 'string' || !isRecord(status)) return result;
  const asked = ex.prompts.get(taskId);
  ex.prompts.delete(taskId);
  const message = status.message;
  const interrupted = status.state === 'TASK_STATE_INPUT_REQUIRED' || status.state === 'TASK_STATE_AUTH_REQUIRED';
  if (interrupted && message === undefined && asked !== undefined)
    return { ...result, statusUpdate: { ...update, status: { ...status, message: asked } } };
  if (!interrupted && isRecord(message) && Array.isArray(message.parts) && message.parts.some(hasData))
    ex.prompts.set(taskId, message);
  return result;
}

function hasData(part: unknown): boolean {
  return isRecord(part) && part.data !== undefined;
}

/** Why a result answering a call whose params did not parse is unread (the `unread-call` finding). */
export function unreadCallWhy(ex: ObservedExchange): string {
  return (
    `the peer answered exchange ${ex.xid} with a result, but its request's params did not parse: ` +
    'what the call did is not read'
  );
}

/** The `malformed-params` finding of a request whose params do not parse for its method. */
export function paramsIssue(binding: CallBinding, issue: FieldIssue): SightingIssue {
  // JSON-RPC params sit in the body; HTTP+JSON params come from path, query and body.
  const at = binding === 'JSONRPC' ? 'body.' : '';
  return { code: 'malformed-params', field: `${at}${issue.field}`, message: `${at}${formatIssue(issue)}` };
}
