/**
 * @module record/recorder-options
 * What `startRecorder` takes (src/record/start-recorder.ts), named as the `record` command's
 * flags are in camelCase, with their defaults, and the settings it derives from them, each
 * checked: a bad one is a {@link RecorderOptionError} naming its option.
 */
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_OBSERVED_BYTES } from '../intercept/exchange-options.js';
import { DEFAULT_CHECKPOINT_EVERY } from '../receipts/chain.js';
import type { Keyring, ReceiptKey } from '../receipts/keys.js';
import { FSYNC_POLICIES, type FsyncPolicy } from '../receipts/log-writer.js';
import { parsePrincipalSource } from '../recording/principal.js';
import { RecorderOptionError } from './option-error.js';
import type { RecorderEvent } from './progress.js';
import type { RedactionOptions } from './redaction-setup.js';
import { rotationLimits } from './rotation.js';
import type { RecorderTlsFiles } from './tls-files.js';
import type { RecorderWarn } from './warnings.js';

/** The defaults of {@link RecorderOptions}, which `record --help` shows too. */
export const RECORDER_DEFAULTS = {
  listen: '127.0.0.1:0',
  fsync: 'batch' as FsyncPolicy,
  checkpointEvery: DEFAULT_CHECKPOINT_EVERY,
  principalFrom: 'jwt-sub',
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  maxObservedBytes: DEFAULT_MAX_OBSERVED_BYTES,
  graceMs: 2000,
  upstreamTimeoutMs: 30_000,
  followMs: 600_000,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  maxConnections: 1024,
  drainLimitBytes: 64 * 1024 * 1024,
  drainTimeoutMs: 30_000,
} as const;

export interface RecorderOptions extends RecorderTlsFiles, RedactionOptions {
  /** The peer to forward to (`http://HOST:PORT`, a path prefix kept). */
  upstream: string;
  /** The recording to write (JSONL). */
  out: string;
  /** Where gRPC calls go (default: the card's GRPC interface, else the upstream's host and port). */
  grpcUpstream?: string | undefined;
  /** `HOST:PORT` or `PORT` to listen on (default 127.0.0.1 and a free port). */
  listen?: string | undefined;
  /** The receipt log (default `X.receipts.jsonl` beside `X.jsonl`); never overwritten. */
  receipts?: string | undefined;
  /** The receipt key: a key file's path, or a loaded key or keyring. Without one, no receipts. */
  key?: string | ReceiptKey | Keyring | undefined;
  /** Durability of the receipt log: `always`, `batch` (default) or `never`. */
  fsync?: FsyncPolicy | undefined;
  /** A file that keeps the latest checkpoint too (replaced atomically). */
  witness?: string | undefined;
  /** C2SP tlog-witnesses cosigning each checkpoint, each paired with the `witnessVkey` at its position. */
  witnessUrl?: readonly string[] | undefined;
  /** Those witnesses' verifier keys (`name+hash+key`), or files holding them. */
  witnessVkey?: readonly string[] | undefined;
  /** Ship every receipt-log line as an OTLP log record to this URL (a base URL gets `/v1/logs`). */
  otlpLogs?: string | undefined;
  /** A checkpoint after every N receipts; 0 only on close. */
  checkpointEvery?: number | undefined;
  /** Export the pause/resume spans over OTLP/HTTP to this URL (a base URL gets `/v1/traces`). */
  otlp?: string | undefined;
  /** Write the spans as OTLP-JSON into `DIR/<name>.otlp.json` at the stop. */
  traces?: string | undefined;
  /** Who sent a request: `jwt-sub` (default) or `header:NAME`. */
  principalFrom?: string | undefined;
  maxBodyBytes?: number | undefined;
  maxObservedBytes?: number | undefined;
  /** At the stop, how long open streams (SSE, gRPC) may go on; answers still awaited get `followMs`. */
  graceMs?: number | undefined;
  upstreamTimeoutMs?: number | undefined;
  /**
   * How long an answer its client no longer gets (it left, cancelled, its deadline passed, or it got
   * the 504) is read on; at the stop, how long an answer still awaited is read (docs/design.md §5).
   */
  followMs?: number | undefined;
  requestTimeoutMs?: number | undefined;
  headersTimeoutMs?: number | undefined;
  maxConnections?: number | undefined;
  drainLimitBytes?: number | undefined;
  drainTimeoutMs?: number | undefined;
  /** Overwrite an existing `out` recording (a receipt log is never overwritten). */
  force?: boolean | undefined;
  /** A previous recording to continue: its open pauses carry over, its receipt log is linked. */
  continueFrom?: string | undefined;
  /** Go on in `X.<n>.jsonl` once the recording file reaches this many bytes. */
  rotateBytes?: number | undefined;
  /** The same once the files have been open this long (milliseconds, or `90s`, `15m`, `24h`). */
  rotateAfter?: number | string | undefined;
  /** Each pause, resume, lost pause and request not understood, as it happens. */
  onEvent?: ((event: RecorderEvent) => void) | undefined;
  /** What the recorder could not do, one line at a time (default: `a2a-replay: <line>` on stderr). */
  warn?: RecorderWarn | undefined;
  /** Where OTEL_EXPORTER_OTLP_* are read from (default `process.env`). */
  env?: NodeJS.ProcessEnv | undefined;
}

