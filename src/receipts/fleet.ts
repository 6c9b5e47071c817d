/**
 * @module receipts/fleet
 * One record across the receipt logs of several recorders in front of one peer (docs/design.md
 * §17): each log's lines are taken as they are read; suspensions no resumption of their own log
 * closed are kept, and so are resumptions naming a pause outside their log; at the end each such
 * resumption is paired with a suspension of any given log by the pause identity (task id, token
 * hash, `pausedAt`), never by the recorders' clocks. What no pairing closes is lost; a resumption
 * that pairs with nothing given is an orphan. Memory is the open pauses and the outside
 * references, not the logs. Pure: no I/O, no clock.
 */
import { canonicalTimeText } from '../protocol/time-text.js';
import { sealLine } from './chain.js';
import type { ReceiptLogLine, ResumeOutcome } from './types.js';

/** Where a line is: the file given and its 1-based line. */
export interface FleetPlace {
  file: string;
  line: number;
}

/** A pause that began in one of the logs: its SuspensionReceipt. */
export interface FleetPause {
  taskId: string;
  initiatedBy: string;
  principal: string | null;
  reason: string | null;
  pausedAt: string;
  resumeTokenHash: string | null;
  begun: FleetPlace & { seq: number };
}

/** A resumption of a pause outside its own log. */
export interface FleetOutsideEnd {
  taskId: string;
  cause: string;
  outcome: ResumeOutcome;
  principal: string | null;
  resumedAt: string | null;
  pausedAt: string | null;
  resumeTokenHash: string | null;
  ended: FleetPlace & { seq: number };
}

/** What the logs say together. */
export interface FleetVerdict {
  /** Pauses begun in one log and ended in another, each with the resumption that ended it. */
  paired: Array<{ pause: FleetPause; end: FleetOutsideEnd }>;
  /** Pauses open when every given log ended (`recording_ended`), in the order the logs were given. */
  lost: FleetPause[];
  /** Resumptions naming a pause outside their log that no given log holds. */
  orphans: FleetOutsideEnd[];
  /**
   * Resumptions whose identity names several pauses, or names its task alone with no time of the
   * peer's to place it: each with the pauses it may have ended, none of them paired or lost.
   */
  ambiguous: FleetAmbiguity[];
}

/** A resumption the peer's identity does not tie to one pause, and the pauses it may have ended. */
export interface FleetAmbiguity {
  end: FleetOutsideEnd;
  candidates: FleetPause[];
}

/**
 * Whether what the logs say together fails a fleet (docs/design.md §17): an orphan resumption or
 * an ambiguous one. `verify`, `lost` and `audit` judge a fleet by this one rule (`lost` fails on
 * lost pauses too).
 */
export function fleetFails(verdict: FleetVerdict): boolean {
  return verdict.orphans.length > 0 || verdict.ambiguous.length > 0;
}

const timeOf = (at: string | null): number => (at === null ? Number.NaN : Date.parse(at));

/**
 * A peer time as one text per instant (docs/design.md §6, "Peer times"): logs of format 5 write
 * `pausedAt` canonically, earlier ones as the peer wrote it, and a fleet may hold both.
 */
const instantOf = (at: string): string => canonicalTimeText(at) ?? at;

/** Whether the outside reference `end` names the pause `pause` (docs/design.md §17 "pause identity"). */
function names(end: FleetOutsideEnd, pause: FleetPause): boolean {
  if (end.taskId !== pause.taskId) return false;
  if (end.resumeTokenHash !== null && end.resumeTokenHash !== pause.resumeTokenHash) return false;
  if (end.pausedAt !== null && instantOf(end.pausedAt) !== instantOf(pause.pausedAt)) return false;
  if (end.resumeTokenHash !== null || end.pausedAt !== null) return true;
  // The task alone: a pause that began at or before the resume, on the peer's clock.
  const resumed = timeOf(end.resumedAt);
  return Number.isNaN(resumed) || timeOf(pause.pausedAt) <= resumed;
}

/**
 * The pauses `end` may have ended among `candidates` (those it names): one when the peer's
 * identity or times single it out — its token, or the latest `pausedAt` at or before its
 * `resumedAt` held by one pause alone — else every pause it cannot tell apart (a reference naming
 * its task alone with no `resumedAt`, as a FireEvent answer: it may even predate them all).
 */
function namedBy(end: FleetOutsideEnd, candidates: FleetPause[]): { one: boolean; pauses: FleetPause[] } {
  if (end.resumeTokenHash !== null) return { one: true, pauses: candidates.slice(0, 1) };
  if (end.pausedAt === null && Number.isNaN(timeOf(end.resumedAt))) return { one: false, pauses: candidates };
  const latest = Math.max(...candidates.map((p) => timeOf(p.pausedAt)));
  const pauses = candidates.filter((p) => timeOf(p.pausedAt) === latest);
  return { one: pauses.length === 1, pauses };
}

/** Pairs the pauses and resumptions of several receipt logs, fed line by line, log by log. */
export class FleetLedger {
  /** Suspensions no resumption of their own log (or series) closed, by receipt hash, per log (or series). */
  readonly #open = new Map<string, FleetPause>();
  readonly #outside: FleetOutsideEnd[] = [];
  #file = '';
  #series = '';

