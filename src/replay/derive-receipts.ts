/**
 * @module replay/derive-receipts
 * Derives a receipt log from replayed entries the way recording does (docs/design.md §8): the same
 * {@link ObservationPipeline} (one PauseObserver), sealed by the receipts layer's pure
 * {@link ReceiptChain} in memory. The header's `createdAt` and `recording` are the recording's, and
 * the key is the golden log's, so a faithful peer yields the golden bytes, signatures included.
 * Without a key the chain signs with a fixed all-zero "unsigned" key: the content compares, the
 * signatures and key ids do not (the diff then treats them as volatile).
 */
import { A2aReplayError } from '../errors.js';
import { ObservationPipeline } from '../observe/pipeline.js';
import { agentNameOf } from '../observe/span-conventions.js';
import type { ObserverFinding } from '../observe/findings.js';
import { DEFAULT_CHECKPOINT_EVERY, ReceiptChain } from '../receipts/chain.js';
import { Keyring, ReceiptKey } from '../receipts/keys.js';
import { RECEIPT_VERSION, RECEIPT_VERSIONS, type ReceiptLogVersion, type RecordingBinding } from '../receipts/types.js';
import { suspensionSpanIdsFor } from '../observe/observer-spans.js';
import type { RecordingEntry, RecordingHeader } from '../recording/format.js';
import type { SpanEvent, SpanSink } from '../tracing/span-events.js';

/** An interruption the observer found lost, as its span event says (docs/design.md §14.9). */
export type LostInterruptionEvent = Extract<SpanEvent, { type: 'interruption.lost' }>;

/** The first log version whose receipts hold the peer's times in their canonical text (docs/design.md §6). */
const CANONICAL_TIMES_SINCE = 5;

/** Kid of the stand-in key used when no key was given. */
export const UNSIGNED_KID = 'unsigned';

/** A keyring holding only the stand-in key (HMAC of 32 zero bytes). */
export function unsignedKeyring(): Keyring {
  return new Keyring([new ReceiptKey(UNSIGNED_KID, { hmac: Buffer.alloc(32) })]);
}

export interface DeriveOptions {
  header: RecordingHeader;
  /** Entries in recorded order (the replayed ones, or a recording's own). */
  entries: readonly RecordingEntry[];
  keyring: Keyring;
  kid?: string;
  tool: string;
  spans?: SpanSink;
  /** A checkpoint every N receipts, as the golden log was cut; default the chain's 256. */
  checkpointEvery?: number;
  /** The format version to write: the golden log's (see {@link logVersionOf}); default the current one. */
  version?: ReceiptLogVersion;
  /** What the closing checkpoint binds the log to: the recording file's facts, as the recorder's. */
  recording?: RecordingBinding;
}

export interface DerivedLog {
  /** Canonical lines, header first, no newlines. */
  lines: string[];
  findings: readonly ObserverFinding[];
  /** The interruptions found lost in the entries (never continued, bypassed, ...), in order. */
  lostInterruptions: readonly LostInterruptionEvent[];
}

/**
 * Derives a receipt log entry by entry, as a replay settles them (docs/design.md §8): the
 * observation pipeline fed in recorded order, the receipts sealed in memory as they come.
 */
export class ReceiptDeriver {
  readonly #options: Omit<DeriveOptions, 'entries'>;
  readonly #chain: ReceiptChain;
  readonly #lines: string[];
  readonly #pipeline: ObservationPipeline;
  readonly #lost: LostInterruptionEvent[] = [];
  #sinkError: unknown;
  #lastAt: string | undefined;

