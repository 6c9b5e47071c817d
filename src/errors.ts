/**
 * @module errors
 * The one error base of the project: every failure a user can see carries a stable `code`
 * (machine-readable) and a message in user words that says what failed and why.
 */

/** Stable error codes. Adding one is an API change; renaming one is a breaking change. */
export type A2aReplayErrorCode =
  | 'CANONICAL_UNREPRESENTABLE'
  | 'INVALID_JSON'
  | 'INVALID_ARGUMENT'
  | 'PROTOCOL_INVALID'
  | 'RECORDING_MALFORMED'
  | 'RECORDING_TORN'
  | 'RECEIPT_INVALID'
  | 'KEY_INVALID'
  | 'IO_FAILED'
  | 'PEER_UNREACHABLE'
  | 'PEER_CRASHED'
  | 'DEADLINE_EXCEEDED'
  /** The observer's scan path and full parse read an entry differently (`A2A_REPLAY_SCAN_CHECK=1`). */
  | 'OBSERVER_MISMATCH'
  /** A run stopped by SIGINT or SIGTERM (or its caller's abort signal) before its end. */
  | 'STOPPED';

export class A2aReplayError extends Error {
  readonly code: A2aReplayErrorCode;

  constructor(code: A2aReplayErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'A2aReplayError';
    this.code = code;
  }
}

/** The message of an Error, or the text of anything else thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One line for a caught error, naming its system code: the error's own `code` goes first
 * (`ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9`, unless the message already says it); a code
 * only on its `cause`, as `fetch` reports network failures, goes last (`fetch failed (ECONNREFUSED)`).
 */
export function describeError(error: unknown): string {
  const message = errorMessage(error);
  const own = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof own === 'string') return message.includes(own) ? message : `${own}: ${message}`;
  const fromCause = (error as { cause?: { code?: unknown } } | null | undefined)?.cause?.code;
  return typeof fromCause === 'string' ? `${message} (${fromCause})` : message;
}

/**
 * The exit codes of every command (README "Commands"): 0 success, 1 drift / an invalid log / lost
 * pauses, 2 usage error or malformed input, 3 infrastructure failure; 130 `run` stopped by SIGINT or
 * SIGTERM, its report partial (as a shell reports a command ended by Ctrl-C).
 */
export const EXIT_CODES = { ok: 0, drift: 1, usage: 2, infrastructure: 3, stopped: 130 } as const;

/** The codes of a failure outside the input: the peer or the disk, not what the user gave (exit 3). */
const INFRASTRUCTURE: ReadonlySet<A2aReplayErrorCode> = new Set([
  'PEER_UNREACHABLE',
  'PEER_CRASHED',
  'DEADLINE_EXCEEDED',
  'IO_FAILED',
]);

/** Whether `error` is an infrastructure failure (exit 3) rather than bad input (exit 2). */
export function isInfrastructureError(error: A2aReplayError): boolean {
  return INFRASTRUCTURE.has(error.code);
}
