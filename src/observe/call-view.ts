/**
 * @module observe/call-view
 * Reads a recorded exchange into one binding-independent view (docs/design.md §15): a request entry
 * becomes method + params (and, for JSON-RPC, its id), whichever binding carried it; an HTTP+JSON
 * answer becomes a result or an error in the terms of the one error table. JSON-RPC is read from its
 * envelope; HTTP+JSON from the verb and the path's tail (src/protocol/rest-binding.ts; v0.3's `…/v1/card`
 * from src/protocol/rest-binding-v03.ts), its query and
 * its body. The target is read as src/http/request-target.ts reads it (docs/design.md §5), and its
 * route decides the binding: a request whose path names an HTTP+JSON route is HTTP+JSON whatever
 * its body holds. A gRPC entry (one carrying `grpc`, docs/design.md §16) is read by its `:path`
 * (src/grpc/methods.ts): its method, its request's ProtoJSON as params, its answer's ProtoJSON as the
 * result, its status and ErrorInfo as the error. The fact reader (observe/facts) reads every call
 * through here.
 */
import { type JsonRpcId, parseJsonRpcMessage } from '../protocol/json-rpc.js';
import { type Binding, readRestError, restParams } from '../protocol/rest-binding.js';
import { matchV03RestTail } from '../protocol/rest-binding-v03.js';
import { readTarget } from '../http/request-target.js';
import { JSON_RPC_ERRORS } from '../protocol/errors.js';
import { formatIssue, isRecord } from '../protocol/read.js';
import type { RecordingEntry } from '../recording/format.js';
import { grpcMethodNameOfPath } from '../grpc/method-paths.js';

/** The binding a call travelled in: one of the JSON bindings, or gRPC (docs/design.md §16). */
export type CallBinding = Binding | 'GRPC';

/** What a request entry asked for. */
export type RequestView =
  | { kind: 'call'; binding: CallBinding; rpcId: JsonRpcId | undefined; method: string; params: unknown }
  /** Nothing to read: no body and no route (an agent card GET), or a JSON-RPC notification. */
  | { kind: 'none' }
  /** A body that is not a request of its binding; `field` and `message` for the finding. */
  | { kind: 'malformed'; field: string; message: string };

/** A request as it travelled: verb and target, the parsed body and, for a body that is not JSON, its text. */
export interface RequestParts {
  http: { method: string; path: string };
  body?: unknown;
  bodyText?: string | undefined;
}

/** What reading a request entry takes: a draft the recorder has not numbered yet will do. */
export type RequestEntry = Pick<RecordingEntry, 'http' | 'body' | 'bodyText' | 'grpc'>;

/** Reads a request entry in its binding. */
export function readRequest(entry: RequestEntry): RequestView {
  if (entry.grpc !== undefined) return readGrpcRequest(entry);
  return readRequestParts(entry);
}

/** A gRPC request: the method its path names, its message's ProtoJSON the params. */
function readGrpcRequest(entry: RequestEntry): RequestView {
  const name = grpcMethodNameOfPath(entry.http.path);
  if (name === undefined) return { kind: 'none' };
  if (entry.body === undefined && entry.bodyText !== undefined)
    return { kind: 'malformed', field: 'bodyText', message: `the ${name} request message was not read` };
  return { kind: 'call', binding: 'GRPC', rpcId: undefined, method: name, params: entry.body ?? {} };
}

/**
 * Reads a gRPC answer (a unary `response`, a stream's `event` or its `end`): a status other than
 * OK is an error with the JSON-RPC code its ErrorInfo reason names (NOT_FOUND without one is
 * TASK_NOT_FOUND, as the binding's error table maps it); a cancelled call or an answer without its
 * message is an error without a code; an `end` with OK has no result (`none`).
 */
