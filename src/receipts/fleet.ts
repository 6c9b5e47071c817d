/**
 * @module receipts/fleet
 * One record across the receipt logs of several recorders in front of one peer (docs/design.md
 * §17): each log's lines are taken as they are read. A pause is one pause however many logs saw
 * it: its suspensions in every log are one pause by the identity the peer gave it (task id and
 * resume token hash, else `pausedAt`), ended when any log saw it end. Resumptions naming a pause
 * outside their log are kept, and at the end each is paired with a pause of the given logs by that
 * identity alone; what identity cannot tie to one pause is reported as
 * ambiguous with its candidates, never guessed. A pause no log saw end is lost; a resumption that
 * names nothing given is an orphan. Memory is one entry per pause and the outside references, not
 * the logs. Pure: no I/O, no clock.
 */
import { canonicalTimeText } from '../protocol/time-text.js';
import { sealLine } from './chain.js';
import type { ReceiptLogLine, ResumeOutcome, SuspensionReceipt } from './types.js';

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
  /** The peer's `pausedUntil` (the instant its timeout ends it), null when it stated none. */
  pausedUntil: string | null;
  /** The instant of the pause's `conditions.trigger.at`, null when it has none. */
  triggerAt: string | null;
  begun: FleetPlace & { seq: number };
}

/**
 * An end of a pause: a resumption of a pause outside its own log (its `outside` identity), or a
 * resumption that closed the pause in its own log (the identity of the pause it closed).
 */
export interface FleetOutsideEnd {
  taskId: string;
  cause: string;
  outcome: ResumeOutcome;
  principal: string | null;
  resumedAt: string | null;
  /** Whether the recorder inferred the end (the peer did not announce it, docs/design.md §14.3). */
  inferred: boolean;
  pausedAt: string | null;
  resumeTokenHash: string | null;
  ended: FleetPlace & { seq: number };
}