  constructor(options: Omit<DeriveOptions, 'entries'>) {
    this.#options = options;
    const chain = new ReceiptChain({
      keyring: options.keyring,
      ...(options.kid !== undefined ? { kid: options.kid } : {}),
      recording: options.header.id,
      createdAt: options.header.createdAt,
      tool: options.tool,
      ...(options.checkpointEvery !== undefined ? { checkpointEvery: options.checkpointEvery } : {}),
      ...(options.version !== undefined ? { version: options.version } : {}),
    });
    this.#chain = chain;
    const lines = [chain.header.text];
    this.#lines = lines;
    const keep = (sealed: { receipt: { text: string; hash: string }; checkpoint?: { text: string } | null }) => {
      lines.push(sealed.receipt.text);
      if (sealed.checkpoint) lines.push(sealed.checkpoint.text);
      return { hash: sealed.receipt.hash };
    };
    const spans: SpanSink = {
      handle: (event, extra) => {
        if (event.type === 'interruption.lost') this.#lost.push(event);
        options.spans?.handle(event, extra);
      },
    };
    this.#pipeline = new ObservationPipeline({
      recordingId: options.header.id,
      agentName: agentNameOf(options.header.agentCard),
      // A log of format 4 or earlier keeps the Suspension span ids its recorder gave (docs/design.md §7).
      suspensionSpans: suspensionSpanIdsFor(options.version ?? RECEIPT_VERSION),
      // A log of a version before 5 (a golden's own) keeps the peer's time texts as it was written.
      canonicalTimes: chain.header.line.version >= CANONICAL_TIMES_SINCE,
      receipts: {
        appendSuspension: async (draft) => keep(chain.sealSuspension(draft)),
        appendResumption: async (draft, suspensionHash) => keep(chain.sealResumption(draft, suspensionHash)),
        // A log of a version before 5 (a golden's own) holds no interruption receipts.
        appendInterruption: async (draft) =>
          chain.takesInterruptions ? keep(chain.sealInterruption(draft)) : undefined,
        appendContinuation: async (draft, interruptionHash) =>
          chain.takesInterruptions ? keep(chain.sealContinuation(draft, interruptionHash)) : undefined,
      },
      spans,
      onSinkError: (error, sink) => {
        if (sink === 'receipts') this.#sinkError ??= error;
      },
    });
  }

  /** The next entry, in recorded order. */
  push(entry: RecordingEntry): void {
    this.#lastAt = entry.at;
    void this.#pipeline.push(entry);
  }

  /** Ends the log at the last entry's time (the header's when there was none) and closes it. */
  async finish(): Promise<DerivedLog> {
    await this.#pipeline.finish(this.#lastAt ?? this.#options.header.createdAt);
    await this.#pipeline.idle();
    const sinkError = this.#sinkError;
    if (sinkError !== undefined) {
      throw sinkError instanceof Error ? sinkError : new A2aReplayError('RECEIPT_INVALID', 'cannot seal receipts');
    }
    const closing = this.#chain.close(this.#options.recording ?? null);
    if (closing) this.#lines.push(closing.text);
    return { lines: this.#lines, findings: this.#pipeline.findings, lostInterruptions: this.#lost };
  }
}

/** Feeds `entries` through the observation pipeline and seals the receipts in memory. */
export async function deriveReceiptLog(options: DeriveOptions): Promise<DerivedLog> {
  const deriver = new ReceiptDeriver(options);
  for (const entry of options.entries) deriver.push(entry);
  return deriver.finish();
}

/** The format version of a log from its header line (undefined when it has none that says). */
export function logVersionOf(lines: readonly string[]): ReceiptLogVersion | undefined {
  const first = lines[0];
  if (first === undefined) return undefined;
  try {
    const version = (JSON.parse(first) as { version?: unknown }).version;
    return (RECEIPT_VERSIONS as readonly unknown[]).includes(version) ? (version as ReceiptLogVersion) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The checkpoint interval a receipt log was written with, read from its checkpoint lines, so a
 * replay cuts its log the same way (`record --checkpoint-every N`). Two or more checkpoints: the
 * first one's size. A lone closing checkpoint larger than the default interval means "only at
 * close" (0); a smaller one is what any interval above it would give, so the default stands.
 */
export function checkpointIntervalOf(lines: readonly string[]): number | undefined {
  const sizes: number[] = [];
  for (const line of lines) {
    if (!line.includes('"type":"Checkpoint"')) continue;
    const size = (JSON.parse(line) as { size?: unknown }).size;
    if (typeof size === 'number') sizes.push(size);
  }
  const first = sizes[0];
  if (first === undefined) return undefined;
  if (sizes.length >= 2) return first;
  return first > DEFAULT_CHECKPOINT_EVERY ? 0 : undefined;
}
