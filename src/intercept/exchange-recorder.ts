/**
 * @module intercept/exchange-recorder
 * The one recording core behind the proxy, the fetch wrapper and the middleware: they report
 * what they see of an exchange (request, response head, body bytes, end or failure) and this
 * turns it into recording entries (docs/design.md §5), so all three record the same traffic the same way.
 *
 * Entry rules: one `request` entry (end-to-end headers, lower-cased and redacted after the
 * principal was taken, the path with secret query values redacted, body parsed as JSON or kept
 * as text); then for a unary response one
 * `response` entry with status, headers and body, and nothing after it; for an SSE response
 * (`text/event-stream`) one `response` entry without body, one `event` entry per SSE event, and
 * `end` (clean close) or `error` (broken stream). An exchange that breaks before its response
 * is complete gets one `error` entry. Every entry of an exchange carries its `xid`.
 *
 * What the observer sees (docs/design.md §5): a gzip, deflate or br answer is decoded (an SSE
 * stream on the side, as it streams); a body or event over the recording cap is recorded as its
 * head ({@link headText}) with `cut`, and handed to `onEntry` whole, up to the observation cap;
 * what cannot be read (another encoding, corrupt data, past the observation cap) is recorded
 * with `incomplete` saying why. How a body becomes entry fields is src/intercept/body-record.ts.
 *
 * Nothing here throws into the adapter: a failure of the recorder or of an entry listener is
 * reported once through `onError` and the proxied exchange goes on untouched.
 */
import { createHash } from 'node:crypto';
import { errorMessage } from '../errors.js';
import { replaceNonFinite } from '../canonical/canonical-json.js';
import type { IdSource } from '../ids.js';
import type { EntryHttp, RecordingEntry } from '../recording/format.js';
import { SeenTokens } from '../recording/resume-token.js';
import { DEFAULT_PRINCIPAL_SOURCE, type PrincipalSource, principalOf } from '../recording/principal.js';
import { RedactionMarks, randomMarkKey } from '../recording/redaction-mark.js';
import { Redactor } from '../recording/redaction.js';
import { adjustSecretRules } from '../recording/secret-rules.js';
import type { EntryDraft, EntryWriter } from '../recording/recording-writer.js';
import {
  type ObservedRequest,
  readRequestOrUndefined,
  rememberRequestRead,
  versionToRecord,
} from '../observe/dialect-view.js';
import type { Hold } from './hold-gate.js';
import { type HeaderInput, mediaType, recordedHeaders } from './http-headers.js';
import {
  type BodyRecord,
  type DecodedEncoding,
  type Decoder,
  type ObservedBody,
  bodyRecord,
  concat,
  encodedBodyRecord,
  headText,
  isDecoded,
  jsonOrText,
  redactedObserved,
  sha256Of,
  streamDecoder,
  textWithoutTokens,
} from './body-record.js';
import { type SseEvent, SseParser } from './sse-parser.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_OBSERVED_BYTES,
  type ExchangeRecorderOptions,
  type HeadOptions,
  type RequestFacts,
  type TokenPolicy,
} from './exchange-options.js';

export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_OBSERVED_BYTES,
  RESPONSE_CUT_MESSAGE,
  type ExchangeRecorderOptions,
  type HeadOptions,
  type RequestFacts,
  type TokenPolicy,
} from './exchange-options.js';

type Phase = 'head' | 'unary' | 'stream' | 'done';

/** One exchange being recorded. Calls after the exchange is done are ignored. */
export class Exchange {
  readonly xid: string;
  readonly #recorder: ExchangeRecorder;
  readonly #http: EntryHttp;
  #phase: Phase = 'head';
  #status = 0;
  #headers: Record<string, string> = {};
  #chunks: Uint8Array[] = [];
  #kept = 0;
  #total = 0;
  /** The sha256 of a unary body too large to keep whole, begun at the first byte it drops. */
  #overflow: ReturnType<typeof createHash> | undefined;
  #encoding = '';
  #parser: SseParser | undefined;
  /** The decompressor of an encoded SSE stream (docs/design.md §5, "Content-encoded answers"). */
  #decoder: Decoder | undefined;
  /** The decoder was ended (the stream finished or broke): what it still holds is being read. */
  #draining = false;
  /** Settles when the decoder fails or closes. */
  #decoderGone: Promise<void> = Promise.resolve();
  #holds: Hold[] = [];
  /** Why the client does not get this answer, once it does not ({@link undelivered}). */
  #undelivered: string | undefined;

