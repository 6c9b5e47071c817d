/**
 * @module intercept/grpc-exchange
 * One gRPC call turned into recording entries (docs/design.md §5, §16), the gRPC counterpart of
 * the {@link Exchange} of src/intercept/exchange-recorder.ts, writing through the same
 * {@link ExchangeRecorder} (its ids, redaction, principal, resume-token placeholders, caps and
 * entry listener). Every entry carries `grpc` ({@link EntryGrpc}) and `http.path` the call's
 * `:path`; metadata is recorded as headers, secrets redacted.
 *
 * - `request`: the request message as ProtoJSON, the client's `grpc-timeout` and `grpc-encoding`;
 * - a unary call: one `response` with the message (none on an error) and the status the trailers
 *   (or a Trailers-Only answer) carry, `grpc-status-details-bin` decoded;
 * - a server-streaming call: one `event` per message, then `end` with the status;
 * - a call the client cancels: its `response` or `end` with `cancelled`; one that breaks: `error`.
 *
 * A message that does not decode is recorded as a note naming why (`bodyText`), an answer so read
 * marked `incomplete`: the observer did not see it. Nothing here throws into the forwarder.
 */
import type { IncomingHttpHeaders } from 'node:http2';
import { recordedVersion } from '../observe/dialect-view.js';
import type { JsonValue } from '../canonical/canonical-json.js';
import { GRPC_STATUS_DETAILS_KEY } from '../grpc/grpc-status.js';
import {
  type GrpcFrame,
  grpcMessageText,
  grpcTimeoutMs,
  readGrpcMessage,
  statusDetailsJson,
} from '../grpc/grpc-wire.js';
import { type GrpcMethod, grpcMethodOfPath } from '../grpc/methods.js';
import { GrpcStatus } from '../grpc/status-codes.js';
import type { EntryGrpc, EntryHttp } from '../recording/format.js';
import type { EntryDraft } from '../recording/recording-writer.js';
import { type ObservedBody, bodyRecord, sha256Of } from './body-record.js';
import type { ExchangeRecorder } from './exchange-recorder.js';
import type { Hold } from './hold-gate.js';
import { recordedHeaders } from './http-headers.js';

/** The methods whose call can move a task into or out of PAUSED (docs/design.md §16). */
export const MOVING_METHODS: ReadonlySet<string> = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'CancelTask',
  'PauseTask',
  'ResumeTask',
]);

/** Trailers recorded in `grpc`, not among the headers. */
const STATUS_TRAILERS = new Set(['grpc-status', 'grpc-message', GRPC_STATUS_DETAILS_KEY]);

/** The metadata of HTTP/2 headers as recorded: no pseudo-headers, no status trailers. */
export function grpcMetadata(headers: IncomingHttpHeaders | undefined): Record<string, string> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.startsWith(':') || STATUS_TRAILERS.has(name) || value === undefined) continue;
    out[name] = value;
  }
  return recordedHeaders(out);
}

