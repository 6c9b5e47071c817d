/**
 * @module intercept/exchange-options
 * What the recording core takes (src/intercept/exchange-recorder.ts, docs/design.md §5): its
 * options, the caps on recorded and observed bodies, and what an adapter reports of a request.
 */
import type { IdSource } from '../ids.js';
import type { RecordingEntry } from '../recording/format.js';
import type { PrincipalSource } from '../recording/principal.js';
import type { Redactor } from '../recording/redaction.js';
import type { EntryWriter } from '../recording/recording-writer.js';
import type { Hold } from './hold-gate.js';
import type { HeaderInput } from './http-headers.js';

/**
 * The `error` message of a response cut off before its end (upstream died mid-body or
 * mid-stream): the same words from every adapter, so their recordings agree.
 */
export const RESPONSE_CUT_MESSAGE = 'the response ended before it was complete (connection closed)';

/** Default cap on a recorded body; the proxy also refuses request bodies above it. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Default cap on an answer read whole for the observer (docs/design.md §5, "Bodies over the
 * cap"): a body or SSE event up to this size is observed whole even when the recording keeps only
 * its head; past it the entry is marked `incomplete`.
 */
export const DEFAULT_MAX_OBSERVED_BYTES = 16 * 1024 * 1024;

export interface ExchangeRecorderOptions {
  writer: EntryWriter;
  /** Source of exchange ids (`xid`). */
  ids: IdSource;
  /**
   * Header names to redact besides the default rule's (src/recording/secret-rules.ts,
   * `record --redact`); secret-looking headers are redacted whatever the list says.
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
  /** Query parameter names kept in clear although the rule says secret (`record --keep-query`). */
  keepQuery?: readonly string[];
  /** JSON member names whose values are redacted besides the rule's (`record --redact-json-key`). */
  redactJsonKeys?: readonly string[];
  /** JSON member names kept in clear although the rule says secret (`record --keep-json-key`). */
  keepJsonKeys?: readonly string[];
  /**
   * The recording's mark key (docs/design.md §5, "Redaction marks"): secret values are written as
   * HMACs under it. Never written anywhere. Default: a fresh random key for this recorder.
   */
  markKey?: Uint8Array;
  /**
   * The redaction to use as it is (the rule and the mark key together), in place of the lists
   * and `markKey` above: `record` shares one with the agent card it writes into the header.
   */
  redactor?: Redactor;
  /**
   * `redact` (the default): secrets in bodies (JSON members, URLs) are marked as in headers.
   * `keep`: for replay's in-memory capture of live answers, compared and never written.
   */
  bodies?: 'redact' | 'keep';
  /** How the request principal is found (default `jwt-sub`). */
  principal?: PrincipalSource;
  /** Bodies above this many bytes are kept as truncated `bodyText` (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Answers (and SSE events) up to this many bytes are read whole for `onEntry` even when the
   * recording keeps only their head (default {@link DEFAULT_MAX_OBSERVED_BYTES}, never below
   * `maxBodyBytes`); larger ones are recorded `incomplete`.
   */
  maxObservedBytes?: number;
  /**
   * Called with every entry as written, e.g. to feed an observation pipeline. A promise it returns
   * is a hold: the entry made something durable-worthy observable (a pause, a resume), and the
   * adapter should not release the bytes that carried it before the promise settles
   * ({@link Exchange.takeHold}), nor at all when it settles to a refusal (a receipt that could
   * not be made durable): the adapter then refuses the answer.
   */
  onEntry?: (entry: RecordingEntry) => void | Hold;
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