  /** @internal created by {@link ExchangeRecorder.request} */
  constructor(recorder: ExchangeRecorder, xid: string, http: EntryHttp) {
    this.#recorder = recorder;
    this.xid = xid;
    this.#http = http;
  }

  /** False once the exchange has ended or failed. */
  get open(): boolean {
    return this.#phase !== 'done';
  }

  /**
   * The holds that the entries recorded since the last call produced, as one promise, or
   * `undefined` when there are none: the proxy calls it after `data` and `finish` and releases the
   * bytes it just recorded only once the promise settles (it never rejects), and refuses the
   * answer instead when it settles to a refusal ({@link Hold}). A chunk of an encoded
   * stream always has one: it settles once the chunk is decoded and the holds of the events it
   * carried have settled.
   */
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
   * The client will not get this answer (it left, or the adapter answered it itself): `why` goes on
   * the entry that ends the exchange, which the adapter still records as it reads the answer on.
   * The first reason stays; after the exchange ended it changes nothing.
   */
  undelivered(why: string): void {
    if (this.#phase !== 'done') this.#undelivered ??= why;
  }

  /** The response head arrived. An SSE response is recorded at once; a unary one at `finish`. */
  head(status: number, headers: HeaderInput, options: HeadOptions = {}): void {
    this.#guard(() => {
      if (this.#phase !== 'head') return;
      this.#status = status;
      this.#headers = this.#recorder.redact(recordedHeaders(headers));
      const encoding = (this.#headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      this.#encoding = options.decoded ? 'identity' : encoding;
      if (mediaType(this.#headers['content-type']) === 'text/event-stream') {
        this.#phase = 'stream';
        this.#emit({ kind: 'response', http: { ...this.#http, status, headers: this.#headers } });
        if (this.#encoding !== 'identity' && !isDecoded(this.#encoding)) {
          const why = `content-encoding ${this.#encoding} is not one the recorder decodes (gzip, deflate, br)`;
          this.#end('error', {
            error: `cannot read the events of this stream: its ${why}`,
            incomplete: why,
          });
          return;
        }
        // An event is read whole up to the observation cap; the recording keeps at most the body
        // cap's worth of its data characters (the rest still reaches the client).
        this.#parser = new SseParser(this.#recorder.maxObservedBytes);
        if (isDecoded(this.#encoding)) this.#decodeStream(this.#encoding);
      } else {
        this.#phase = 'unary';
      }
    });
  }

  /** Response body bytes, in order. */
  data(chunk: Uint8Array): void {
    this.#guard(() => {
      if (this.#phase === 'unary') {
        this.#total += chunk.byteLength;
        const room = this.#recorder.maxObservedBytes + 1 - this.#kept;
        const part = room <= 0 ? undefined : chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
        if (part !== undefined) {
          this.#chunks.push(part);
          this.#kept += part.byteLength;
        }
        if (part === undefined || part.byteLength < chunk.byteLength) {
          // Too large to keep whole: hash it as it passes, to name the whole in the recording.
          if (this.#overflow === undefined) {
            this.#overflow = createHash('sha256');
            for (const kept of this.#chunks) this.#overflow.update(kept);
            if (part !== undefined) this.#overflow.update(chunk.subarray(part.byteLength));
          } else {
            this.#overflow.update(chunk);
          }
        }
      } else if (this.#phase === 'stream' && this.#parser !== undefined && !this.#draining) {
        const decoder = this.#decoder;
        if (decoder === undefined) {
          for (const event of this.#parser.push(chunk)) this.#event(event);
          return;
        }
        // The chunk's events are recorded once it is decoded; the bytes wait for their holds. A
        // decoder that fails calls back no more: its end releases every chunk waiting on it.
        const written = new Promise<void>((resolve) => decoder.write(chunk, () => resolve()));
        const decoded = Promise.race([written, this.#decoderGone]);
        this.#holds.push(decoded.then(() => this.takeHold()));
      }
    });
  }

  /** The response ended normally. */
  finish(): void {
    this.#guard(() => {
      switch (this.#phase) {
        case 'head':
          this.#end('error', { error: 'the exchange ended without a response' });
          return;
        case 'unary': {
          const fields = this.#unaryRecord();
          this.#chunks = [];
          this.#overflow = undefined;
          this.#phase = 'done';
          this.#emit(
            {
              kind: 'response',
              http: { ...this.#http, status: this.#status, headers: this.#headers },
              ...fields.fields,
              ...this.#undeliveredField(),
            },
            fields.observed,
          );
          return;
        }
        case 'stream': {
          if (this.#decoder !== undefined) {
            this.#drain('end', () => this.#end('end', {}));
            return;
          }
          const rest = this.#parser?.end();
          for (const event of rest?.events ?? []) this.#event(event);
          this.#end('end', {});
          return;
        }
        case 'done':
          return;
        default: {
          const never: never = this.#phase;
          return never;
        }
      }
    });
  }

  /**
   * The exchange broke (upstream unreachable, stream cut, client gone); `message` says how.
   * `incomplete`: the peer may have acted on the request and its answer was not read (said so on
   * the entry, which `lost` and `verify` report).
   */
  fail(message: string, incomplete?: string): void {
    this.#guard(() => {
      if (this.#phase === 'done') return;
      if (incomplete !== undefined && this.#phase !== 'stream') {
        this.#chunks = [];
        this.#end('error', { error: message, incomplete });
        return;
      }
      if (this.#phase === 'stream') {
        if (this.#decoder !== undefined) {
          // What was decoded of the bytes already written is still recorded, then the failure.
          this.#drain('flush', () => this.#end('error', { error: message }));
          return;
        }
        for (const event of this.#parser?.end().events ?? []) this.#event(event);
      }
      this.#chunks = [];
      this.#end('error', { error: message });
    });
  }

  /** The record of a whole unary answer (docs/design.md §5). */
  #unaryRecord(): BodyRecord {
    const caps = { record: this.#recorder.maxBodyBytes, observe: this.#recorder.maxObservedBytes };
    const bytes = concat(this.#chunks, this.#kept);
    const total = this.#total;
    const seen = this.#recorder.seenTokens;
    if (this.#encoding !== 'identity' && total > 0) return encodedBodyRecord(this.#encoding, bytes, total, caps, seen);
    const overflow = this.#overflow;
    if (overflow === undefined) return bodyRecord(bytes, total, caps.record, seen);
    const cut = { bytes: total, sha256: `sha256:${overflow.digest('hex')}` };
    const record = bodyRecord(bytes, total, caps.record, seen, () => cut);
    const why = `its body of ${total} bytes is over the ${caps.observe}-byte observation cap (--max-observed-bytes)`;
    return { fields: { ...record.fields, incomplete: why } };
  }

  /** Decodes an encoded SSE stream on the side: its text goes to the parser, the bytes to the client unchanged. */
  #decodeStream(encoding: DecodedEncoding): void {
    const decoder = streamDecoder(encoding);
    this.#decoder = decoder;
    this.#decoderGone = new Promise<void>((resolve) => {
      decoder.once('error', () => resolve());
      decoder.once('close', resolve);
    });
    let read = 0;
    decoder.on('data', (text: Buffer) => {
      this.#guard(() => {
        read += text.byteLength;
        if (this.#phase !== 'stream' || this.#parser === undefined) return;
        for (const event of this.#parser.push(text)) this.#event(event);
      });
    });
    decoder.on('error', (error) => {
      this.#guard(() => {
        if (this.#phase !== 'stream') return;
        this.#decoder = undefined;
        for (const event of this.#parser?.end().events ?? []) this.#event(event);
        const why =
          `the ${encoding} stream is not valid ${encoding} data after ${read} decoded bytes ` +
          `(${errorMessage(error)}): the events after it cannot be read`;
        this.#end('error', { error: `cannot read the rest of the event stream: ${why}`, incomplete: why });
      });
    });
  }

  /**
   * Once every byte written to the decoder is decoded and its events recorded, records how the
   * stream ended (`then`): `end` ends the compressed data too (an unfinished one is corrupt),
   * `flush` only decodes what came (the stream broke, as `then` says). The proxy's hold covers it.
   */
  #drain(how: 'end' | 'flush', then: () => void): void {
    const decoder = this.#decoder;
    if (decoder === undefined || this.#draining) return;
    this.#draining = true;
    const drained = new Promise<void>((resolve) => {
      decoder.once('end', resolve);
      decoder.once('error', () => resolve());
      decoder.once('close', resolve);
      if (how === 'end') decoder.end();
      else decoder.flush(() => resolve());
    }).then(() => {
      this.#guard(() => {
        if (this.#phase !== 'stream') return;
        this.#decoder = undefined;
        for (const event of this.#parser?.end().events ?? []) this.#event(event);
        then();
      });
      return this.takeHold();
    });
    this.#holds.push(drained);
  }

  #event({ data, event, id, truncated }: SseEvent): void {
    const cap = this.#recorder.maxBodyBytes;
    const seen = this.#recorder.seenTokens;
    let fields: Pick<EntryDraft, 'body' | 'bodyText' | 'bodyRepaired' | 'cut' | 'incomplete'>;
    let observed: ObservedBody | undefined;
    if (truncated) {
      // Past the observation cap: neither the recording nor the observer has the whole event.
      fields = {
        bodyText: textWithoutTokens(headText(data, cap), seen, true),
        incomplete:
          `the event's data runs over the ${this.#recorder.maxObservedBytes}-character observation cap ` +
          '(--max-observed-bytes)',
      };
    } else if (data.length > cap) {
      // An event over the recording cap is kept as its first characters; the observer reads it whole.
      fields = {
        bodyText: textWithoutTokens(headText(data, cap), seen, true),
        cut: { bytes: Buffer.byteLength(data), sha256: sha256Of(data) },
      };
      observed = jsonOrText(data, seen);
    } else {
      fields = jsonOrText(data, seen);
    }
    const draft: Omit<EntryDraft, 'xid'> = { kind: 'event', http: { ...this.#http }, ...fields };
    if (event !== undefined || id !== undefined) {
      draft.sse = {};
      if (event !== undefined) draft.sse.event = event;
      if (id !== undefined) draft.sse.id = id;
    }
    this.#emit(draft, observed);
  }

  #end(kind: 'end' | 'error', extra: Pick<EntryDraft, 'error' | 'incomplete'>): void {
    this.#phase = 'done';
    this.#parser = undefined;
    const decoder = this.#decoder;
    this.#decoder = undefined;
    decoder?.destroy();
    this.#emit({ kind, http: { ...this.#http }, ...extra, ...this.#undeliveredField() });
  }

  #undeliveredField(): Pick<EntryDraft, 'undelivered'> {
    return this.#undelivered === undefined ? {} : { undelivered: this.#undelivered };
  }

