/**
 * @module observe/pipeline
 * The glue between a {@link PauseObserver} and its sinks: entries go in, in order; receipt drafts
 * are sealed by a {@link ReceiptSink} (the suspension key resolved to the hash of the receipt it
 * names); span events go to a {@link SpanSink}, the ends of Suspension, Resume, Interruption and
 * Continuation spans carrying the hash of the receipt the span produced (docs/design.md §7). Sinks
 * failing never throw into the caller.
 */
import type {
  ContinuationDraft,
  InterruptionDraft,
  ResumptionDraft,
  SuspensionDraft,
  SuspensionReference,
} from '../receipts/types.js';
import type { RecordingEntry } from '../recording/format.js';
import type { SpanEvent, SpanSink } from '../tracing/span-events.js';
import type { ObserverFinding } from './findings.js';
import { BoundedMap } from '../bounded-map.js';
import type { CarriedInterruption } from './interruption.js';
import type { SuspensionSpanIds } from './observer-spans.js';
import { type CarriedSuspension, type ObserverOutput, PauseObserver } from './pause-observer.js';

/** Where drafts are sealed and written (a receipt log writer, or an in-memory chain for replay). */
export interface ReceiptSink {
  appendSuspension(draft: SuspensionDraft): Promise<{ hash: string }>;
  /**
   * `suspension`: the hash returned for the suspension this resumption closes (or attempted), or
   * the pause it ends when that began outside this log (docs/design.md §17).
   */
  appendResumption(draft: ResumptionDraft, suspension: SuspensionReference): Promise<{ hash: string }>;
  /**
   * Interruptions and continuations (docs/design.md §14.9), in logs that hold them (format
   * version 5): undefined from a sink whose log holds none (an earlier version). Every sink has
   * them, so a sink that wraps another cannot drop them by leaving them out.
   */
  appendInterruption(draft: InterruptionDraft): Promise<{ hash: string } | undefined>;
  /** `interruptionHash`: the hash returned for the interruption this continuation closes. */
  appendContinuation(draft: ContinuationDraft, interruptionHash: string): Promise<{ hash: string } | undefined>;
  /** Resolves when everything appended so far is durable (a log file's fsync policy). */
  durable?(): Promise<void>;
  /**
   * {@link durable} with callbacks, which the pipeline prefers: `done` once everything appended
   * so far is durable, or `failed`; one of them once. A hold then costs no promise chain.
   */
  whenDurable?(done: () => void, failed: (error: unknown) => void): void;
}

export type PipelineSinkName = 'receipts' | 'spans';

/**
 * What a held entry waits for ({@link ObservationPipeline.pushHeld}): it settles to undefined once
 * the receipts it waits for are durable, or to why they could not be made so, in words a client
 * may read; the proxy then refuses the answer instead of sending it (docs/design.md §5, "A full
 * disk"). It never rejects.
 */
export type ReceiptHold = Promise<string | undefined>;

/** Why a held answer is refused: the receipt, or a recording line it cites, could not be made durable. */
export function refusalOf(error: unknown): string {
  const code = errnoOf(error);
  const why =
    code === 'ENOSPC' || code === 'EDQUOT' ? 'the disk is full' : `the write failed${code ? ` (${code})` : ''}`;
  return `the recorder could not make the receipt of this call durable (${why}); the peer may have carried it out`;
}

/** The errno code of an error or of the cause it wraps (one level), if any. */
function errnoOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('E') && code !== 'IO_FAILED') return code;
  }
  return undefined;
}

export interface ObservationPipelineOptions {
  /** The recording header's `id` (span ids derive from it). */
  recordingId: string;
  /** The agent's name from the recording header's agent card (the spans' `gen_ai.agent.name`). */
  agentName?: string | undefined;
  /** What Suspension span ids derive from (the observer's `suspensionSpans`); default `pause`. */
  suspensionSpans?: SuspensionSpanIds;
  /** The observer's `canonicalTimes` (docs/design.md §6, "Peer times"): false only to derive a log below version 5. */
  canonicalTimes?: boolean;
  receipts?: ReceiptSink;
  spans?: SpanSink;
  /**
   * Called once per sink, at its first failure; later failures are only counted
   * ({@link ObservationPipeline.failures}).
   */
  onSinkError?: (error: unknown, sink: PipelineSinkName) => void;
  /** Every finding, as it is made. */
  onFinding?: (finding: ObserverFinding) => void;
  /**
   * Resolves once the recording lines appended so far are durable (the recording writer's
   * `durable`): a held entry also waits for the lines its receipt cites ({@link
   * ObservationPipeline.pushHeld}). Called when an entry causes a receipt, at once. Resolves (or
   * rejects) with the failure when they could not be.
   */
  entriesDurable?: () => Promise<unknown>;
  /**
   * {@link entriesDurable} with a callback, which the pipeline prefers: `done` once, when they
   * are, or with the failure.
   */
  whenEntriesDurable?: (done: (failure?: unknown) => void) => void;
  /**
   * Keep every finding for {@link ObservationPipeline.findings} (default true, for a recording
   * read to its end). A long-running recorder passes false and sees them through `onFinding`, so
   * memory stays flat.
   */
  retainFindings?: boolean;
}

