/**
 * @module recording/format
 * The recording format, version 1 (docs/design.md §5): JSONL, a header line, then one entry per line in
 * the order observed. Record and replay both read and write exactly these shapes.
 */
import type { JsonValue } from '../canonical/canonical-json.js';

export const RECORDING_VERSION = 1;

/**
 * The deepest body replay and mock take from a recording: far above what a peer accepts (the
 * reference peer refuses requests deeper than 128 levels), far below what would exhaust the call
 * stack of the walks that compare and rewrite bodies. A recorder records JSON nested deeper as
 * its text (`bodyText`), which they send and compare as it is (docs/design.md §5).
 */
export const REPLAY_MAX_BODY_DEPTH = 1000;

/** Line 1 of a recording. */
export interface RecordingHeader {
  type: 'recording';
  version: typeof RECORDING_VERSION;
  /** Stable id of this recording; span ids derive from it (docs/design.md §7). */
  id: string;
  createdAt: string;
  target: { url: string };
  tool: string;
  /**
   * The upstream's agent card as `record` fetched it when it started (absent when none answered):
   * `run` compares it with the live peer's and says what differs (docs/design.md §8).
   */
  agentCard?: JsonValue;
}

/**
 * - `request`: what the client sent (one per exchange);
 * - `response`: a unary answer (JSON body), or the head of an SSE response (status + headers, no body);
 * - `event`: one SSE event of a streaming response, `body` = the parsed `data` JSON;
 * - `end`: the stream or response finished normally;
 * - `error`: the exchange broke (upstream unreachable, peer died mid-stream, unparsable body);
 *   `error` says what happened.
 */
export const ENTRY_KINDS = ['request', 'response', 'event', 'end', 'error'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface EntryHttp {
  method: string;
  path: string;
  status?: number;
  /** End-to-end headers, lower-cased names, secrets redacted. */
  headers?: Record<string, string>;
}

export interface RecordingEntry {
  /** 1-based position among entries (the header is not counted). */
  seq: number;
  /** When it was observed (ISO 8601, from the recorder's injected clock). */
  at: string;
  /** Exchange id: the request and everything answering it share one. */
  xid: string;
  kind: EntryKind;
  http: EntryHttp;
  /** Parsed JSON body (request/response), or the parsed SSE `data` (event). */
  body?: JsonValue;
  /**
   * A body that is not JSON, kept verbatim; a body (or SSE event data) over the recording cap,
   * kept as its first bytes (with {@link RecordingEntry.cut}); or a note saying why a body is not
   * recorded.
   */
  bodyText?: string;
  /**
   * Set when `bodyText` holds only the first part of the body (or event data): the length in
   * bytes and the `sha256:<hex>` of the whole (decoded) body. The recorder's observer saw the whole
   * body (docs/design.md §5, "Bodies over the cap"); a reader of the recording sees only its head.
   */
  cut?: EntryCut;
  /**
   * Set when the recorder could not read this answer in full, so its observer did not see it
   * (an encoding it does not decode, corrupt compressed data, a body over the observation cap):
   * why, in user words. Readers report the recording as incomplete at this entry (§5, §14).
   */
  incomplete?: string;
  /**
   * Set when `body` was read from bytes that are not valid UTF-8: `invalid UTF-8 read as U+FFFD;
   * sha256 of N bytes:<hex>` (each invalid sequence read as U+FFFD, as the peer reads it; the
   * digest is of the bytes as they came). Docs/design.md §5.
   */
  bodyRepaired?: string;
  /** SSE framing fields other than `data`, when present. */
  sse?: { event?: string; id?: string };
  /** On requests: who sent it (`jwt:sub=alice`, `bearer:hmac:<16 hex>`, or a header's value). */
  principal?: string;
  /**
   * On requests: the A2A version the recorder read the exchange in when it is not 1.0 (`0.3`), or
   * the `A2A-Version` a request asked for that no dialect reads (docs/design.md §5, §14.10). Absent
   * on v1.0 calls, on what is no A2A call, and in recordings made before it: readers decide the
   * version from the request's own signals, as the recorder did.
   */
  a2aVersion?: string;
  /** On `error` entries: what broke, in user words. */
  error?: string;
  /**
   * On the entry that ends an exchange (`response` of a unary answer, `end` or `error` of a
   * stream): set when the client did not get this answer, because it closed its connection or the
   * recorder answered it 504 first. The recorder still read the answer from the peer (as far as
   * the entry says) and observed it (docs/design.md §5, "The recorder follows the peer").
   */
  undelivered?: string;
  /**
   * Present on every entry of a gRPC exchange (binding GRPC, docs/design.md §16), and only there:
   * `http.path` is the call's `:path` (`/lf.a2a.v1.A2AService/SendMessage`), `http.headers` its
   * metadata (secrets redacted), `body` the message decoded to ProtoJSON. A unary call is a
   * `request` and a `response` (the message, or none on an error, with the status from the
   * trailers); a server-streaming call is a `request`, one `event` per message and an `end`.
   */
  grpc?: EntryGrpc;
}

/** What a gRPC exchange's frames said besides its messages. */
export interface EntryGrpc {
  /** `grpc-status` from the trailers (response/end): 0 is OK. */
  status?: number;
  /** `grpc-message`, percent-decoded. */
  message?: string;
  /** `grpc-status-details-bin` decoded to `google.rpc.Status` ProtoJSON (with its ErrorInfo). */
  details?: JsonValue;
  /** `grpc-encoding` of the messages when compressed (`gzip`); bodies are recorded decoded. */
  encoding?: string;
  /** Request: the client's `grpc-timeout`, in milliseconds. */
  timeoutMs?: number;
  /** Response: the server answered with trailers only (no headers frame, no message). */
  trailersOnly?: boolean;
  /** end/response: the client cancelled the call (RST_STREAM) before the server finished. */
  cancelled?: boolean;
}

/** What {@link RecordingEntry.cut} says of a body kept as its head. */
export interface EntryCut {
  /** Length of the whole body in bytes (UTF-8 for event data). */
  bytes: number;
  /** `sha256:<64 hex>` of the whole body's bytes. */
  sha256: string;
}

export type RecordingLine = RecordingHeader | RecordingEntry;
