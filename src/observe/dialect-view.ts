/**
 * @module observe/dialect-view
 * Which A2A dialect a request speaks, read per exchange from every signal the SDKs use
 * (docs/design.md §14.10): the `A2A-Version` header or query parameter, the JSON-RPC method's name
 * (`message/send` is v0.3, `SendMessage` v1.0), an HTTP+JSON body's shape, the gRPC package
 * (`a2a.v1` is v0.3, `lf.a2a.v1` v1.0). A request in v0.3 is read into the v1.0 call view
 * (observe/v03-dialect), so the fact reader has one vocabulary; a request on the A2A path that is
 * no known dialect (a method neither version has, a version this project does not speak) is
 * `not-understood`, for the observer to name rather than pass over.
 */
import { readTarget } from '../http/request-target.js';
import { CONTROL_METHODS, CORE_METHODS, PAUSE_METHODS } from '../protocol/methods.js';
import { isRecord } from '../protocol/read.js';
import { type RequestEntry, type RequestView, readRequest } from './call-view.js';
import { v03GrpcParams, v03Method, v03Params } from './v03-dialect.js';
import { grpcCallOfPath } from '../grpc/method-paths.js';
import type { FindingCode } from './findings.js';

/** The A2A versions this project reads (docs/design.md §14.10). */
export const A2A_VERSIONS = ['0.3', '1.0'] as const;
export type A2aVersion = (typeof A2A_VERSIONS)[number];

/** A request read in its dialect. */
export type ObservedRequest =
  | (Extract<RequestView, { kind: 'call' }> & { version: A2aVersion })
  | Exclude<RequestView, { kind: 'call' }>
  /** Traffic on the A2A path in no dialect this project reads: what it is, in user words. */
  | { kind: 'not-understood'; version: string | undefined; why: string };

const V10_METHODS: ReadonlySet<string> = new Set<string>([...CORE_METHODS, ...PAUSE_METHODS, ...CONTROL_METHODS]);

/**
 * The `A2A-Version` a request asked for (its header, else its query parameter) as `major.minor`,
 * or '' when it named none (spec §3.6.2: none means 0.3 on the HTTP bindings).
 */
export function askedVersion(entry: Pick<RequestEntry, 'http'>): string {
  const header = entry.http.headers?.['a2a-version'];
  const query =
    header === undefined && entry.http.path.includes('?')
      ? new URLSearchParams(readTarget(entry.http.path).query).get('A2A-Version')
      : null;
  const asked = (header ?? query ?? '').trim();
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(asked);
  return m ? `${Number(m[1])}.${Number(m[2])}` : asked;
}

function known(asked: string): asked is A2aVersion {
  return (A2A_VERSIONS as readonly string[]).includes(asked);
}

/** Reads a recorded request in its dialect. */
export function readObservedRequest(entry: RequestEntry): ObservedRequest {
  return inDialect(entry, readRequest(entry));
}

/** `view` (a request read in its binding) read in the dialect its signals name. */
function inDialect(entry: RequestEntry, view: RequestView): ObservedRequest {
  const asked = askedVersion(entry);
  if (view.kind !== 'call') return view;
  if (asked !== '' && !known(asked)) {
    const why =
      `${view.method} asks for A2A-Version ${asked}, a version this observer does not read ` +
      `(it reads ${A2A_VERSIONS.join(', ')})`;
    return { kind: 'not-understood', version: asked, why };
  }
  if (view.binding === 'JSONRPC') {
    const v1 = v03Method(view.method);
    if (v1 !== undefined) return { ...view, method: v1, params: v03Params(v1, view.params, 'rpc'), version: '0.3' };
    if (V10_METHODS.has(view.method)) return { ...view, version: '1.0' };
    const why = `JSON-RPC method ${JSON.stringify(view.method)} is no method of A2A ${A2A_VERSIONS.join(' or ')}`;
    return { kind: 'not-understood', version: asked === '' ? undefined : asked, why };
  }
  if (view.binding === 'GRPC') {
    // The package decides (a2a.v1 is v0.3, lf.a2a.v1 v1.0), as the SDKs route by service.
    return grpcCallOfPath(entry.http.path)?.version === '0.3'
      ? { ...view, params: v03GrpcParams(view.method, view.params), version: '0.3' }
      : { ...view, version: '1.0' };
  }
  const version = known(asked) ? asked : restVersionOfBody(entry.body);
  return version === '0.3'
    ? { ...view, params: v03Params(view.method, view.params, 'proto'), version }
    : { ...view, version };
}

/**
 * The version of an HTTP+JSON request that named none: a message with `content` is the v0.3
 * proto's, one with `parts` v1.0's; without a message, none named means 0.3 (spec §3.6.2).
 */
function restVersionOfBody(body: unknown): A2aVersion {
  const message = isRecord(body) ? (body.message ?? body.request) : undefined;
  if (isRecord(message) && message.parts !== undefined) return '1.0';
  return '0.3';
}

/**
 * What a request entry records as its `a2aVersion` (docs/design.md §5): the version it was read in
 * when not 1.0, or the version it asked for that no dialect reads; undefined otherwise. Never throws.
 */
export function recordedVersion(entry: RequestEntry): string | undefined {
  return versionToRecord(readRequestOrUndefined(entry));
}

/** readObservedRequest(entry), or undefined when it throws. */
export function readRequestOrUndefined(entry: RequestEntry): ObservedRequest | undefined {
  try {
    return readObservedRequest(entry);
  } catch {
    return undefined; // never in the recorder's way: the observer names what it cannot read
  }
}

/** {@link recordedVersion} of a request read as `view` (undefined: it could not be read). */
export function versionToRecord(view: ObservedRequest | undefined): string | undefined {
  if (view === undefined) return undefined;
  if (view.kind === 'call') return view.version === '1.0' ? undefined : view.version;
  return view.kind === 'not-understood' && view.version !== '1.0' ? view.version : undefined;
}

/**
 * Request entries already read in their dialect by the recorder that wrote them (it reads each
 * request for its `a2aVersion`), so that the observer does not read them again (§14.11). An entry
 * is remembered only when what the reading reads (`http`, `body`, `bodyText`, `grpc`) is the very
 * values read: nothing marked by redaction since, no body repaired by the writer.
 */
const requestReads = new WeakMap<RequestEntry, ObservedRequest>();

/** @internal remembers `view`, readObservedRequest of `entry` as it is now and will stay. */
export function rememberRequestRead(entry: RequestEntry, view: ObservedRequest): void {
  requestReads.set(entry, view);
}

/** The reading {@link rememberRequestRead} left for `entry`, if any. */
export function rememberedRequestRead(entry: RequestEntry): ObservedRequest | undefined {
  return requestReads.get(entry);
}

/** The finding a request that is no call of a known dialect makes. */
export function requestProblem(view: Exclude<ObservedRequest, { kind: 'call' | 'none' }>): {
  code: FindingCode;
  field: string;
  message: string;
} {
  return view.kind === 'not-understood'
    ? { code: 'not-understood', field: 'http', message: view.why }
    : { code: 'malformed-json-rpc', field: view.field, message: view.message };
}