/** What the logs say together. */
export interface FleetVerdict {
  /**
   * Pauses ended in another log than one that saw them begin: a suspension open in its own log
   * with the end another log saw (an outside reference, or the other log's own resumption of the
   * same pause), and each outside reference with the pause it names.
   */
  paired: Array<{ pause: FleetPause; end: FleetOutsideEnd }>;
  /** Pauses no given log saw end (`recording_ended`), each once, in the order the logs were given. */
  lost: FleetPause[];
  /**
   * Resumptions naming a pause outside their log that no given log holds, or one that ended at
   * another time.
   */
  orphans: FleetOutsideEnd[];
  /**
   * Resumptions whose identity does not tie them to one pause (several share it, or it names its
   * task alone and no time of the peer's ties it to one): each with the pauses of the given logs it
   * may have ended (it may also have ended one no given log saw), none of them paired or lost.
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

function pauseOf(line: SuspensionReceipt, begun: FleetPause['begun']): FleetPause {
  return {
    taskId: line.taskId,
    initiatedBy: line.initiatedBy,
    principal: line.principal,
    reason: line.reason,
    pausedAt: line.pausedAt,
    resumeTokenHash: line.resumeTokenHash,
    pausedUntil: line.pausedUntil,
    triggerAt: line.conditions?.trigger?.at ?? null,
    begun,
  };
}

/** One pause of the logs, however many of them saw it: the entry of its identity. */
interface PauseRecord {
  /** Its first suspension given. */
  first: FleetPause;
  /** Its suspensions no resumption of their own log (or series) closed. */
  open: FleetPause[];
  /** The first end a log saw: a resumption closing it in its own log, or an outside reference paired with it. */
  end: FleetOutsideEnd | null;
  /** Whether its open suspensions were paired with an outside reference. */
  pairedOpen: boolean;
  /** A candidate of an ambiguous reference: neither paired nor lost. */
  maybe: boolean;
}

/**
 * A peer time as one text per instant (docs/design.md §6, "Peer times"): logs of format 5 write
 * `pausedAt` canonically, earlier ones as the peer wrote it, and a fleet may hold both.
 */
const instantOf = (at: string): string => canonicalTimeText(at) ?? at;
const sameInstant = (a: string | null, b: string | null): boolean =>
  a !== null && b !== null && instantOf(a) === instantOf(b);
const timeOf = (at: string): number => Date.parse(at);

/**
 * The key of a pause's identity (docs/design.md §17): its task and resume token hash (a token is
 * consume-once: it names one pause of one task), else its task and `pausedAt`.
 */
function pauseKey(p: FleetPause): string {
  return p.resumeTokenHash !== null
    ? `${p.taskId}\ntoken\n${p.resumeTokenHash}`
    : `${p.taskId}\nat\n${instantOf(p.pausedAt)}`;
}

/**
 * An end a log saw without the peer saying how or when (an inferred end with no `resumedAt`, its
 * cause the observer's reading, docs/design.md §14.3): the pause ended, and any end the peer
 * stated may be that one.
 */
const vague = (end: FleetOutsideEnd): boolean => end.inferred && end.resumedAt === null;

/**
 * Whether `end` may be another sighting of the end `record` already has: the same cause, at the
 * same instant of the peer's (or with no time stated by `end`), or any when the known end is vague.
 */
function mayBeItsEnd(record: PauseRecord, end: FleetOutsideEnd): boolean {
  const known = record.end;
  if (known === null || vague(known)) return true;
  return known.cause === end.cause && (end.resumedAt === null || sameInstant(known.resumedAt, end.resumedAt));
}

/**
 * The pauses of its task a reference naming the task alone is tied to by a time of the peer's: a
 * timeout at the instant the pause's `pausedUntil` states, a condition fired at its `trigger.at`.
 * The peer stated that instant with the pause and the cause and instant with the resume: only a
 * pause no log saw, ending by the same cause at the very same instant, could share them.
 */
function tiedByDeadline(end: FleetOutsideEnd, ofTask: readonly PauseRecord[]): PauseRecord[] {
  const deadline =
    end.cause === 'timeout'
      ? (p: FleetPause) => p.pausedUntil
      : end.cause === 'condition_fired'
        ? (p: FleetPause) => p.triggerAt
        : null;
  if (deadline === null || end.resumedAt === null) return [];
  return ofTask.filter((r) => sameInstant(deadline(r.first), end.resumedAt) && mayBeItsEnd(r, end));
}

/**
 * The pauses of its task a reference naming the task alone may have ended: begun at or before its
 * `resumedAt` (any, when it states none), and not ended otherwise as far as the logs show.
 */
function mayHaveEnded(end: FleetOutsideEnd, ofTask: readonly PauseRecord[]): PauseRecord[] {
  const resumed = end.resumedAt === null ? Number.NaN : timeOf(end.resumedAt);
  return ofTask.filter((r) => (Number.isNaN(resumed) || timeOf(r.first.pausedAt) <= resumed) && mayBeItsEnd(r, end));
}

function indexBy(records: readonly PauseRecord[], keyOf: (r: PauseRecord) => string): Map<string, PauseRecord[]> {
  const index = new Map<string, PauseRecord[]>();
  for (const record of records) {
    const key = keyOf(record);
    const list = index.get(key);
    if (list) list.push(record);
    else index.set(key, [record]);
  }
  return index;
}

/**
 * Pairs every outside reference with the pause the peer's identity names (docs/design.md §17): a
 * token hash the pause with that token, a `pausedAt` the pause paused then, the task alone a pause
 * whose stated deadline is the resume's instant and cause. A pause is named whether its end is
 * unknown or another log saw it end (then the reference is a second sighting of that end, unless it
 * ended at another time: an orphan). What names several pauses, or names its task alone and no
 * deadline ties, is ambiguous with every pause it may have ended; what names none is an orphan.
 * Each lookup is by task, token or `pausedAt`, so pairing is linear in the references.
 */
function pairReferences(
  records: readonly PauseRecord[],
  references: readonly FleetOutsideEnd[],
): Pick<FleetVerdict, 'paired' | 'orphans' | 'ambiguous'> {
  const byKey = new Map(records.map((r) => [pauseKey(r.first), r]));
  const byTask = indexBy(records, (r) => r.first.taskId);
  const byPausedAt = indexBy(records, (r) => `${r.first.taskId}\n${instantOf(r.first.pausedAt)}`);
  const verdict: Pick<FleetVerdict, 'paired' | 'orphans' | 'ambiguous'> = { paired: [], orphans: [], ambiguous: [] };
  const pair = (record: PauseRecord, end: FleetOutsideEnd): void => {
    if (!mayBeItsEnd(record, end)) {
      verdict.orphans.push(end);
      return;
    }
    if (record.end === null || (vague(record.end) && !vague(end))) record.end = end;
    record.pairedOpen ||= record.open.length > 0;
    for (const pause of record.open.length > 0 ? record.open : [record.first]) verdict.paired.push({ pause, end });
  };
  const unsure = (end: FleetOutsideEnd, candidates: readonly PauseRecord[]): void => {
    if (candidates.length === 0) verdict.orphans.push(end);
    else {
      for (const c of candidates) c.maybe = true;
      verdict.ambiguous.push({ end, candidates: candidates.map((c) => c.first) });
    }
  };
  const precise = (e: FleetOutsideEnd): boolean => e.resumeTokenHash !== null || e.pausedAt !== null;
  for (const end of references.filter(precise)) {
    const among =
      end.resumeTokenHash !== null
        ? [byKey.get(`${end.taskId}\ntoken\n${end.resumeTokenHash}`)].filter((r) => r !== undefined)
        : (byPausedAt.get(`${end.taskId}\n${instantOf(end.pausedAt!)}`) ?? []);
    const named = among.filter((r) => end.pausedAt === null || sameInstant(end.pausedAt, r.first.pausedAt));
    if (named.length === 1) pair(named[0]!, end);
    else unsure(end, named);
  }
  // The task alone: those a deadline ties first, so their ends are known to the others.
  const alone = references.filter((e) => !precise(e));
  const tied = alone.map((end) => tiedByDeadline(end, byTask.get(end.taskId) ?? []));
  alone.forEach((end, i) => {
    if (tied[i]!.length === 1) pair(tied[i]![0]!, end);
  });
  alone.forEach((end, i) => {
    if (tied[i]!.length > 1) unsure(end, tied[i]!);
    else if (tied[i]!.length === 0) unsure(end, mayHaveEnded(end, byTask.get(end.taskId) ?? []));
  });
  // A suspension open in its own log whose pause another log saw end in its own log.
  for (const record of records)
    if (record.end !== null && !record.pairedOpen)
      for (const pause of record.open) verdict.paired.push({ pause, end: record.end });
  return verdict;
}

/** Pairs the pauses and resumptions of several receipt logs, fed line by line, log by log. */
export class FleetLedger {
  /** Every pause of the logs, one entry per identity, in the order first seen. */
  readonly #pauses = new Map<string, PauseRecord>();
  /** Suspensions no resumption of their own log (or series) closed yet, by series and receipt hash. */
  readonly #open = new Map<string, { record: PauseRecord; pause: FleetPause }>();
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
      case 'SuspensionReceipt': {
        const place = { file: this.#file, line: number, seq: line.seq };
        const pause = pauseOf(line, place);
        const key = pauseKey(pause);
        let record = this.#pauses.get(key);
        if (record === undefined) {
          record = { first: pause, open: [], end: null, pairedOpen: false, maybe: false };
          this.#pauses.set(key, record);
        }
        record.open.push(pause);
        this.#open.set(`${this.#series}\n${hash ?? sealLine(line).hash}`, { record, pause });
        return;
      }
      case 'ResumptionReceipt': {
        if (line.outcome === 'rejected') return;
        const place = { file: this.#file, line: number, seq: line.seq };
        if (line.suspension !== null) {
          const key = `${this.#series}\n${line.suspension}`;
          const closed = this.#open.get(key);
          if (closed === undefined) return;
          this.#open.delete(key);
          const { record, pause } = closed;
          record.open = record.open.filter((p) => p !== pause);
          record.end ??= {
            taskId: line.taskId,
            cause: line.cause,
            outcome: line.outcome,
            principal: line.principal,
            resumedAt: line.resumedAt,
            inferred: line.inferred,
            pausedAt: pause.pausedAt,
            resumeTokenHash: pause.resumeTokenHash,
            ended: place,
          };
          return;
        }
        if (line.outside)
          this.#outside.push({
            taskId: line.taskId,
            cause: line.cause,
            outcome: line.outcome,
            principal: line.principal,
            resumedAt: line.resumedAt,
            inferred: line.inferred,
            pausedAt: line.outside.pausedAt,
            resumeTokenHash: line.outside.resumeTokenHash,
            ended: place,
          });
        return;
      }
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

  /** What the logs say together ({@link pairReferences}). */
  finish(): FleetVerdict {
    const records = [...this.#pauses.values()];
    const { paired, orphans, ambiguous } = pairReferences(records, this.#outside);
    const lost = records.filter((r) => r.end === null && !r.maybe).map((r) => r.first);
    return { paired, lost, orphans, ambiguous };
  }
}

/**
 * One ambiguous resumption in words: where it is, what it named, and each pause of the given logs
 * it may have ended (`FILE:LINE`), so a reader can look at them.
 */
export function ambiguityText({ end, candidates }: FleetAmbiguity): string {
  const what =
    end.pausedAt !== null
      ? `pausedAt ${end.pausedAt}`
      : end.resumeTokenHash !== null
        ? `token ${end.resumeTokenHash}`
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
