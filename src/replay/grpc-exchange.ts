/**
 * @module replay/grpc-exchange
 * Sends one recorded gRPC call to the live peer's gRPC endpoint and reports what comes back as
 * recording entries of the gRPC form (docs/design.md §5, §16): a unary answer is a `response`
 * (the message's ProtoJSON, or no body on an error, with `grpc.status`, `grpc.message` and the
 * decoded `grpc-status-details-bin`); a server stream is one `event` per message and an `end`
 * carrying the status.
 *
 * The recorded request's ProtoJSON (with live ids) is encoded with the method table
 * (src/grpc/methods.ts) and sent with grpc-js, raw bytes in and out as the peer's adapter takes
 * them. Metadata is the recorded one minus redacted values (as the JSON path drops a
 * `[redacted …]` header) and the keys the HTTP/2 and gRPC stacks write themselves, but for the
 * client's deadline: `grpc-timeout` goes out with its recorded value, a time-out relative to when
 * the call is sent, as the recorded client's was. A call the peer could not be asked (no
 * connection: UNAVAILABLE before any header came) is an infrastructure failure, not an entry.
 */
import { fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { Client, Metadata, credentials, type ServiceError, type StatusObject, status as GrpcCode } from '@grpc/grpc-js';
import type { JsonValue } from '../canonical/canonical-json.js';
import { A2aReplayError, errorMessage } from '../errors.js';
import { GRPC_STATUS_DETAILS_KEY } from '../grpc/grpc-status.js';
import { type GrpcMethod, grpcMethodOfPath } from '../grpc/methods.js';
import { grpcTimeoutMs, statusDetailsJson } from '../grpc/grpc-wire.js';
import type { EntryGrpc, RecordingEntry } from '../recording/format.js';
import type { EntryDraft } from '../recording/recording-writer.js';
import type { ReplayPlan } from './lanes.js';
import type { LiveCall } from './live-exchange.js';

/** Metadata keys never replayed as recorded: the transport's own, and gRPC's reserved `grpc-*`. */
const NOT_REPLAYED = new Set([
  'host',
  'content-type',
  'content-length',
  'te',
  'user-agent',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'accept-encoding',
]);

export interface GrpcCallOptions {
  /** A channel to the live peer's gRPC endpoint. */
  client: Client;
  /** Where the channel goes (`HOST:PORT`), for messages. */
  target: string;
  /** The recorded request (path, metadata). */
  request: RecordingEntry;
  /** The request message's ProtoJSON, with live ids. */
  body: JsonValue | undefined;
  /** Every answer entry (not the request), in order. */
  onEntry: (draft: EntryDraft) => void;
}

/** The `grpc-timeout` header, the client's deadline relative to its call (docs/design.md §16). */
const TIMEOUT_KEY = 'grpc-timeout';

/** `grpc-timeout` units, finest first (docs/design.md §16). */
const TIMEOUT_UNITS: readonly (readonly [string, number])[] = [
  ['n', 0.000_001],
  ['u', 0.001],
  ['m', 1],
  ['S', 1000],
  ['M', 60_000],
  ['H', 3_600_000],
];

/** The most a `grpc-timeout` value holds: 8 digits. */
const TIMEOUT_MAX_AMOUNT = 99_999_999;

/**
 * A time-out in milliseconds as a `grpc-timeout` value: exact in the finest unit that holds it in
 * 8 digits, else rounded up (never shorter than recorded); undefined when no unit holds it.
 */
export function grpcTimeoutHeader(ms: number): string | undefined {
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  for (const [unit, factor] of TIMEOUT_UNITS) {
    const amount = ms / factor;
    const whole = Math.round(amount);
    if (whole <= TIMEOUT_MAX_AMOUNT && Math.abs(whole - amount) <= 1e-9 * Math.max(1, amount)) return `${whole}${unit}`;
  }
  for (const [unit, factor] of TIMEOUT_UNITS) {
    const amount = Math.ceil(ms / factor);
    if (amount <= TIMEOUT_MAX_AMOUNT) return `${amount}${unit}`;
  }
  return undefined;
}

/**
 * The `grpc-timeout` to send for a recorded request: its recorded header as it was when that says
 * the recorded `grpc.timeoutMs`, else that time-out written as a header; none when none was recorded.
 */
export function replayTimeout(request: Pick<RecordingEntry, 'http' | 'grpc'>): string | undefined {
  const ms = request.grpc?.timeoutMs;
  if (ms === undefined) return undefined;
  const header = request.http.headers?.[TIMEOUT_KEY]?.trim();
  if (header !== undefined && grpcTimeoutMs(header) === ms) return header;
  return grpcTimeoutHeader(ms);
}

/** The metadata to send for a recorded request's headers; `timeout` its `grpc-timeout`, if any. */
export function replayMetadata(recorded: Record<string, string> | undefined, timeout?: string): Metadata {
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(recorded ?? {})) {
    if (name.startsWith(':') || name.startsWith('grpc-') || NOT_REPLAYED.has(name)) continue;
    if (value.startsWith('[redacted')) continue;
    if (name.endsWith('-bin')) metadata.add(name, Buffer.from(value, 'base64'));
    else metadata.add(name, value);
  }
  // Sent as metadata, not as a grpc-js deadline, so the peer gets the recorded value itself.
  if (timeout !== undefined) metadata.set(TIMEOUT_KEY, timeout);
  return metadata;
}