function firstHeader(headers: IncomingHttpHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What the trailers (or a Trailers-Only answer's headers) say of the call's end. */
export function grpcStatusOf(trailers: IncomingHttpHeaders | undefined): EntryGrpc {
  const out: EntryGrpc = {};
  const status = firstHeader(trailers, 'grpc-status');
  if (status !== undefined && /^\d{1,3}$/.test(status.trim())) out.status = Number(status.trim());
  const message = firstHeader(trailers, 'grpc-message');
  if (message !== undefined && message !== '') out.message = grpcMessageText(message);
  const details = firstHeader(trailers, GRPC_STATUS_DETAILS_KEY);
  if (details !== undefined && details !== '') out.details = statusDetailsJson(details);
  return out;
}

type Phase = 'request' | 'answer' | 'done';

/** One gRPC call being recorded. Calls after it is done are ignored. */
export class GrpcExchange {
  readonly xid: string;
  readonly #recorder: ExchangeRecorder;
  readonly #method: GrpcMethod | undefined;
  readonly #http: EntryHttp;
  readonly #requestHeaders: IncomingHttpHeaders;
  #principal: string | undefined;
  #phase: Phase = 'request';
  #requestFrames: GrpcFrame[] = [];
  #requestBytes = 0;
  #responseHeaders: IncomingHttpHeaders | undefined;
  /** A unary call's answer message, recorded with the trailers. */
  #answer: GrpcFrame | undefined;
  #answers = 0;
  #unreadable: string | undefined;
  #holds: Hold[] = [];
  /** Why the client does not get this answer, once it does not ({@link undelivered}). */
  #undelivered: string | undefined;

  /** Records nothing yet: the request entry is written once its message is whole ({@link requestEnd}). */
  constructor(recorder: ExchangeRecorder, headers: IncomingHttpHeaders, method: GrpcMethod | undefined) {
    this.#recorder = recorder;
    this.#method = method;
    this.#requestHeaders = headers;
    const path = firstHeader(headers, ':path') ?? '';
    this.#http = { method: 'POST', path: recorder.redactPath(path) };
    let xid = 'x-unknown';
    try {
      const identity = recorder.requestIdentity(grpcMetadata(headers));
      xid = identity.xid;
      this.#principal = identity.principal;
    } catch (error) {
      recorder.report(error);
    }
    this.xid = xid;
  }

  /** False once the call has ended, failed or was cancelled. */
  get open(): boolean {
    return this.#phase !== 'done';
  }

  /** The holds the entries recorded since the last call produced (see {@link Exchange.takeHold}). */
  takeHold(): Hold | undefined {
    if (this.#holds.length === 0) return undefined;
    const holds = this.#holds;
    this.#holds = [];
    return Promise.all(holds).then(
      (refusals) => refusals.find((refusal) => typeof refusal === 'string'),
      () => undefined,
    );
  }

  /**
   * The client will not get this answer (it cancelled, or its deadline passed): `why` goes on the
   * entry that ends the call, which the forwarder still records as it reads the answer on. The
   * first reason stays; after the call ended it changes nothing.
   */
  undelivered(why: string): void {
    if (this.#phase !== 'done') this.#undelivered ??= why;
  }

  /** A request message arrived whole. */
  requestMessage(frame: GrpcFrame): void {
    if (this.#phase === 'request') {
      this.#requestFrames.push(frame);
      this.#requestBytes += frame.message.byteLength;
    }
  }

  /** The client's messages could not be split (`why`): the request is recorded with that note. */
  requestUnreadable(why: string): void {
    if (this.#phase === 'request') this.#unreadable ??= why;
  }

  /** The client ended its side (or the answer began): records the `request` entry, once. */
  requestEnd(): void {
    if (this.#phase !== 'request') return;
    this.#phase = 'answer';
    this.#guard(() => {
      const headers = grpcMetadata(this.#requestHeaders);
      const principal = this.#principal;
      const grpc: EntryGrpc = {};
      const timeoutMs = grpcTimeoutMs(firstHeader(this.#requestHeaders, 'grpc-timeout'));
      if (timeoutMs !== undefined) grpc.timeoutMs = timeoutMs;
      const encoding = firstHeader(this.#requestHeaders, 'grpc-encoding');
      if (this.#requestFrames.some((f) => f.compressed) && encoding !== undefined) grpc.encoding = encoding;
      const body = this.#requestBody(encoding);
      const draft: EntryDraft = {
        xid: this.xid,
        kind: 'request',
        http: { ...this.#http, headers: this.#recorder.redact(headers) },
        ...body.fields,
        grpc,
      };
      if (principal !== undefined) draft.principal = principal;
      const version = recordedVersion(draft);
      if (version !== undefined) draft.a2aVersion = version;
      void this.#recorder.emit(draft, body.observed);
    });
    this.#requestFrames = [];
  }

  #requestBody(encoding: string | undefined): { fields: Partial<EntryDraft>; observed?: ObservedBody } {
    if (this.#unreadable !== undefined) return { fields: { bodyText: `[request not recorded: ${this.#unreadable}]` } };
    const frames = this.#requestFrames;
    const [frame] = frames;
    if (frame === undefined) return { fields: {} };
    if (this.#method === undefined) {
      return {
        fields: {
          bodyText:
            `[message not recorded: ${this.#http.path} is no method of A2A or its pause extension; ` +
            `${noteOf(frame)}]`,
        },
      };
    }
    if (frames.length > 1) {
      return {
        fields: {
          bodyText:
            `[request not recorded: ${frames.length} messages (${this.#requestBytes} bytes) ` +
            'where the method takes one]',
        },
      };
    }
    return this.#messageRecord(frame, this.#method.request, encoding);
  }

  /** The answer's headers arrived (not a Trailers-Only answer). */
  head(headers: IncomingHttpHeaders): void {
    this.requestEnd();
    if (this.#phase === 'answer') this.#responseHeaders = headers;
  }

  /** An answer message arrived whole: an `event` of a stream at once; a unary answer with the trailers. */
  message(frame: GrpcFrame): void {
    if (this.#phase !== 'answer' || this.#method === undefined) return;
    this.#answers += 1;
    if (!this.#method.stream) {
      this.#answer = frame;
      return;
    }
    this.#guard(() => {
      const encoding = firstHeader(this.#responseHeaders, 'grpc-encoding');
      const body = this.#messageRecord(frame, this.#method?.response, encoding, true);
      const grpc: EntryGrpc = frame.compressed && encoding !== undefined ? { encoding } : {};
      this.#emit({ kind: 'event', http: { ...this.#http }, ...body.fields, grpc }, body.observed);
    });
  }

  /** The answer's messages could not be split (`why`): what follows is not observed. */
  answerUnreadable(why: string): void {
    if (this.#phase !== 'answer' || this.#unreadable !== undefined) return;
    this.#unreadable = why;
    if (this.#method?.stream !== true) return;
    this.#guard(() =>
      this.#emit({
        kind: 'event',
        http: { ...this.#http },
        bodyText: `[message not recorded: ${why}]`,
        incomplete: why,
        grpc: {},
      }),
    );
  }

  /**
   * The call ended with `trailers` (for a Trailers-Only answer, its headers): a unary call's
   * `response`, a stream's `end`.
   */
  finish(
    trailers: IncomingHttpHeaders | undefined,
    options: { trailersOnly?: boolean; cancelled?: boolean } = {},
  ): void {
    this.requestEnd();
    if (this.#phase !== 'answer') return;
    this.#phase = 'done';
    this.#guard(() => {
      const grpc = grpcStatusOf(trailers);
      if (options.trailersOnly) grpc.trailersOnly = true;
      if (options.cancelled) grpc.cancelled = true;
      const headers = this.#recorder.redact({ ...grpcMetadata(this.#responseHeaders), ...grpcMetadata(trailers) });
      const status = Number(firstHeader(this.#responseHeaders ?? trailers, ':status') ?? 200);
      const http: EntryHttp = { ...this.#http, status, headers };
      const ending = { ...this.#unknownOutcome(grpc), ...this.#undeliveredField() };
      if (this.#method?.stream === true) {
        this.#emit({ kind: 'end', http, grpc, ...ending });
        return;
      }
      const encoding = firstHeader(this.#responseHeaders, 'grpc-encoding');
      let body: { fields: Partial<EntryDraft>; observed?: ObservedBody } = { fields: {} };
      if (this.#unreadable !== undefined) {
        body = { fields: { bodyText: `[message not recorded: ${this.#unreadable}]`, incomplete: this.#unreadable } };
      } else if (this.#answers > 1) {
        const why = `${this.#answers} messages where the method answers one`;
        body = { fields: { bodyText: `[message not recorded: ${why}]`, incomplete: why } };
      } else if (this.#answer !== undefined && this.#method !== undefined) {
        body = this.#messageRecord(this.#answer, this.#method.response, encoding, true);
        if (this.#answer.compressed && encoding !== undefined) grpc.encoding = encoding;
      }
      this.#answer = undefined;
      this.#emit({ kind: 'response', http, ...body.fields, ...ending, grpc }, body.observed);
    });
  }

  /**
   * The call broke (`why`), with the status the recorder answered the client, if it did;
   * `incomplete`: the peer may have acted on it, and its answer was not read (said so).
   */
  fail(why: string, grpc: EntryGrpc = {}, incomplete?: string): void {
    this.requestEnd();
    if (this.#phase === 'done') return;
    this.#phase = 'done';
    const fields = { ...(incomplete === undefined ? {} : { incomplete }), ...this.#undeliveredField() };
    this.#guard(() => this.#emit({ kind: 'error', http: { ...this.#http }, error: why, grpc, ...fields }));
  }

  #undeliveredField(): Pick<EntryDraft, 'undelivered'> {
    return this.#undelivered === undefined ? {} : { undelivered: this.#undelivered };
  }

  /**
   * A call that can move a pause which the peer itself ended with DEADLINE_EXCEEDED or CANCELLED:
   * the peer may carry it out after answering (grpc-js runs the handler on), and the wire shows
   * nothing of it, so the entry is `incomplete` saying so (docs/design.md §16), which `lost` and
   * `verify` report: never a pause silently without its receipt.
   */
  #unknownOutcome(grpc: EntryGrpc): Pick<EntryDraft, 'incomplete'> {
    const name = grpcMethodOfPath(this.#http.path)?.name;
    if (name === undefined || !MOVING_METHODS.has(name)) return {};
    if (grpc.status !== GrpcStatus.DEADLINE_EXCEEDED && grpc.status !== GrpcStatus.CANCELLED) return {};
    const status = grpc.status === GrpcStatus.CANCELLED ? 'CANCELLED' : 'DEADLINE_EXCEEDED';
    return {
      incomplete:
        `the peer answered this ${name} ${status}: it may have carried the call out after that, and ` +
        'nothing on the wire says whether it did, so a pause or resume it made has no receipt',
    };
  }

  /** A message's entry fields: its ProtoJSON as a body (tokens as placeholders, cut over the cap), or a note. */
  #messageRecord(
    frame: GrpcFrame,
    schema: GrpcMethod['request'] | undefined,
    encoding: string | undefined,
    answer = false,
  ): { fields: Partial<EntryDraft>; observed?: ObservedBody } {
    if (schema === undefined) return { fields: {} };
    const reading = readGrpcMessage(frame, schema, encoding, this.#recorder.maxObservedBytes);
    if (!reading.ok) {
      const bodyText = `[message not recorded: ${reading.why}; ${noteOf(frame)}]`;
      return { fields: answer ? { bodyText, incomplete: reading.why } : { bodyText } };
    }
    const text = Buffer.from(JSON.stringify(reading.json satisfies JsonValue), 'utf8');
    const record = bodyRecord(text, text.byteLength, this.#recorder.maxBodyBytes, this.#recorder.seenTokens);
    return record.observed === undefined ? { fields: record.fields } : record;
  }

  #emit(draft: Omit<EntryDraft, 'xid'>, observed?: ObservedBody): void {
    const hold = this.#recorder.emit({ xid: this.xid, ...draft } as EntryDraft, observed);
    if (hold !== undefined) this.#holds.push(hold);
  }

  #guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.#recorder.report(error);
    }
  }
}

/** A message's size and digest, for a note standing in for it. */
function noteOf(frame: GrpcFrame): string {
  return `${frame.message.byteLength} bytes${frame.compressed ? ' compressed' : ''}, ${sha256Of(frame.message)}`;
}
