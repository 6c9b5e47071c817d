/**
 * @module record/progress
 * What a recorder tells while it runs (docs/design.md §9): one {@link RecorderEvent} per pause,
 * resume and lost pause as its receipt is written or the loss is seen, and per request in no A2A
 * dialect the observer reads (docs/design.md §14.10) or entry whose peer's words it could not
 * read (§14.2); at the stop, the counts of {@link RecordCounts}. Without a listener it only counts:
 * a few integer additions per receipt and per exchange, nothing per entry. A request not
 * understood and an entry unread are also said at once as warnings (the first
 * {@link NOT_UNDERSTOOD_TOLD} of each), whoever listens.
 */
import { FINDING_BEARING } from '../observe/finding-bearing.js';
import type { FindingCode, ObserverFinding } from '../observe/findings.js';
import type { ReceiptSink } from '../observe/pipeline.js';
import type { ResumptionDraft, SuspensionDraft } from '../receipts/types.js';
import type { RecorderWarn } from './warnings.js';

/** Something a recorder saw, as it happens. */
export type RecorderEvent =
  | {
      kind: 'pause';
      taskId: string;
      /** `client`, `agent`, ... (the receipt's `initiatedBy` without its prefix, lower case). */
      initiatedBy: string;
      principal: string | null;
      via: string;
      reason: string | null;
    }
  | { kind: 'resume'; taskId: string; principal: string | null; cause: string; outcome: string }
  | { kind: 'lost-pause'; taskId: string | null; message: string }
  | { kind: 'not-understood'; seq: number | null; message: string }
  /** An entry where the observer could not read what the peer said (docs/design.md §14.2). */
  | { kind: 'unread'; seq: number | null; code: FindingCode; message: string };

/** What a recorder counted from its start to its stop. */
export interface RecordCounts {
  exchanges: number;
  pauses: number;
  resumes: number;
  receipts: number;
  lostPauses: number;
  notUnderstood: number;
  /** Entries where the observer could not read what the peer said (docs/design.md §14.2). */
  unread: number;
}

/** Requests not understood said one by one; past this many they are counted. */
const NOT_UNDERSTOOD_TOLD = 20;

export class RecordProgress {
  readonly #onEvent: ((event: RecorderEvent) => void) | undefined;
  readonly #warn: RecorderWarn;
  readonly #counts: RecordCounts = {
    exchanges: 0,
    pauses: 0,
    resumes: 0,
    receipts: 0,
    lostPauses: 0,
    notUnderstood: 0,
    unread: 0,
  };

  constructor(options: { onEvent?: ((event: RecorderEvent) => void) | undefined; warn: RecorderWarn }) {
    this.#onEvent = options.onEvent;
    this.#warn = options.warn;
  }

  get counts(): RecordCounts {
    return { ...this.#counts };
  }

  /** A request came in: one more exchange. */
  exchange(): void {
    this.#counts.exchanges += 1;
  }

  /** `sink`, telling each receipt once it is written. */
  receipts(sink: ReceiptSink): ReceiptSink {
    const sealed: ReceiptSink = {
      appendSuspension: async (draft) => {
        const written = await sink.appendSuspension(draft);
        this.#suspension(draft);
        return written;
      },
      appendResumption: async (draft, suspension) => {
        const written = await sink.appendResumption(draft, suspension);
        this.#resumption(draft);
        return written;
      },
      appendInterruption: async (draft) => {
        const written = await sink.appendInterruption(draft);
        if (written) this.#counts.receipts += 1;
        return written;
      },
      appendContinuation: async (draft, interruptionHash) => {
        const written = await sink.appendContinuation(draft, interruptionHash);
        if (written) this.#counts.receipts += 1;
        return written;
      },
    };
    if (sink.durable) sealed.durable = () => sink.durable?.() ?? Promise.resolve();
    const whenDurable = sink.whenDurable?.bind(sink);
    if (whenDurable) sealed.whenDurable = whenDurable;
    return sealed;
  }

  #suspension(draft: SuspensionDraft): void {
    this.#counts.receipts += 1;
    this.#counts.pauses += 1;
    this.#onEvent?.({
      kind: 'pause',
      taskId: draft.taskId,
      initiatedBy: draft.initiatedBy.replace(/^PAUSE_INITIATOR_/, '').toLowerCase(),
      principal: draft.principal ?? null,
      via: draft.via,
      reason: draft.reason ?? null,
    });
  }

  #resumption(draft: ResumptionDraft): void {
    this.#counts.receipts += 1;
    if (draft.outcome === 'resumed') this.#counts.resumes += 1;
    this.#onEvent?.({
      kind: 'resume',
      taskId: draft.taskId,
      principal: draft.principal ?? null,
      cause: draft.cause,
      outcome: draft.outcome,
    });
  }

  /**
   * A finding of the observer: a lost pause is counted and told; a request not understood, or an
   * entry unread (`observe/finding-bearing`), is counted, told and said at once as a warning.
   */
  finding(finding: ObserverFinding): void {
    if (finding.code === 'not-understood') {
      this.#counts.notUnderstood += 1;
      const n = this.#counts.notUnderstood;
      if (n <= NOT_UNDERSTOOD_TOLD)
        this.#warn(`not understood (seq ${finding.seq ?? '-'}): ${finding.message}; nothing it carried is observed`);
      if (n === NOT_UNDERSTOOD_TOLD) this.#warn('further requests not understood are counted and said at the stop');
      this.#onEvent?.({ kind: 'not-understood', seq: finding.seq ?? null, message: finding.message });
      return;
    }
    if (FINDING_BEARING[finding.code] === 'unread') {
      this.#counts.unread += 1;
      const n = this.#counts.unread;
      if (n <= NOT_UNDERSTOOD_TOLD)
        this.#warn(
          `unread (seq ${finding.seq ?? '-'}): ${finding.code}: ${finding.message}; ` +
            'a pause or resume it showed is not observed',
        );
      if (n === NOT_UNDERSTOOD_TOLD) this.#warn('further unread entries are counted and said at the stop');
      this.#onEvent?.({ kind: 'unread', seq: finding.seq ?? null, code: finding.code, message: finding.message });
      return;
    }
    if (finding.code !== 'lost-pause') return;
    this.#counts.lostPauses += 1;
    this.#onEvent?.({ kind: 'lost-pause', taskId: finding.taskId ?? null, message: finding.message });
  }
}
