/**
 * @module recording/format
 * The recording format, version 1 (docs/design.md §5): JSONL, a header line, then one entry per line in
 * the order observed. Record and replay both read and write exactly these shapes.
 */
import type { JsonValue } from '../canonical/canonical-json.js';

export const RECORDING_VERSION = 1;

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
  /** A body that is not JSON, kept verbatim (truncated to the body limit). */
  bodyText?: string;
  /**
   * Set when `body` was read from bytes that are not valid UTF-8: `invalid UTF-8 read as U+FFFD;
   * sha256 of N bytes:<hex>` (each invalid sequence read as U+FFFD, as the peer reads it; the
   * digest is of the bytes as they came). Docs/design.md §5.
   */
  bodyRepaired?: string;
  /** SSE framing fields other than `data`, when present. */
  sse?: { event?: string; id?: string };
  /** On requests: who sent it (`jwt:sub=alice`, `bearer:sha256:<8 hex>`, or a header's value). */
  principal?: string;
  /** On `error` entries: what broke, in user words. */
  error?: string;
}

export type RecordingLine = RecordingHeader | RecordingEntry;