/**
 * The method of a recorded gRPC request and its message's bytes, or why it cannot be sent
 * (a path of no known method, a body that is not the method's request message).
 */
export function encodeGrpcRequest(
  path: string,
  body: JsonValue | undefined,
): { ok: true; method: GrpcMethod; bytes: Buffer } | { ok: false; why: string } {
  const known = grpcMethodOfPath(path);
  if (!known) return { ok: false, why: `${path} is no method of A2AService or A2APauseService` };
  if (body === undefined) return { ok: false, why: `the ${known.name} request holds no message (ProtoJSON body)` };
  try {
    const bytes = Buffer.from(toBinary(known.method.request, fromJson(known.method.request, body)));
    return { ok: true, method: known.method, bytes };
  } catch (error) {
    return { ok: false, why: `the body is not a valid ${known.method.request.typeName}: ${errorMessage(error)}` };
  }
}

/** What the trailers of a call said besides its status code. */
function trailerFields(code: number, details: string, trailers: Metadata | undefined): EntryGrpc {
  const grpc: EntryGrpc = { status: code };
  if (details !== '') grpc.message = details;
  const bin = trailers?.get(GRPC_STATUS_DETAILS_KEY)[0];
  if (bin instanceof Buffer) grpc.details = statusDetailsJson(bin);
  return grpc;
}

/** Sends a recorded gRPC call to the live peer. */
export function sendGrpcLive(options: GrpcCallOptions): LiveCall {
  const { request } = options;
  const http = { method: request.http.method, path: request.http.path };
  const encoded = encodeGrpcRequest(request.http.path, options.body);
  if (!encoded.ok) {
    throw new A2aReplayError('RECORDING_MALFORMED', `line ${request.seq + 1} (seq ${request.seq}): ${encoded.why}`);
  }
  const { method, bytes } = encoded;
  let aborted = false;
  let headers = false;
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  let cancel: () => void = () => {};
  const live: LiveCall = {
    done,
    failure: undefined,
    abort: () => {
      aborted = true;
      cancel();
      resolveDone();
    },
  };
  const emit = (draft: EntryDraft): void => {
    if (!aborted) options.onEntry(draft);
  };
  const raw = (b: Buffer): Buffer => b;
  const decode = (message: Buffer): { body: JsonValue } | { error: string } => {
    try {
      return { body: toJson(method.response, fromBinary(method.response, message)) as JsonValue };
    } catch (error) {
      return { error: `the live message is not a valid ${method.response.typeName}: ${errorMessage(error)}` };
    }
  };
  const unreachable = (code: number, details: string): boolean => {
    if (code !== (GrpcCode.UNAVAILABLE as number) || headers) return false;
    live.failure = new A2aReplayError(
      'PEER_UNREACHABLE',
      `cannot reach the gRPC peer at ${options.target} (${details}) sending ${request.http.path} ` +
        `(recorded seq ${request.seq})`,
    );
    return true;
  };
  const metadata = replayMetadata(request.http.headers, replayTimeout(request));
  if (method.stream) {
    const call = options.client.makeServerStreamRequest(request.http.path, raw, raw, bytes, metadata);
    cancel = () => call.cancel();
    call.on('metadata', () => (headers = true));
    call.on('data', (message: Buffer) => {
      const read = decode(message);
      if ('body' in read) emit({ xid: request.xid, kind: 'event', http, body: read.body, grpc: {} });
      else emit({ xid: request.xid, kind: 'error', http, error: read.error, grpc: {} });
    });
    call.on('error', () => {});
    call.on('status', (status: StatusObject) => {
      if (!aborted && !unreachable(status.code, status.details)) {
        emit({
          xid: request.xid,
          kind: 'end',
          http,
          grpc: trailerFields(status.code, status.details, status.metadata),
        });
      }
      resolveDone();
    });
  } else {
    // The answer is read from the status (its trailers: grpc-message, details), which grpc-js
    // reports after the callback has the message.
    let answer: Buffer | undefined;
    const call = options.client.makeUnaryRequest(
      request.http.path,
      raw,
      raw,
      bytes,
      metadata,
      (error: ServiceError | null, message?: Buffer) => {
        if (!error) answer = message ?? Buffer.alloc(0);
      },
    );
    cancel = () => call.cancel();
    call.on('metadata', () => (headers = true));
    call.on('status', (status: StatusObject) => {
      if (aborted || unreachable(status.code, status.details)) return resolveDone();
      const grpc = trailerFields(status.code, status.details, status.metadata);
      if (status.code !== GrpcCode.OK || answer === undefined) {
        emit({ xid: request.xid, kind: 'response', http, grpc });
        return resolveDone();
      }
      const read = decode(answer);
      if ('body' in read) emit({ xid: request.xid, kind: 'response', http, body: read.body, grpc });
      else emit({ xid: request.xid, kind: 'error', http, error: read.error, grpc: {} });
      resolveDone();
    });
  }
  return live;
}

