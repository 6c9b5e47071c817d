/**
 * @module mock/match
 * Which recorded exchange an incoming request is (docs/design.md §13). Pure: a recorded request
 * and an incoming one in, the fields that differ out.
 *
 * A request matches a recorded one when its HTTP method, its path (without the query) and its
 * body are the same after the id mapping and the noise rules `run` uses: the incoming body is
 * rewritten to recorded ids with the recording's {@link IdMap} (extended by the ids this very
 * request pairs for the first time, e.g. a message id the client chose), then compared with
 * {@link contentDifferences} under the method's {@link IgnoreSet}, plus the JSON-RPC `id` (each
 * client numbers its own calls). A recorded id the client was never given pairs with whatever
 * the client sends in its place, so a wrong resume token matches the recorded wrong-token attempt;
 * a recorded id the client was given must come back as given.
 *
 * An HTTP+JSON exchange (design §15) is compared in the call view (src/observe/call-view.ts): the
 * same method (a `:subscribe` by GET or POST alike), the same interface path before the route's
 * tail, and the same params — the path's task id among them, so ids in the path are mapped like
 * ids in params — under the same rules, at `/params/...`.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { readTarget } from '../http/request-target.js';
import { type RequestView, readRequest, readRequestParts } from '../observe/call-view.js';
import { restRequestOf } from '../protocol/rest-binding.js';
import { REPLAY_MAX_BODY_DEPTH, type RecordingEntry } from '../recording/format.js';
import { nestsDeeperThan } from '../canonical/depth.js';
import { type IgnoreSet, contentDifferences } from '../replay/content.js';
import type { IdMap } from '../replay/substitution.js';

/** A request as the mock received it (any transport). */
export interface IncomingRequest {
  method: string;
  /** The request target: path and query. */
  path: string;
  /** The parsed JSON body; undefined for none or a body that is not JSON. */
  body: JsonValue | undefined;
  /** The body as text (empty for none). */
  text: string;
  /**
   * The body is JSON nested deeper than replay and mock walk: it is matched by its text, as the
   * recorder keeps such a body as its text (docs/design.md §5).
   */
  deep?: boolean;
  /**
   * The `A2A-Version` the request carried (its header, else its `A2A-Version` query parameter,
   * trimmed; '' for none), checked as the reference peer checks it (docs/design.md §13).
   */
  version: string;
  /**
   * Set for a gRPC call (docs/design.md §16): `path` is its `:path`, `body` its message's
   * ProtoJSON, matched against recorded gRPC requests only.
   */
  grpc?: true;
}

/** The parsed body of a request's text, or none: no body, not JSON, or JSON nested too deep. */
export function incomingBody(text: string): Pick<IncomingRequest, 'body' | 'deep'> {
  if (text.trim() === '') return { body: undefined };
  let body: JsonValue;
  try {
    body = JSON.parse(text) as JsonValue;
  } catch {
    return { body: undefined };
  }
  return nestsDeeperThan(body, REPLAY_MAX_BODY_DEPTH) ? { body: undefined, deep: true } : { body };
}

/** The `A2A-Version` of a request: the header's value, else the query parameter's, trimmed ('' for none). */
export function requestVersion(header: string | null | undefined, target: string): string {
  if (header !== null && header !== undefined) return header.trim();
  const at = target.indexOf('?');
  return at < 0 ? '' : (new URLSearchParams(target.slice(at + 1)).get('A2A-Version') ?? '').trim();
}

/** How an incoming request compares with one recorded request. */
export interface RequestComparison {
  /** The fields that differ: `http.method`, `http.path`, or JSON pointers into the body (`/params/taskId`). */
  fields: string[];
  /** The recording's id map plus the pairs this request makes; adopt it when the request is served. */
  ids: IdMap;
}

/** Paths never compared in a request: the client's own JSON-RPC call number. */
export const REQUEST_VOLATILE: readonly string[] = ['/id'];

/** The path without its query, as src/http/request-target.ts reads it (design §5). */
export function pathOnly(path: string): string {
  return readTarget(path).path;
}

function record(value: JsonValue | undefined): { [key: string]: JsonValue } | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** The JSON-RPC `params` of a body (where ids are learned; the call number is not an id). */
export function paramsOf(body: JsonValue | undefined): JsonValue | undefined {
  return record(body)?.params;
}

/** An incoming request read in its binding (design §15). */
export function incomingCall(incoming: IncomingRequest): RequestView {
  const bodyText = incoming.body === undefined && incoming.text !== '' ? incoming.text : undefined;
  return readRequestParts({
    http: { method: incoming.method.toUpperCase(), path: incoming.path },
    body: incoming.body,
    bodyText,
  });
}

