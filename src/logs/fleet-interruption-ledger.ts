/**
 * @module logs/fleet-interruption-ledger
 * The interruptions of a fleet (docs/design.md §14.9, §17) as `lost` reads them: each log's lines
 * taken as they are read, in the one pass that feeds the fleet's `FleetLedger`. An
 * InterruptionReceipt is closed by the ContinuationReceipt naming its hash within its own log, or
 * within its series (a continuation in a later log names the receipt of an earlier one, which that
 * log's header carried in): as `auditFleet` pairs them. One open when every log ended is lost
 * (`never_continued`), listed with the file and line of its receipt; a continuation naming an
 * interruption no given log holds is an orphan. A continuation names nothing but that hash, and a
 * replica writes none of an ask it never saw: an ask seen through one replica and answered through
 * another stays open, and is listed lost. Memory is one entry per interruption. Pure: no I/O.
 */
import { sealLine } from '../receipts/chain.js';
import type { FleetPlace } from '../receipts/fleet.js';
import type { ReceiptLogLine } from '../receipts/types.js';
import { type LostInterruptionListing, lostInterruptionOf } from '../observe/lost-pauses.js';

/** A continuation naming an interruption no given log (nor an earlier log of its series) holds. */
export interface FleetOrphanContinuation {
  taskId: string;
  /** The hash of the InterruptionReceipt it names. */
  interruption: string;
  /** Who continued it (the message's sender, the control call's), when known. */
  principal: string | null;
  continuedIn: FleetPlace & { seq: number };
}

/** What the fleet's interruptions come to: those never continued, and the orphan continuations. */
export interface FleetInterruptions {
  /** Interruptions open when every log ended, each with `interruptedIn`, in the order the logs were given. */
  lost: LostInterruptionListing[];
  orphans: FleetOrphanContinuation[];
}

/** Pairs the interruptions and continuations of several receipt logs, fed line by line, log by log. */
export class FleetInterruptionLedger {
  /** Every interruption by series and receipt hash: its listing while open, null once continued. */
  readonly #asked = new Map<string, LostInterruptionListing | null>();
  readonly #orphans: FleetOrphanContinuation[] = [];
  #file = '';
  #series = '';

  /** The lines that follow are `file`'s, of the series `series` (the file itself for a log alone). */
  startLog(file: string, series: string = file): void {
    this.#file = file;
    this.#series = series;
  }

  /** The next line of the current log (`hash`: its hash when the caller has it, a verified line's). */
  add(line: ReceiptLogLine, number: number, hash?: string): void {
    if (line.type === 'InterruptionReceipt') {
      const listing = { ...lostInterruptionOf(line), interruptedIn: { file: this.#file, line: number } };
      this.#asked.set(`${this.#series}\n${hash ?? sealLine(line).hash}`, listing);
    } else if (line.type === 'ContinuationReceipt') {
      const key = `${this.#series}\n${line.interruption}`;
      // A second continuation of one interruption continues it again, as the audit reads it: no orphan.
      if (this.#asked.has(key)) this.#asked.set(key, null);
      else
        this.#orphans.push({
          taskId: line.taskId,
          interruption: line.interruption,
          principal: line.principal,
          continuedIn: { file: this.#file, line: number, seq: line.seq },
        });
    }
  }

  /** The interruptions still open, and the orphan continuations. */
  finish(): FleetInterruptions {
    const lost = [...this.#asked.values()].filter((l) => l !== null);
    return { lost, orphans: [...this.#orphans] };
  }
}