  /**
   * The lines that follow are `file`'s. A resumption closes a suspension by its hash within its own
   * log, or within its series (`series`: the logs of one recorder that continue one another, given
   * in series order, docs/design.md §6): a resumption in a later log names a suspension of an
   * earlier one, which that log's header carried in.
   */
  startLog(file: string, series: string = file): void {
    this.#file = file;
    this.#series = series;
  }

  /** The next line of the current log (`hash`: its hash when the caller has it, a verified line's). */
  add(line: ReceiptLogLine, number: number, hash?: string): void {
    switch (line.type) {
      case 'SuspensionReceipt':
        this.#open.set(`${this.#series}\n${hash ?? sealLine(line).hash}`, {
          taskId: line.taskId,
          initiatedBy: line.initiatedBy,
          principal: line.principal,
          reason: line.reason,
          pausedAt: line.pausedAt,
          resumeTokenHash: line.resumeTokenHash,
          begun: { file: this.#file, line: number, seq: line.seq },
        });
        return;
      case 'ResumptionReceipt':
        if (line.suspension !== null) {
          if (line.outcome !== 'rejected') this.#open.delete(`${this.#series}\n${line.suspension}`);
          return;
        }
        if (line.outside && line.outcome !== 'rejected')
          this.#outside.push({
            taskId: line.taskId,
            cause: line.cause,
            outcome: line.outcome,
            principal: line.principal,
            resumedAt: line.resumedAt,
            pausedAt: line.outside.pausedAt,
            resumeTokenHash: line.outside.resumeTokenHash,
            ended: { file: this.#file, line: number, seq: line.seq },
          });
        return;
      case 'ReceiptLog':
      case 'Checkpoint':
      case 'InterruptionReceipt':
      case 'ContinuationReceipt':
        return;
      default: {
        const never: never = line;
        throw new Error(`unhandled line ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * Pairs every outside reference with an open pause it names: token hash or `pausedAt` first
   * (those name one pause), then those naming the task alone, each taking the pause of its task
   * with the latest `pausedAt` at or before its `resumedAt`. A reference with a token hash looks
   * among the pauses of its task with that hash, one with `pausedAt` alone among those paused
   * then, so a task paused many times pairs in time linear in its references.
   */
  finish(): FleetVerdict {
    const byTask = new Map<string, FleetPause[]>();
    const byToken = new Map<string, FleetPause[]>();
    const byPausedAt = new Map<string, FleetPause[]>();
    const file = (index: Map<string, FleetPause[]>, key: string, pause: FleetPause): void => {
      const list = index.get(key);
      if (list) list.push(pause);
      else index.set(key, [pause]);
    };
    // Pauses by time only when some reference names its pause by time alone (each index costs a key a pause).
    const byTime = this.#outside.some((e) => e.resumeTokenHash === null && e.pausedAt !== null);
    for (const pause of this.#open.values()) {
      file(byTask, pause.taskId, pause);
      if (pause.resumeTokenHash !== null) file(byToken, `${pause.taskId}\n${pause.resumeTokenHash}`, pause);
      if (byTime) file(byPausedAt, `${pause.taskId}\n${instantOf(pause.pausedAt)}`, pause);
    }
    const among = (end: FleetOutsideEnd): FleetPause[] => {
      if (end.resumeTokenHash !== null) return byToken.get(`${end.taskId}\n${end.resumeTokenHash}`) ?? [];
      if (end.pausedAt !== null) return byPausedAt.get(`${end.taskId}\n${instantOf(end.pausedAt)}`) ?? [];
      return byTask.get(end.taskId) ?? [];
    };
    const paired: FleetVerdict['paired'] = [];
    const orphans: FleetOutsideEnd[] = [];
    const ambiguous: FleetAmbiguity[] = [];
    const taken = new Set<FleetPause>();
    const precise = (e: FleetOutsideEnd): boolean => e.resumeTokenHash !== null || e.pausedAt !== null;
    for (const end of [...this.#outside.filter(precise), ...this.#outside.filter((e) => !precise(e))]) {
      const named = namedBy(
        end,
        among(end).filter((p) => !taken.has(p) && names(end, p)),
      );
      for (const p of named.pauses) taken.add(p);
      const [pause] = named.pauses;
      if (pause === undefined) orphans.push(end);
      else if (named.one) paired.push({ pause, end });
      else ambiguous.push({ end, candidates: named.pauses });
    }
    const lost = [...this.#open.values()].filter((p) => !taken.has(p));
    return { paired, lost, orphans, ambiguous };
  }
}

/**
 * One ambiguous resumption in words: where it is, what it named, and each pause it may have
 * ended (`FILE:LINE`), so a reader can look at both.
 */
export function ambiguityText({ end, candidates }: FleetAmbiguity): string {
  const what =
    end.pausedAt !== null
      ? `pausedAt ${end.pausedAt}`
      : end.resumedAt === null
        ? 'its task alone, with no time of the peer’s'
        : `its task alone at ${end.resumedAt}`;
  const places = candidates.map((p) => `${p.begun.file}:${p.begun.line}`).join(', ');
  return (
    `task ${end.taskId}: ${end.outcome} (${end.cause}) in ${end.ended.file}:${end.ended.line} ` +
    `(seq ${end.ended.seq}), ` +
    `naming ${what}, may have ended any of ${candidates.length} pauses: ${places}`
  );
}