export function readGrpcAnswer(entry: RecordingEntry): RestAnswerView | { kind: 'none' } {
  const grpc = entry.grpc ?? {};
  const status = grpc.status;
  if (status !== undefined && status !== 0) {
    const details = isRecord(grpc.details) ? grpc.details.details : undefined;
    const read = readRestError({ error: { message: grpc.message ?? '', details } });
    const named = read?.reason === undefined ? '' : ` (${read.reason})`;
    const code = read?.code ?? (status === GRPC_NOT_FOUND ? TASK_NOT_FOUND_CODE : undefined);
    return { kind: 'error', code, message: `gRPC status ${status}${named}: ${grpc.message ?? ''}` };
  }
  if (grpc.cancelled === true) return { kind: 'error', code: undefined, message: 'the client cancelled the call' };
  if (entry.kind === 'end') return { kind: 'none' };
  if (entry.body === undefined) {
    const why = entry.bodyText === undefined ? 'no message' : 'a message that was not read';
    return { kind: 'error', code: undefined, message: `gRPC status ${status ?? 'none'} with ${why}` };
  }
  return { kind: 'result', result: entry.body };
}

/** gRPC NOT_FOUND, which the binding's error table gives TASK_NOT_FOUND alone (docs/design.md §16). */
const GRPC_NOT_FOUND = 5;
const TASK_NOT_FOUND_CODE = JSON_RPC_ERRORS.TASK_NOT_FOUND.code;

/** Reads a request in its binding, whether recorded or just received (the mock, design §13). */
export function readRequestParts(entry: RequestParts): RequestView {
  // The route decides the binding, never the body's shape: a `jsonrpc` member in a body sent to
  // `POST …/tasks/{id}:pause` does not stop the peer from pausing the task.
  const target = readTarget(entry.http.path);
  const match = matchV03RestTail(entry.http.method, target.path);
  if (match.kind === 'route') {
    if (entry.body === undefined && entry.bodyText !== undefined) {
      return { kind: 'malformed', field: 'bodyText', message: 'the request body is not JSON' };
    }
    const { params } = restParams(match, new URLSearchParams(target.query), entry.body ?? {});
    return { kind: 'call', binding: 'HTTP+JSON', rpcId: undefined, method: match.method, params };
  }
  if (entry.body === undefined) {
    return entry.bodyText === undefined
      ? { kind: 'none' }
      : { kind: 'malformed', field: 'bodyText', message: 'the request body is not JSON' };
  }
  const message = parseJsonRpcMessage(entry.body);
  if (!message.ok) {
    return { kind: 'malformed', field: `body.${message.issue.field}`, message: `body.${formatIssue(message.issue)}` };
  }
  const m = message.value;
  if (m.kind === 'notification') return { kind: 'none' };
  if (m.kind !== 'request') {
    return { kind: 'malformed', field: 'body', message: 'a request entry holds a JSON-RPC response, not a request' };
  }
  return { kind: 'call', binding: 'JSONRPC', rpcId: m.id, method: m.method, params: m.params };
}

/** What an HTTP+JSON answer (a unary body, or one SSE event) said. */
export type RestAnswerView =
  { kind: 'result'; result: unknown } | { kind: 'error'; code: number | undefined; message: string };

/**
 * Reads an HTTP+JSON answer: an error body (`{error: {...}}`, any status from 400, or an SSE `error`
 * event) is an error with the JSON-RPC code its ErrorInfo reason names (v0.3's `{code, message}`
 * with its code); anything else is the result.
 */
export function readRestAnswer(entry: RecordingEntry): RestAnswerView {
  const status = entry.http.status ?? 200;
  const error = readRestError(entry.body);
  if (error !== undefined) {
    const named = error.reason === undefined ? '' : ` (${error.reason})`;
    return { kind: 'error', code: error.code, message: `HTTP ${status}${named}: ${error.message}` };
  }
  if (status >= 400 || entry.sse?.event === 'error') {
    // The v0.3 SDK's HTTP+JSON error body is the JSON-RPC error itself: `{code, message}` (§14.10).
    const body = entry.body;
    if (isRecord(body) && Number.isInteger(body.code) && typeof body.message === 'string')
      return { kind: 'error', code: body.code as number, message: `HTTP ${status}: ${body.message}` };
    return { kind: 'error', code: undefined, message: `HTTP ${status} without an A2A error body` };
  }
  return { kind: 'result', result: entry.body };
}