/**
 * How many receipt hashes of closed suspensions (and of resumptions) the pipeline remembers: a
 * rejected attempt after the close still names the suspension's receipt. Open suspensions are
 * always remembered. Above the observer's own memory of ended pauses (docs/design.md §14.6).
 */
const CLOSED_HASH_MEMORY = 16_384;

/**
 * Feeds entries to a PauseObserver and its outputs to the sinks, strictly in entry order: the
 * observer sees each entry at once (so its state follows the caller), while sink work runs on an
 * internal queue, so receipts are appended in entry order even when entries arrive faster than
 * the log writes. No method rejects.
 */
export class ObservationPipeline {
  readonly observer: PauseObserver;
  readonly #receipts: ReceiptSink | undefined;
  readonly #spans: SpanSink | undefined;
  readonly #onSinkError: ((error: unknown, sink: PipelineSinkName) => void) | undefined;
  readonly #onFinding: ((finding: ObserverFinding) => void) | undefined;
  /** Receipt hashes of suspensions still open, by key. */
  readonly #openHashes = new Map<string, string>();
  /** Receipt hashes of closed suspensions and of resumptions, most recently used last. */
  readonly #closedHashes = new BoundedMap<string, string>(CLOSED_HASH_MEMORY);
  readonly #findings: ObserverFinding[] = [];
  readonly #retainFindings: boolean;
  readonly #failures: Record<PipelineSinkName, number> = { receipts: 0, spans: 0 };
  #queue: Promise<void> = Promise.resolve();
  readonly #entriesDurable: (() => Promise<unknown>) | undefined;
  readonly #whenEntriesDurable: ((done: (failure?: unknown) => void) => void) | undefined;
  /**
   * Per task, the hold of its latest receipt while that receipt is not durable yet: every entry
   * that shows the task meanwhile waits for it (the log is written in order, so it covers the
   * task's earlier receipts too). Empty when nothing is in flight.
   */
  readonly #undurable = new Map<string, ReceiptHold>();
  /** Per task, the entries that showed it past a pause no receipt states yet: their releases. */
  readonly #awaiting = new Map<string, ((hold: ReceiptHold | undefined) => void)[]>();

  constructor(options: ObservationPipelineOptions) {
    this.observer = new PauseObserver({
      recordingId: options.recordingId,
      agentName: options.agentName,
      ...(options.suspensionSpans ? { suspensionSpans: options.suspensionSpans } : {}),
      ...(options.canonicalTimes !== undefined ? { canonicalTimes: options.canonicalTimes } : {}),
      spans: options.spans !== undefined,
    });
    this.#receipts = options.receipts;
    this.#spans = options.spans;
    this.#onSinkError = options.onSinkError;
    this.#onFinding = options.onFinding;
    this.#retainFindings = options.retainFindings ?? true;
    this.#entriesDurable = options.entriesDurable;
    this.#whenEntriesDurable = options.whenEntriesDurable;
  }

  /**
   * Opens the pauses an earlier recording left open before the first entry ({@link
   * PauseObserver.carry}); `receiptHash`, when given, is the hash of each one's SuspensionReceipt
   * in the earlier log, which the resumption that closes it names (docs/design.md §6, "Series").
   */
  carry(suspensions: readonly (CarriedSuspension & { receiptHash: string | null })[]): void {
    this.observer.carry(suspensions);
    for (const s of suspensions) if (s.receiptHash !== null) this.#openHashes.set(s.key, s.receiptHash);
  }