/** `HOST:PORT` or `PORT` (host 127.0.0.1); a bracketed IPv6 host is unbracketed. */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port > 65535)
    throw new RecorderOptionError('listen', `expected HOST:PORT or PORT; got ${JSON.stringify(text)}`);
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '') || '127.0.0.1';
  return { host, port };
}

/** `value` (or its default) as a whole number from `min` to `max`. */
function whole(option: keyof typeof RECORDER_DEFAULTS, value: number | undefined, min: number, max?: number): number {
  const n = value ?? (RECORDER_DEFAULTS[option] as number);
  if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) {
    const expected = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
    throw new RecorderOptionError(option, `expected ${expected}; got ${String(n)}`);
  }
  return n;
}

/** The settings `options` give, each checked. */
export function recorderSettings(options: RecorderOptions) {
  const listen = parseListen(options.listen ?? RECORDER_DEFAULTS.listen);
  let principal;
  try {
    principal = parsePrincipalSource(options.principalFrom ?? RECORDER_DEFAULTS.principalFrom);
  } catch (error) {
    throw new RecorderOptionError('principalFrom', (error as Error).message);
  }
  const maxBodyBytes = whole('maxBodyBytes', options.maxBodyBytes, 1);
  const maxObservedBytes = whole('maxObservedBytes', options.maxObservedBytes, 1);
  if (maxObservedBytes < maxBodyBytes)
    throw new RecorderOptionError(
      'maxObservedBytes',
      `${maxObservedBytes} is below \`maxBodyBytes\` (${maxBodyBytes}); what is recorded whole is observed whole`,
    );
  const limits = {
    requestTimeoutMs: whole('requestTimeoutMs', options.requestTimeoutMs, 1),
    headersTimeoutMs: whole('headersTimeoutMs', options.headersTimeoutMs, 1),
    maxConnections: whole('maxConnections', options.maxConnections, 1),
    drainLimitBytes: whole('drainLimitBytes', options.drainLimitBytes, 1),
    drainTimeoutMs: whole('drainTimeoutMs', options.drainTimeoutMs, 1, 24 * 3600 * 1000),
  };
  const fsync = options.fsync ?? RECORDER_DEFAULTS.fsync;
  if (!FSYNC_POLICIES.includes(fsync))
    throw new RecorderOptionError(
      'fsync',
      `expected one of ${FSYNC_POLICIES.join(', ')}; got ${JSON.stringify(String(fsync))}`,
    );
  const rotation = rotationLimits(options);
  if (rotation !== null && ((options.witnessUrl ?? []).length > 0 || options.otlpLogs !== undefined))
    throw new RecorderOptionError(['rotateBytes', 'rotateAfter'], 'not combined with `witnessUrl` or `otlpLogs` yet');
  return {
    listen,
    principal,
    maxBodyBytes,
    maxObservedBytes,
    graceMs: whole('graceMs', options.graceMs, 0),
    upstreamTimeoutMs: whole('upstreamTimeoutMs', options.upstreamTimeoutMs, 1),
    followMs: whole('followMs', options.followMs, 1),
    limits,
    fsync,
    checkpointEvery: whole('checkpointEvery', options.checkpointEvery, 0),
    rotation,
  };
}

export type RecorderSettings = ReturnType<typeof recorderSettings>;
