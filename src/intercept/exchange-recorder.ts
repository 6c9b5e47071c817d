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
 * Nothing here throws into the adapter: a failure of the recorder or of an entry listener is
 * reported once through `onError` and the proxied exchange goes on untouched.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { JsonValue } from '../canonical/canonical-json.js';
import type { IdSource } from '../ids.js';
import type { EntryHttp, RecordingEntry } from '../recording/format.js';
import { SeenTokens, redactOverCapText, replaceResumeTokens } from '../recording/resume-token.js';
import { DEFAULT_PRINCIPAL_SOURCE, type PrincipalSource, principalOf } from '../recording/principal.js';
import { DEFAULT_REDACTED_HEADERS, redactHeaders, redactPath } from '../recording/redaction.js';
import type { EntryDraft, EntryWriter } from '../recording/recording-writer.js';
import { type HeaderInput, mediaType, recordedHeaders } from './http-headers.js';
import { type SseEvent, SseParser } from './sse-parser.js';

/**
 * The `error` message of a response cut off before its end (upstream died mid-body or
 * mid-stream): the same words from every adapter, so their recordings agree.
 */
export const RESPONSE_CUT_MESSAGE = 'the response ended before it was complete (connection closed)';

/** Default cap on a recorded body; the proxy also refuses request bodies above it. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface ExchangeRecorderOptions {
  writer: EntryWriter;
  /** Source of exchange ids (`xid`). */
  ids: IdSource;
  /**
   * Header names to redact (default {@link DEFAULT_REDACTED_HEADERS}); secret-looking headers
   * (`isSecretHeader`) are redacted whatever the list says.
   */
  redact?: readonly string[];
  /**
   * Header names recorded in clear although their names say secret (`record --keep-header`); a
   * name here is neither redacted nor hashed as a principal.
   */
  keepHeaders?: readonly string[];
  /**
   * Extra query parameter names whose values are redacted in the recorded path (case-insensitive);
   * secret-looking ones (`isSecretQueryName`) always are. The request itself is not changed.
   */
  redactQuery?: readonly string[];
  /** How the request principal is found (default `jwt-sub`). */
  principal?: PrincipalSource;
  /** Bodies above this many bytes are kept as truncated `bodyText` (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Called with every entry as written, e.g. to feed an observation pipeline. A promise it returns
   * is a hold: the entry made something durable-worthy observable (a pause, a resume), and the
   * adapter should not release the bytes that carried it before the promise settles
   * ({@link Exchange.takeHold}).
   */
  onEntry?: (entry: RecordingEntry) => void | Promise<void>;
  /** Called once, with the first recorder or listener failure. */
  onError?: (error: unknown) => void;
  /**
   * `placeholder` (the default): resume tokens in bodies are replaced by their placeholders
   * (src/recording/resume-token.ts), since recordings never hold them. `keep`: for replay's
   * in-memory capture of live answers, which must learn the live peer's real tokens.
   */
  tokens?: TokenPolicy;
}

/** What the recorder does with resume tokens in bodies (see {@link ExchangeRecorderOptions.tokens}). */
export type TokenPolicy = 'placeholder' | 'keep';

/** What an adapter knows about a request. */
export interface RequestFacts {
  method: string;
  /** Path and query, as the client sent them. */
  path: string;
  headers: HeaderInput;
  body?: Uint8Array | undefined;
}

/** Options for {@link Exchange.head}. */
export interface HeadOptions {
  /** The body bytes this adapter sees are already decoded (fetch decodes Content-Encoding). */
  decoded?: boolean;
}

type Phase = 'head' | 'unary' | 'stream' | 'done';

function concat(chunks: Uint8Array[], length: number): Buffer {
  return Buffer.concat(
    chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)),
    length,
  );
}

/**
 * The resume tokens of a body replaced by their placeholders when `seen` is given (the
 * `placeholder` policy; `undefined` keeps them): a parsed body by its members, a body kept as
 * text by what {@link redactOverCapText} finds.
 */
function withoutTokens(body: JsonValue, text: string, seen: SeenTokens | undefined): JsonValue {
  return seen === undefined ? body : replaceResumeTokens(body, text, seen);
}
function textWithoutTokens(text: string, seen: SeenTokens | undefined, cut: boolean): string {
  return seen === undefined ? text : redactOverCapText(text, seen, cut);
}

/**
 * `body` for JSON, `bodyText` for anything else, nothing for an empty body. Bytes that are not
 * UTF-8 cannot be written as text without loss: a note stands in, with the sha256 of the bytes.
 */