  /**
   * Opens the interruptions an earlier recording left open before the first entry ({@link
   * PauseObserver.carryInterruptions}); `receiptHash`, when given, is the hash of each one's
   * InterruptionReceipt in the earlier log, which the continuation that closes it names.
   */
  carryInterruptions(interruptions: readonly (CarriedInterruption & { receiptHash: string | null })[]): void {
    this.observer.carryInterruptions(interruptions);
    for (const i of interruptions) if (i.receiptHash !== null) this.#openHashes.set(i.key, i.receiptHash);
  }

  /** Observes one entry; resolves when its receipts and spans have been handed to the sinks. */
  push(entry: RecordingEntry): Promise<void> {
    return this.#enqueue(this.observer.observe(entry));
  }

  /**
   * Observes one entry like {@link push}, and returns a hold when the entry shows a client a pause
   * or resume whose receipt is not durable yet (docs/design.md §5, "Durable before
   * acknowledged"): the proxy keeps the bytes that carried the entry back until it settles.
   *
   * - An entry that causes a receipt waits for it: written, durable (the sink's `durable()`), and
   *   the recording lines it cites durable (`entriesDurable`).
   * - An entry that shows a task (a sighting, an answer to a call on it) while a receipt of that
   *   task is not durable yet waits for that receipt: the PauseTask answer after the stream event
   *   that proved the pause, the stream event after the ResumeTask answer, a poll.
   * - An entry that shows a task past a pause whose receipt only a later entry can make
   *   ({@link PauseObserver.awaited}) waits for that task's next receipt, or until the observer no
   *   longer waits for one (it decided the end without a receipt, or the recording ended).
   *
   * Every other entry gets `undefined` and nothing is allocated for it. The hold never rejects:
   * a receipt that could not be made durable is reported as a sink failure, and the hold settles
   * to why ({@link ReceiptHold}).
   */
  pushHeld(entry: RecordingEntry): ReceiptHold | undefined {
    const observer = this.observer;
    const outputs = observer.observe(entry);
    const handled = this.#enqueue(outputs);
    let hold: ReceiptHold | undefined;
    let receipted: string[] | undefined;
    for (const o of outputs) {
      if (!isReceipt(o)) continue;
      if (receipted === undefined) {
        receipted = [];
        hold = this.#durableAfter(handled, receipted);
      }
      this.#receipted(o.draft.taskId, hold as ReceiptHold, receipted);
    }
    let holds: ReceiptHold[] | undefined;
    if (this.#undurable.size > 0) {
      observer.tasksShown((taskId) => {
        const pending = this.#undurable.get(taskId);
        if (pending === undefined || pending === hold) return;
        if (hold === undefined) hold = pending;
        else (holds ??= [hold]).push(pending);
      });
    }
    const awaited = observer.awaited;
    for (let i = 0; i < awaited.length; i++) {
      const taskId = awaited[i] as string;
      const waiting: ReceiptHold = new Promise((resolve) => {
        const releases = this.#awaiting.get(taskId) ?? [];
        releases.push((receipt) => resolve(receipt));
        this.#awaiting.set(taskId, releases);
      });
      if (hold === undefined) hold = waiting;
      else (holds ??= [hold]).push(waiting);
    }
    if (this.#awaiting.size > 0) this.#releaseUnawaited();
    if (holds !== undefined) return Promise.all(holds).then((refusals) => refusals.find((r) => r !== undefined));
    return hold;
  }

  /** Ends the recording (lost pauses, open spans) and resolves when everything is handed over. */
  finish(at: string): Promise<void> {
    const done = this.#enqueue(this.observer.finish(at));
    // Nothing is awaited any more: entries held for a receipt still to come are released once
    // the receipts the end made are durable.
    const hold = this.#awaiting.size > 0 ? this.#durableAfter(done, []) : undefined;
    for (const releases of this.#awaiting.values()) for (const release of releases) release(hold);
    this.#awaiting.clear();
    return done;
  }

  /**
   * Runs `step` on the sink queue once everything pushed so far has been handed to the sinks, and
   * before anything pushed later: a recorder swaps its receipt log there (docs/design.md §6,
   * "Rotation"). A step that fails is reported as a receipts failure.
   */
  between(step: () => Promise<void>): Promise<void> {
    this.#queue = this.#queue.then(step).catch((error: unknown) => this.#failed(error, 'receipts'));
    return this.#queue;
  }

  /** Resolves when everything pushed so far has been handled. */
  idle(): Promise<void> {
    return this.#queue;
  }

  /** Findings so far (none kept when `retainFindings` is false). */
  get findings(): readonly ObserverFinding[] {
    return this.#findings;
  }

  /** Sink failures so far, per sink. */
  get failures(): Readonly<Record<PipelineSinkName, number>> {
    return { ...this.#failures };
  }

  /**
   * The hash of the receipt written for a suspension or resumption key, once written: always for
   * an open suspension, for the {@link CLOSED_HASH_MEMORY} most recent otherwise.
   */
  receiptHash(key: string): string | undefined {
    return this.#openHashes.get(key) ?? this.#closedHashes.get(key);
  }

  /** Sizes of what the pipeline retains (for tests that hold memory flat). */
  get retained(): { openHashes: number; closedHashes: number; findings: number } {
    return {
      openHashes: this.#openHashes.size,
      closedHashes: this.#closedHashes.size,
      findings: this.#findings.length,
    };
  }

  /**
   * Settles once `handled` has, the receipt log is durable and the recording lines are; then
   * forgets the holds of `tasks` it still is the latest of. One promise, settled by callbacks
   * where the sinks take them (the log's and the recording's syncs are asked for together).
   */
  #durableAfter(handled: Promise<void>, tasks: readonly string[]): ReceiptHold {
    let settle: (refusal: string | undefined) => void = () => undefined;
    const hold: ReceiptHold = new Promise((resolve) => (settle = resolve));
    let left = 2;
    let refusal: string | undefined;
    const one = (): void => {
      if (--left > 0) return;
      for (const taskId of tasks) if (this.#undurable.get(taskId) === hold) this.#undurable.delete(taskId);
      settle(refusal);
    };
    const failed = (error: unknown): void => {
      refusal ??= refusalOf(error);
      this.#failed(error, 'receipts');
      one();
    };
    const entries = (failure?: unknown): void => (failure === undefined ? one() : failed(failure));
    if (this.#whenEntriesDurable !== undefined) this.#whenEntriesDurable(entries);
    else if (this.#entriesDurable !== undefined) this.#entriesDurable().then(entries, failed);
    else one();
    const receipts = this.#receipts;
    void handled.then(() => {
      if (receipts?.whenDurable !== undefined) receipts.whenDurable(one, failed);
      else if (receipts?.durable !== undefined) receipts.durable().then(one, failed);
      else one();
    });
    return hold;
  }

  /** `hold` settles once the latest receipt of `taskId` is durable: later sightings wait for it. */
  #receipted(taskId: string, hold: ReceiptHold, receipted: string[]): void {
    if (this.#undurable.get(taskId) === hold) return;
    this.#undurable.set(taskId, hold);
    receipted.push(taskId);
    const releases = this.#awaiting.get(taskId);
    if (releases === undefined) return;
    this.#awaiting.delete(taskId);
    for (const release of releases) release(hold);
  }

  /** Releases the entries held for a task the observer no longer waits on (it ended the pause without a receipt). */
  #releaseUnawaited(): void {
    for (const [taskId, releases] of this.#awaiting) {
      if (this.observer.awaits(taskId)) continue;
      this.#awaiting.delete(taskId);
      for (const release of releases) release(undefined);
    }
  }

  #enqueue(outputs: ObserverOutput[]): Promise<void> {
    // Most entries show nothing: no step on the queue for them (it would resolve to the same).
    if (outputs.length === 0) return this.#queue;
    let queued = false;
    for (const output of outputs) {
      if (output.type === 'finding') {
        if (this.#retainFindings) this.#findings.push(output.finding);
        this.#safely(() => this.#onFinding?.(output.finding));
      } else if (output.type !== 'span' || this.#spans !== undefined) queued = true;
    }
    // Nor for outputs no sink takes (span events without a span sink, findings told above).
    if (!queued) return this.#queue;
    this.#queue = this.#queue
      .then(() => this.#handle(outputs))
      .catch((error: unknown) => this.#failed(error, 'receipts'));
    return this.#queue;
  }

  async #handle(outputs: ObserverOutput[]): Promise<void> {
    // A span end whose receipt follows in the same batch waits for that receipt's hash.
    const receiptKeys = new Set<string>();
    for (const o of outputs) if (isReceipt(o)) receiptKeys.add(o.key);
    const held = new Map<string, SpanEvent>();
    for (const output of outputs) {
      switch (output.type) {
        case 'span': {
          const event = output.event;
          if (endsWithReceipt(event) && receiptKeys.has(event.key)) held.set(event.key, event);
          else this.#toSpans(event);
          break;
        }
        case 'suspension': {
          const hash = await this.#append(() => this.#receipts?.appendSuspension(output.draft));
          if (hash !== undefined) this.#openHashes.set(output.key, hash);
          this.#release(held, output.key, hash);
          break;
        }
        case 'resumption': {
          if (output.suspensionKey === null) {
            const outside = output.outside;
            const hash = await this.#append(() => this.#receipts?.appendResumption(output.draft, outside));
            if (hash !== undefined) this.#closedHashes.set(output.key, hash);
            this.#release(held, output.key, hash);
            break;
          }
          const suspensionHash = this.receiptHash(output.suspensionKey);
          let hash: string | undefined;
          if (suspensionHash === undefined) {
            if (this.#receipts) {
              this.#failed(
                new Error(
                  `resumption ${output.key} not written: the suspension receipt ` +
                    `${output.suspensionKey} it refers to was not written`,
                ),
                'receipts',
              );
            }
          } else {
            hash = await this.#append(() => this.#receipts?.appendResumption(output.draft, suspensionHash));
            if (hash !== undefined) this.#closedHashes.set(output.key, hash);
            if (output.draft.outcome !== 'rejected' && this.#openHashes.delete(output.suspensionKey))
              this.#closedHashes.set(output.suspensionKey, suspensionHash);
          }
          this.#release(held, output.key, hash);
          break;
        }
        case 'interruption': {
          const write = this.#receipts?.appendInterruption.bind(this.#receipts);
          const hash = write ? await this.#append(() => write(output.draft)) : undefined;
          if (hash !== undefined) this.#openHashes.set(output.key, hash);
          this.#release(held, output.key, hash);
          break;
        }
        case 'continuation': {
          const interruptionHash = this.receiptHash(output.interruptionKey);
          const write = this.#receipts?.appendContinuation.bind(this.#receipts);
          let hash: string | undefined;
          if (write && interruptionHash !== undefined) {
            hash = await this.#append(() => write(output.draft, interruptionHash));
            if (hash !== undefined) this.#closedHashes.set(output.key, hash);
          }
          this.#release(held, output.key, hash);
          if (interruptionHash !== undefined && this.#openHashes.delete(output.interruptionKey))
            this.#closedHashes.set(output.interruptionKey, interruptionHash);
          break;
        }
        case 'interruption-lost':
          if (this.#openHashes.has(output.interruptionKey)) {
            const hash = this.#openHashes.get(output.interruptionKey) as string;
            this.#openHashes.delete(output.interruptionKey);
            this.#closedHashes.set(output.interruptionKey, hash);
          }
          break;
        case 'finding':
          break;
        default: {
          const never: never = output;
          return never;
        }
      }
    }
  }

  async #append(write: () => Promise<{ hash: string } | undefined> | undefined): Promise<string | undefined> {
    if (!this.#receipts) return undefined;
    try {
      const written = await write();
      return written?.hash;
    } catch (error) {
      this.#failed(error, 'receipts');
      return undefined;
    }
  }

  #release(held: Map<string, SpanEvent>, key: string, receiptHash: string | undefined): void {
    const event = held.get(key);
    if (!event) return;
    held.delete(key);
    this.#toSpans(event, receiptHash);
  }

  #toSpans(event: SpanEvent, receiptHash?: string): void {
    const spans = this.#spans;
    if (!spans) return;
    try {
      if (receiptHash === undefined) spans.handle(event);
      else spans.handle(event, { receiptHash });
    } catch (error) {
      this.#failed(error, 'spans');
    }
  }

  #failed(error: unknown, sink: PipelineSinkName): void {
    this.#failures[sink] += 1;
    if (this.#failures[sink] === 1) this.#safely(() => this.#onSinkError?.(error, sink));
  }

  #safely(call: () => void): void {
    try {
      call();
    } catch {
      // A failing callback must not break observation either.
    }
  }
}

/** A span end that names the receipt written with it (docs/design.md §7): it waits for that hash. */
function endsWithReceipt(event: SpanEvent): boolean {
  return (
    event.type === 'suspension.end' ||
    event.type === 'resume.end' ||
    event.type === 'interruption.end' ||
    event.type === 'continuation.end'
  );
}

/** Outputs that become a receipt: the entry that caused one waits for its durability (docs/design.md §5). */

function isReceipt(
  o: ObserverOutput,
): o is Extract<ObserverOutput, { type: 'suspension' | 'resumption' | 'interruption' | 'continuation' }> {
  return o.type === 'suspension' || o.type === 'resumption' || o.type === 'interruption' || o.type === 'continuation';
}