  #emit(draft: Omit<EntryDraft, 'xid'>, observed?: ObservedBody): void {
    const hold = this.#recorder.emit({ xid: this.xid, ...draft } as EntryDraft, observed);
    if (hold !== undefined) this.#holds.push(hold);
  }

  #guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.#phase = 'done';
      this.#decoder?.destroy();
      this.#decoder = undefined;
      this.#recorder.report(error);
    }
  }
}

/** Whether `entry` holds the very members of `draft` a request's reading reads. */
function sameRead(draft: EntryDraft, entry: RecordingEntry): boolean {
  return (
    entry.http === draft.http &&
    entry.body === draft.body &&
    entry.bodyText === draft.bodyText &&
    entry.grpc === draft.grpc
  );
}

/** `entry` as the observer reads it: the whole body in place of the head the recording keeps. */
function observedView(entry: RecordingEntry, observed: ObservedBody): RecordingEntry {
  const { bodyText: _head, cut: _cut, ...rest } = entry;
  if ('bodyText' in observed) return { ...rest, bodyText: observed.bodyText };
  // A number beyond the double range is null, as the writer writes a body.
  return { ...rest, body: replaceNonFinite(observed.body).value };
}

/** Turns observed exchanges into recording entries (see module doc). */
export class ExchangeRecorder {
  readonly maxBodyBytes: number;
  readonly maxObservedBytes: number;
  readonly tokens: TokenPolicy;
  /**
   * The resume tokens this recorder has replaced (the `placeholder` policy; `undefined` with
   * `keep`), to find them again in body text it cannot parse.
   */
  readonly seenTokens: SeenTokens | undefined;
  readonly #writer: EntryWriter;
  readonly #ids: IdSource;
  readonly #principal: PrincipalSource;
  readonly #redactor: Redactor;
  readonly #redactBodies: boolean;
  readonly #onEntry: ((entry: RecordingEntry) => void | Hold) | undefined;
  readonly #onError: (error: unknown) => void;
  #reported = false;

