/**
 * @module cli/record-progress
 * What `record` says while it runs (docs/design.md §9): with `lines` on (stderr a TTY, or
 * `--progress`), one line per pause, resume and lost pause as its receipt is written or the loss
 * is seen (task, who, via); at the stop, one summary line (exchanges, pauses, resumes, receipts,
 * lost pauses, files written). Otherwise it only counts: a few integer additions per receipt and
 * per exchange, nothing per entry. A request in no A2A dialect the observer reads is said at once
 * whatever `lines` is (the first {@link NOT_UNDERSTOOD_TOLD}), and counted in the summary
 * (docs/design.md §14.10).
 */
import type { ObserverFinding } from '../src/observe/findings.js';
import type { ReceiptSink } from '../src/observe/pipeline.js';
import type { ResumptionDraft, SuspensionDraft } from '../src/receipts/types.js';
import { printable } from '../src/printable.js';

export interface RecordProgressOptions {
  /** Say each pause, resume and lost pause as it happens. */
  lines: boolean;
  /** Where lines go (stderr). */
  write: (text: string) => void;
}

/** Requests not understood said one by one; past this many they are counted. */
const NOT_UNDERSTOOD_TOLD = 20;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export class RecordProgress {
  readonly #lines: boolean;
  readonly #write: (text: string) => void;
  #exchanges = 0;
  #pauses = 0;
  #resumes = 0;
  #receipts = 0;
  #lost = 0;
  #notUnderstood = 0;

  constructor(options: RecordProgressOptions) {
    this.#lines = options.lines;
    this.#write = options.write;
  }

  #say(text: string): void {
    this.#write(`${printable(`a2a-replay: ${text}`)}\n`);
  }

  /** A request came in: one more exchange. */
  exchange(): void {
    this.#exchanges += 1;
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
        if (written) this.#receipts += 1;
        return written;
      },
      appendContinuation: async (draft, interruptionHash) => {
        const written = await sink.appendContinuation(draft, interruptionHash);
        if (written) this.#receipts += 1;
        return written;
      },
    };
    if (sink.durable) sealed.durable = () => sink.durable?.() ?? Promise.resolve();
    const whenDurable = sink.whenDurable?.bind(sink);
    if (whenDurable) sealed.whenDurable = whenDurable;
    return sealed;
  }

  #suspension(draft: SuspensionDraft): void {
    this.#receipts += 1;
    this.#pauses += 1;
    if (!this.#lines) return;
    const reason = draft.reason === undefined || draft.reason === null ? '' : `: ${JSON.stringify(draft.reason)}`;
    this.#say(
      `paused task ${draft.taskId} by the ${draft.initiatedBy.replace(/^PAUSE_INITIATOR_/, '').toLowerCase()} ` +
        `(${draft.principal ?? 'no principal'}) via ${draft.via}${reason}`,
    );
  }

  #resumption(draft: ResumptionDraft): void {
    this.#receipts += 1;
    if (draft.outcome === 'resumed') this.#resumes += 1;
    if (!this.#lines) return;
    const verb = draft.outcome === 'resumed' ? 'resumed' : `resume ${draft.outcome}:`;
    this.#say(`${verb} task ${draft.taskId} by ${draft.principal ?? 'no principal'} (cause ${draft.cause})`);
  }

  /**
   * A finding of the observer: a lost pause is counted and, with lines on, said; a request not
   * understood is counted and said at once.
   */
  finding(finding: ObserverFinding): void {
    if (finding.code === 'not-understood') {
      this.#notUnderstood += 1;
      if (this.#notUnderstood <= NOT_UNDERSTOOD_TOLD)
        this.#say(`not understood (seq ${finding.seq ?? '-'}): ${finding.message}; nothing it carried is observed`);
      if (this.#notUnderstood === NOT_UNDERSTOOD_TOLD)
        this.#say('further requests not understood are counted and said at the stop');
      return;
    }
    if (finding.code !== 'lost-pause') return;
    this.#lost += 1;
    if (this.#lines) this.#say(`lost pause of task ${finding.taskId ?? '-'}: ${finding.message}`);
  }

  /** The closing summary: what was recorded and where. `receipts` is undefined without a key. */
  summary(files: { recording: string; receipts: string | undefined }): void {
    const what = [plural(this.#exchanges, 'exchange')];
    if (files.receipts !== undefined)
      what.push(
        plural(this.#pauses, 'pause'),
        plural(this.#resumes, 'resume'),
        plural(this.#receipts, 'receipt'),
        plural(this.#lost, 'lost pause'),
      );
    const written = files.receipts === undefined ? files.recording : `${files.recording} and ${files.receipts}`;
    if (this.#notUnderstood > 0) what.push(`${this.#notUnderstood} NOT UNDERSTOOD`);
    const unkeyed = files.receipts === undefined ? ' (no key: no receipts)' : '';
    this.#say(`stopped: ${what.join(', ')}${unkeyed}; wrote ${written}`);
  }
}
