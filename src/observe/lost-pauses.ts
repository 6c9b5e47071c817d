/**
 * @module observe/lost-pauses
 * Lists lost pauses (docs/design.md §7 `LostPause`, §14.5) for people: from the PauseObserver's
 * `lost` span events over a recording (as an ObservationPipeline's span sink), or from a receipt
 * log, where a suspension that no resumption closed is lost because the log ended
 * (`recording_ended`). Detection itself is the observer's.
 */
import { sealLine } from '../receipts/chain.js';
import type { InterruptionReceipt, ReceiptLogLine, SpanRef, SuspensionReceipt } from '../receipts/types.js';
import {
  ATTR_PAUSE_INITIATED_BY,
  ATTR_PAUSE_PAUSED_AT,
  ATTR_PAUSE_REASON,
  ATTR_RESUME_OUTCOME,
  ATTR_INTERRUPTED_AT,
  ATTR_RULE,
  ATTR_TASK_STATE,
} from '../tracing/attributes.js';
import type { LostInterruptionListing, LostPauseListing } from './lost-listings.js';
import type { SpanAttributes, SpanEvent, SpanSink } from '../tracing/span-events.js';

export type { LostInterruptionListing, LostPauseListing } from './lost-listings.js';

/**
 * A {@link SpanSink} that keeps the `lost` events of the PauseObserver, with who paused, why and
 * since when, read from the `suspension.end` span attributes (docs/design.md §7). Put it behind an
 * {@link ObservationPipeline} as its `spans` sink; what it remembers of a pause is dropped once a
 * resume closed it.
 */
export class LostPauseCollector implements SpanSink {
  readonly #pauses = new Map<string, { at: string; span: SpanRef; ended?: SpanAttributes }>();
  /** Resume span key → the suspension it closes. */
  readonly #resumes = new Map<string, string>();
  readonly #lost: LostPauseListing[] = [];
  readonly #lostInterruptions: LostInterruptionListing[] = [];

  /** Lost interruptions in the order they were declared. */
  get lostInterruptions(): readonly LostInterruptionListing[] {
    return this.#lostInterruptions;
  }

  handle(event: SpanEvent): void {
    switch (event.type) {
      case 'suspension.start':
        this.#pauses.set(event.key, { at: event.at, span: event.span });
        return;
      case 'suspension.end': {
        const pause = this.#pauses.get(event.key);
        if (pause) pause.ended = event.attributes;
        return;
      }
      case 'resume.start':
        this.#resumes.set(event.key, event.suspensionKey);
        return;
      case 'resume.end': {
        const suspension = this.#resumes.get(event.key);
        this.#resumes.delete(event.key);
        if (suspension !== undefined && event.attributes[ATTR_RESUME_OUTCOME] !== 'rejected')
          this.#pauses.delete(suspension);
        return;
      }
      case 'lost': {
        const pause = this.#pauses.get(event.suspensionKey);
        this.#pauses.delete(event.suspensionKey);
        const ended = pause?.ended ?? {};
        this.#lost.push({
          taskId: event.taskId,
          initiatedBy: text(ended[ATTR_PAUSE_INITIATED_BY]),
          reason: event.reason,
          since: text(ended[ATTR_PAUSE_PAUSED_AT]) ?? pause?.at ?? event.at,
          detectedAt: event.at,
          pauseReason: text(ended[ATTR_PAUSE_REASON]),
          span: event.link,
          rule: text(event.attributes[ATTR_RULE]),
        });
        return;
      }
      case 'interruption.lost':
        this.#lostInterruptions.push({
          taskId: event.taskId,
          state: text(event.attributes[ATTR_TASK_STATE]),
          reason: event.reason,
          since: text(event.attributes[ATTR_INTERRUPTED_AT]) ?? event.at,
          detectedAt: event.at,
          span: event.link,
          rule: text(event.attributes[ATTR_RULE]),
        });
        return;
      case 'task.start':
      case 'task.end':
      case 'interruption.start':
      case 'interruption.end':
      case 'continuation.start':
      case 'continuation.end':
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  }

  /** Lost pauses in the order they were declared. */
  get lost(): readonly LostPauseListing[] {
    return this.#lost;
  }
}

function text(value: SpanAttributes[string] | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/** An InterruptionReceipt no ContinuationReceipt closed, as a lost interruption (`never_continued`). */
export function lostInterruptionOf(i: InterruptionReceipt): LostInterruptionListing {
  return {
    taskId: i.taskId,
    state: i.state,
    reason: 'never_continued',
    since: i.interruptedAt ?? i.observedAt,
    detectedAt: null,
    span: i.span,
    rule: null,
  };
}

/**
 * The suspensions of a receipt log that no resumption has closed yet, read one line at a time (a
 * `rejected` resumption attempts but does not close one, docs/design.md §6): what it keeps is the
 * open suspensions alone, so a log of any length is read in flat memory. Lines are matched by the
 * hash of their canonical form, as `suspension` names them. Checks no signature.
 */
export class OpenSuspensions {
  readonly #open = new Map<string, SuspensionReceipt>();
  /** Version 5: interruptions no continuation closed (docs/design.md §14.9). */
  readonly #interrupted = new Map<string, InterruptionReceipt>();

  /** The interruptions never continued, as lost interruptions (`never_continued`), in log order. */
  lostInterruptions(): LostInterruptionListing[] {
    return [...this.#interrupted.values()].map(lostInterruptionOf);
  }

  /** Takes the next line of the log; `hash` is its hash when the caller has it already (a verified line's). */
  add(line: ReceiptLogLine, hash?: string): void {
    switch (line.type) {
      case 'SuspensionReceipt':
        this.#open.set(hash ?? sealLine(line).hash, line);
        return;
      case 'ResumptionReceipt':
        if (line.outcome !== 'rejected' && line.suspension !== null) this.#open.delete(line.suspension);
        return;
      case 'InterruptionReceipt':
        this.#interrupted.set(hash ?? sealLine(line).hash, line);
        return;
      case 'ContinuationReceipt':
        this.#interrupted.delete(line.interruption);
        return;
      case 'ReceiptLog':
        // A continued log starts with the suspensions its predecessor left open (docs/design.md §6,
        // "Series"): a series' lost pauses are those still open at the end of its last log.
        for (const carried of line.series?.previous.open ?? []) this.#open.set(sealLine(carried).hash, carried);
        // And the interruptions it left open: one continued in this log is not lost.
        for (const carried of line.series?.previous.interruptions ?? [])
          this.#interrupted.set(sealLine(carried).hash, carried);
        return;
      case 'Checkpoint':
        return;
      default: {
        const never: never = line;
        throw new Error(`unknown receipt log line ${JSON.stringify(never)}`);
      }
    }
  }

  /** The suspensions still open, as lost pauses, in log order. */
  lost(): LostPauseListing[] {
    return [...this.#open.values()].map((s) => ({
      taskId: s.taskId,
      initiatedBy: s.initiatedBy,
      reason: 'recording_ended',
      since: s.pausedAt,
      detectedAt: null,
      pauseReason: s.reason,
      span: s.span,
      rule: null,
    }));
  }
}

/** Lost pauses of a receipt log: every SuspensionReceipt no ResumptionReceipt closes ({@link OpenSuspensions}). */
export function lostPausesInReceiptLog(lines: Iterable<ReceiptLogLine>): LostPauseListing[] {
  const open = new OpenSuspensions();
  for (const line of lines) open.add(line);
  return open.lost();
}