  constructor(options: ExchangeRecorderOptions) {
    this.#writer = options.writer;
    this.#ids = options.ids;
    this.#principal = options.principal ?? DEFAULT_PRINCIPAL_SOURCE;
    this.#redactor =
      options.redactor ??
      new Redactor(new RedactionMarks(options.markKey ?? randomMarkKey()), adjustSecretRules(options));
    this.#redactBodies = (options.bodies ?? 'redact') === 'redact';
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.maxObservedBytes = Math.max(this.maxBodyBytes, options.maxObservedBytes ?? DEFAULT_MAX_OBSERVED_BYTES);
    this.tokens = options.tokens ?? 'placeholder';
    this.seenTokens = this.tokens === 'placeholder' ? new SeenTokens() : undefined;
    this.#onEntry = options.onEntry;
    this.#onError = options.onError ?? (() => {});
  }

  /** Records the request of a new exchange and returns the exchange. Never throws. */
  request(facts: RequestFacts): Exchange {
    let xid = 'x-unknown';
    const http: EntryHttp = { method: facts.method.toUpperCase(), path: this.#redactor.path(facts.path) };
    try {
      xid = this.#ids.next('x');
      const headers = recordedHeaders(facts.headers);
      const principal = principalOf(headers, this.#principal, this.#redactor);
      const body = facts.body ?? new Uint8Array(0);
      // A request is at hand whole (the proxy refuses one over the body cap before it gets here).
      const record = bodyRecord(
        Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        body.byteLength,
        this.maxBodyBytes,
        this.seenTokens,
      );
      const draft: EntryDraft = {
        xid,
        kind: 'request',
        http: { ...http, headers: this.redact(headers) },
        ...record.fields,
      };
      if (principal !== undefined) draft.principal = principal;
      const read = readRequestOrUndefined(draft);
      const version = versionToRecord(read);
      if (version !== undefined) draft.a2aVersion = version;
      // A request shows the client nothing, so it is never held.
      void this.emit(draft, record.observed, read);
    } catch (error) {
      this.report(error);
    }
    return new Exchange(this, xid, http);
  }

  /**
   * An exchange whose request is not recorded: only its answer is (replay sends a request it
   * already knows and records what comes back). No request entry, no body parsed.
   */
  answerOf(facts: Pick<RequestFacts, 'method' | 'path'>, xid: string): Exchange {
    const path = this.#redactor.path(facts.path);
    return new Exchange(this, xid, { method: facts.method.toUpperCase(), path });
  }

  /**
   * @internal a new exchange's id and its request's principal, read from `headers` (recorded,
   * lower-cased) exactly as {@link request} reads them: for adapters that record a request of
   * another shape (gRPC, src/intercept/grpc-exchange.ts). Throws when the id source does.
   */
  requestIdentity(headers: Record<string, string>): { xid: string; principal: string | undefined } {
    const xid = this.#ids.next('x');
    return { xid, principal: principalOf(headers, this.#principal, this.#redactor) };
  }

  /** @internal headers as recorded: secrets marked (src/recording/redaction.ts). */
  redact(headers: Record<string, string>): Record<string, string> {
    return this.#redactor.headers(headers);
  }

  /** @internal a request target as recorded: user-info and secret query values marked. */
  redactPath(path: string): string {
    return this.#redactor.path(path);
  }

  /**
   * @internal writes one entry and hands it to the listener; returns the listener's hold. An
   * entry whose body the recording keeps cut (`observed`: the whole) reaches the listener with the
   * whole body instead of the head, as the writer writes a body (docs/design.md §5).
   */
  emit(draft: EntryDraft, observed?: ObservedBody, read?: ObservedRequest): Hold | undefined {
    const marked = this.#redactor.markCount;
    if (this.#redactBodies) {
      // The body is this recorder's own parse: marked in place (docs/design.md §5).
      if (draft.body !== undefined) draft.body = this.#redactor.json(draft.body);
      if (draft.bodyText !== undefined) draft.bodyText = this.#redactor.bodyText(draft.bodyText);
      if (observed !== undefined) observed = redactedObserved(this.#redactor, observed);
    }
    const entry = this.#writer.append(draft);
    if (this.#onEntry === undefined) return undefined;
    // The request as read before its body was redacted is the request as written when nothing
    // was marked and the writer kept every member read: the observer takes that reading.
    if (read !== undefined && observed === undefined && this.#redactor.markCount === marked && sameRead(draft, entry))
      rememberRequestRead(entry, read);
    try {
      return this.#onEntry(observed === undefined ? entry : observedView(entry, observed)) ?? undefined;
    } catch (error) {
      this.report(error);
      return undefined;
    }
  }

  /** @internal reports the first failure; later ones are dropped */
  report(error: unknown): void {
    if (this.#reported) return;
    this.#reported = true;
    try {
      this.#onError(error);
    } catch {
      // nothing left to tell
    }
  }
}