/** The gRPC calls of one replay: a channel to the live peer's gRPC endpoint. */
export interface GrpcChannel {
  /** Sends a recorded gRPC request, its message the ProtoJSON `body` (with live ids). */
  send(request: RecordingEntry, body: JsonValue | undefined, onEntry: (draft: EntryDraft) => void): LiveCall;
  close(): void;
}

/**
 * Refuses a plan whose gRPC calls cannot be sent: a request the codec cannot encode, a time-out
 * no `grpc-timeout` header can carry (RECORDING_MALFORMED), or no endpoint (PEER_UNREACHABLE).
 */
export function checkGrpcPlan(plan: ReplayPlan, target: string | undefined): void {
  for (const ex of plan.exchanges) {
    const { request } = ex;
    if (request.grpc === undefined) continue;
    const where = `line ${request.seq + 1} (seq ${request.seq})`;
    const encoded = encodeGrpcRequest(request.http.path, request.body);
    if (!encoded.ok) {
      throw new A2aReplayError(
        'RECORDING_MALFORMED',
        `${where}: the recorded gRPC call cannot be sent: ${encoded.why}`,
      );
    }
    const timeoutMs = request.grpc.timeoutMs;
    if (timeoutMs !== undefined && replayTimeout(request) === undefined) {
      throw new A2aReplayError(
        'RECORDING_MALFORMED',
        `${where}: grpc.timeoutMs ${JSON.stringify(timeoutMs)} is no time-out a grpc-timeout header can carry ` +
          '(a number of milliseconds, 0 or more, under 10^8 hours)',
      );
    }
    if (target === undefined) {
      throw new A2aReplayError(
        'PEER_UNREACHABLE',
        `${where}: the recording holds a gRPC call (${request.http.path}) and the live peer has no gRPC ` +
          'endpoint: its agent card lists no GRPC interface; pass --grpc-peer HOST:PORT',
      );
    }
  }
}

/**
 * Checks every recorded gRPC call of `plan` can be made, then opens a channel to `target`. A call
 * that cannot be made fails the replay before anything is sent, naming its line and seq: no gRPC
 * endpoint to send it to (PEER_UNREACHABLE), a path of no known method, a body that is not the
 * method's request or a time-out no `grpc-timeout` can carry (RECORDING_MALFORMED). Nothing
 * passes by being skipped.
 */
export function openGrpcChannel(plan: ReplayPlan, target: string | undefined): GrpcChannel {
  checkGrpcPlan(plan, target);
  const address = target ?? '';
  const client = new Client(address, credentials.createInsecure());
  return {
    send: (request, body, onEntry) => sendGrpcLive({ client, target: address, request, body, onEntry }),
    close: () => client.close(),
  };
}