function bodyFields(
  bytes: Buffer,
  total: number,
  cap: number,
  seen: SeenTokens | undefined,
): Pick<EntryDraft, 'body' | 'bodyText'> {
  if (total === 0) return {};
  const kept = bytes.subarray(0, cap);
  // A cut at the cap may split a character: only the last 3 bytes may be an unfinished sequence.
  const whole = total > cap ? kept.subarray(0, Math.max(0, kept.length - 3)) : kept;
  if (!isUtf8(whole)) {
    const digest = createHash('sha256').update(kept).digest('hex');
    const which = total > cap ? `the first ${kept.length} of ${total} bytes` : `${total} bytes`;
    return { bodyText: `[body not recorded: not valid UTF-8; sha256 of ${which}:${digest}]` };
  }
  const text = kept.toString('utf8');
  if (total > cap) return { bodyText: textWithoutTokens(text, seen, true) };
  try {
    return { body: withoutTokens(JSON.parse(text) as JsonValue, text, seen) };
  } catch {
    return { bodyText: textWithoutTokens(text, seen, false) };
  }
}

function decode(encoding: string, bytes: Buffer, cap: number): Buffer | 'unknown' | 'too-large' | 'corrupt' {
  const options = { maxOutputLength: cap };
  try {
    switch (encoding) {
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(bytes, options);
      case 'deflate':
        return inflateSync(bytes, options);
      case 'br':
        return brotliDecompressSync(bytes, options);
      default:
        return 'unknown';
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? 'too-large' : 'corrupt';
  }
}

/**
 * The body fields of a content-encoded answer: the decoded body (the entry's headers still name
 * the encoding), or, when it cannot be decoded within the cap, a `bodyText` saying why — never
 * the compressed bytes as text.
 */
function encodedBodyFields(
  encoding: string,
  bytes: Buffer,
  total: number,
  cap: number,
  seen: SeenTokens | undefined,
): Pick<EntryDraft, 'body' | 'bodyText'> {
  const what = `[${encoding}-encoded body of ${total} bytes`;
  if (total > cap) return { bodyText: `${what}, over the ${cap}-byte recording cap: not decoded]` };
  const decoded = decode(encoding, bytes, cap);
  if (decoded instanceof Buffer) return bodyFields(decoded, decoded.byteLength, cap, seen);
  const digest = createHash('sha256').update(bytes).digest('hex');
  const why =
    decoded === 'unknown'
      ? 'an encoding the recorder does not decode'
      : decoded === 'too-large'
        ? `it decodes to more than the ${cap}-byte recording cap`
        : 'it is not valid data of that encoding';
  return { bodyText: `${what} not recorded: ${why}; sha256:${digest}]` };
}

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
  #encoding = '';
  #parser: SseParser | undefined;
  #holds: Promise<void>[] = [];

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
   * bytes it just recorded only once the promise settles (it never rejects).
   */
  takeHold(): Promise<void> | undefined {
    if (this.#holds.length === 0) return undefined;
    const holds = this.#holds;
    this.#holds = [];
    return Promise.all(holds).then(
      () => undefined,
      () => undefined,
    );
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
        if (this.#encoding !== 'identity') {
          this.#end('error', { error: `cannot record an event stream sent with content-encoding ${this.#encoding}` });
          return;
        }
        // An event keeps at most the body cap's worth of data characters (the rest still reaches the client).
        this.#parser = new SseParser(this.#recorder.maxBodyBytes);
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
        const room = this.#recorder.maxBodyBytes + 1 - this.#kept;
        if (room > 0) {
          const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
          this.#chunks.push(part);
          this.#kept += part.byteLength;
        }
      } else if (this.#phase === 'stream' && this.#parser !== undefined) {
        for (const event of this.#parser.push(chunk)) this.#event(event);
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
          const cap = this.#recorder.maxBodyBytes;
          const bytes = concat(this.#chunks, this.#kept);
          const total = this.#total;
          const fields =
            this.#encoding !== 'identity' && total > 0
              ? encodedBodyFields(this.#encoding, bytes, total, cap, this.#recorder.seenTokens)
              : bodyFields(bytes, total, cap, this.#recorder.seenTokens);
          this.#chunks = [];
          this.#phase = 'done';
          this.#emit({
            kind: 'response',
            http: { ...this.#http, status: this.#status, headers: this.#headers },
            ...fields,
          });
          return;
        }
        case 'stream': {
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

  /** The exchange broke (upstream unreachable, stream cut, client gone); `message` says how. */
  fail(message: string): void {
    this.#guard(() => {
      if (this.#phase === 'done') return;
      if (this.#phase === 'stream') {
        for (const event of this.#parser?.end().events ?? []) this.#event(event);
      }
      this.#chunks = [];
      this.#end('error', { error: message });
    });
  }

  #event({ data, event, id, truncated }: SseEvent): void {
    // An event over the cap is kept as its first characters, like a body over the cap.
    const seen = this.#recorder.seenTokens;
    let fields: Pick<EntryDraft, 'body' | 'bodyText'> | undefined;
    if (!truncated) {
      try {
        fields = { body: withoutTokens(JSON.parse(data) as JsonValue, data, seen) };
      } catch {
        // not JSON: kept as text
      }
    }
    fields ??= { bodyText: textWithoutTokens(data, seen, truncated === true) };
    const draft: Omit<EntryDraft, 'xid'> = { kind: 'event', http: { ...this.#http }, ...fields };
    if (event !== undefined || id !== undefined) {
      draft.sse = {};
      if (event !== undefined) draft.sse.event = event;
      if (id !== undefined) draft.sse.id = id;
    }
    this.#emit(draft);
  }

  #end(kind: 'end' | 'error', extra: Pick<EntryDraft, 'error'>): void {
    this.#phase = 'done';
    this.#parser = undefined;
    this.#emit({ kind, http: { ...this.#http }, ...extra });
  }

  #emit(draft: Omit<EntryDraft, 'xid'>): void {
    const hold = this.#recorder.emit({ xid: this.xid, ...draft } as EntryDraft);
    if (hold !== undefined) this.#holds.push(hold);
  }

  #guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.#phase = 'done';
      this.#recorder.report(error);
    }
  }
}

/** Turns observed exchanges into recording entries (see module doc). */
export class ExchangeRecorder {
  readonly maxBodyBytes: number;
  readonly tokens: TokenPolicy;
  /**
   * The resume tokens this recorder has replaced (the `placeholder` policy; `undefined` with
   * `keep`), to find them again in body text it cannot parse.
   */
  readonly seenTokens: SeenTokens | undefined;
  readonly #writer: EntryWriter;
  readonly #ids: IdSource;
  readonly #redact: readonly string[];
  readonly #keepHeaders: readonly string[];
  readonly #redactQuery: readonly string[];
  readonly #principal: PrincipalSource;
  readonly #onEntry: ((entry: RecordingEntry) => void | Promise<void>) | undefined;
  readonly #onError: (error: unknown) => void;
  #reported = false;

  constructor(options: ExchangeRecorderOptions) {
    this.#writer = options.writer;
    this.#ids = options.ids;
    this.#redact = options.redact ?? DEFAULT_REDACTED_HEADERS;
    this.#keepHeaders = options.keepHeaders ?? [];
    this.#redactQuery = options.redactQuery ?? [];
    this.#principal = options.principal ?? DEFAULT_PRINCIPAL_SOURCE;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.tokens = options.tokens ?? 'placeholder';
    this.seenTokens = this.tokens === 'placeholder' ? new SeenTokens() : undefined;
    this.#onEntry = options.onEntry;
    this.#onError = options.onError ?? (() => {});
  }

  /** Records the request of a new exchange and returns the exchange. Never throws. */
  request(facts: RequestFacts): Exchange {
    let xid = 'x-unknown';
    const http: EntryHttp = { method: facts.method.toUpperCase(), path: redactPath(facts.path, this.#redactQuery) };
    try {
      xid = this.#ids.next('x');
      const headers = recordedHeaders(facts.headers);
      const principal = principalOf(headers, this.#principal, this.#redact, this.#keepHeaders);
      const body = facts.body ?? new Uint8Array(0);
      const draft: EntryDraft = {
        xid,
        kind: 'request',
        http: { ...http, headers: this.redact(headers) },
        ...bodyFields(
          Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, this.maxBodyBytes + 1)),
          body.byteLength,
          this.maxBodyBytes,
          this.seenTokens,
        ),
      };
      if (principal !== undefined) draft.principal = principal;
      // A request shows the client nothing, so it is never held.
      void this.emit(draft);
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
    const path = redactPath(facts.path, this.#redactQuery);
    return new Exchange(this, xid, { method: facts.method.toUpperCase(), path });
  }

  /** @internal */
  redact(headers: Record<string, string>): Record<string, string> {
    return redactHeaders(headers, this.#redact, this.#keepHeaders);
  }

  /** @internal writes one entry and hands it to the listener; returns the listener's hold */
  emit(draft: EntryDraft): Promise<void> | undefined {
    const entry = this.#writer.append(draft);
    if (this.#onEntry === undefined) return undefined;
    try {
      return this.#onEntry(entry) ?? undefined;
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