/** The interface path of an HTTP+JSON target: the path before the route's tail (`/rest` of `/rest/tasks/t-1:pause`). */
function interfacePath(target: string, method: string, params: unknown): string {
  const path = pathOnly(target);
  const route = restRequestOf(method, params);
  const tail = route === undefined ? '' : pathOnly(route.path);
  return tail !== '' && path.endsWith(tail) ? path.slice(0, path.length - tail.length) : path;
}

type CallView = Extract<RequestView, { kind: 'call' }>;

function compareRest(
  recorded: RecordingEntry,
  recordedCall: CallView,
  incoming: IncomingRequest,
  ids: IdMap,
  ignore: IgnoreSet,
): RequestComparison {
  const fields: string[] = [];
  const trial = ids.clone();
  const call = incomingCall(incoming);
  const subscribe = recordedCall.method === 'SubscribeToTask';
  const verbDiffers = recorded.http.method.toUpperCase() !== incoming.method.toUpperCase();
  if (call.kind !== 'call' || call.binding !== 'HTTP+JSON') {
    if (verbDiffers) fields.push('http.method');
    fields.push('http.path');
    return { fields, ids: trial };
  }
  if (verbDiffers && !(subscribe && call.method === 'SubscribeToTask')) fields.push('http.method');
  if (call.method !== recordedCall.method) fields.push('/method');
  const recordedParams = recordedCall.params as JsonValue;
  trial.learn(recordedParams, call.params as JsonValue);
  const mapped = trial.toRecorded(call.params as JsonValue);
  const recordedBase = interfacePath(recorded.http.path, recordedCall.method, recordedCall.params);
  if (recordedBase !== interfacePath(incoming.path, call.method, call.params)) fields.push('http.path');
  for (const d of contentDifferences({ params: recordedParams }, { params: mapped }, ignore))
    fields.push(d.path === '' ? 'body' : d.path);
  return { fields, ids: trial };
}

/**
 * A gRPC call against a recorded request: the same path (so the same method) of a recorded gRPC
 * call, and the same message, compared as its ProtoJSON (the ids it pairs learned from the whole
 * message, which is the JSON-RPC `params`). The message is compared as the params it is, at
 * `/params/...` as HTTP+JSON's: a message's own `id` (GetTask's, CancelTask's task id) is no
 * JSON-RPC call number, which the ignore set leaves out at `/id`.
 */
function compareGrpc(
  recorded: RecordingEntry,
  incoming: IncomingRequest,
  ids: IdMap,
  ignore: IgnoreSet,
): RequestComparison {
  const trial = ids.clone();
  if (recorded.grpc === undefined || incoming.grpc !== true) return { fields: ['binding'], ids: trial };
  const fields: string[] = [];
  if (recorded.http.path !== incoming.path) fields.push('http.path');
  trial.learn(recorded.body, incoming.body);
  const mapped = trial.toRecorded(incoming.body);
  const asParams = (message: JsonValue | undefined): JsonValue | undefined =>
    message === undefined ? undefined : { params: message };
  for (const d of contentDifferences(asParams(recorded.body), asParams(mapped), ignore))
    fields.push(d.path === '' ? 'body' : d.path);
  return { fields, ids: trial };
}

/** Compares `incoming` with the recorded request `recorded`; `ignore` holds the method's noise rules. */
export function compareRequest(
  recorded: RecordingEntry,
  incoming: IncomingRequest,
  ids: IdMap,
  ignore: IgnoreSet,
): RequestComparison {
  if (recorded.grpc !== undefined || incoming.grpc === true) return compareGrpc(recorded, incoming, ids, ignore);
  const recordedCall = readRequest(recorded);
  if (recordedCall.kind === 'call' && recordedCall.binding === 'HTTP+JSON')
    return compareRest(recorded, recordedCall, incoming, ids, ignore);
  const fields: string[] = [];
  if (recorded.http.method.toUpperCase() !== incoming.method.toUpperCase()) fields.push('http.method');
  if (pathOnly(recorded.http.path) !== pathOnly(incoming.path)) fields.push('http.path');
  const trial = ids.clone();
  if (recorded.body === undefined || incoming.body === undefined) {
    const recordedText = recorded.body === undefined ? (recorded.bodyText ?? '') : JSON.stringify(recorded.body);
    const incomingText = incoming.body === undefined ? incoming.text : JSON.stringify(incoming.body);
    if (recordedText !== incomingText) fields.push('body');
    return { fields, ids: trial };
  }
  trial.learn(paramsOf(recorded.body), paramsOf(incoming.body));
  const mapped = trial.toRecorded(incoming.body);
  for (const d of contentDifferences(recorded.body, mapped, ignore)) fields.push(d.path === '' ? 'body' : d.path);
  return { fields, ids: trial };
}

/** How far a comparison is from a match: another binding, path or method counts far more than a field. */
export function distance(comparison: RequestComparison): number {
  let n = 0;
  for (const f of comparison.fields) {
    if (f === 'binding') n += 1000;
    else n += f === 'http.method' || f === 'http.path' || f === '/method' ? 100 : 1;
  }
  return n;
}
