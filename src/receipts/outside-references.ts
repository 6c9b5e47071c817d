/**
 * @module receipts/outside-references
 * Resumptions of suspensions outside their log (docs/design.md §6, §17): from version 5 every
 * ResumptionReceipt has an `outside` member, which names the pause (task, `pausedAt`, token hash)
 * when its SuspensionReceipt is in another recorder's log; `suspension` is then null. A verifier
 * counts and lists them: they are not holes, and only a fleet of logs can pair them.
 */
import type { OutsideSuspension, ResumeOutcome } from './types.js';

/** A resumption of a suspension outside its log, as `verify` lists it. */
export interface OutsideReference {
  line: number;
  seq: number;
  taskId: string;
  outcome: ResumeOutcome;
  pausedAt: string | null;
  resumeTokenHash: string | null;
}

/** How many outside references a verifier lists (the count goes on). */
export const OUTSIDE_LISTED = 1000;

/**
 * What is wrong with a resumption's `suspension` and `outside` members in a log of `version`, or
 * null: before version 5 there is no `outside` member; from 5 there is one, and exactly one of
 * the two names the suspension.
 */
export function resumptionReferenceProblem(
  version: number,
  suspension: string | null,
  outside: OutsideSuspension | null | undefined,
): string | null {
  if (version < 5)
    return outside === undefined && suspension !== null
      ? null
      : `a ResumptionReceipt with an outside member in a version-${version} log`;
  if (outside === undefined) return `a ResumptionReceipt without an outside member in a version-${version} log`;
  if ((outside === null) === (suspension === null))
    return (
      `a ResumptionReceipt names ${outside === null ? 'neither a suspension nor' : 'both a suspension and'} ` +
      'a pause outside the log'
    );
  return null;
}

/** The outside references of one log: all counted, the first {@link OUTSIDE_LISTED} kept. */
export class OutsideReferences {
  count = 0;
  readonly listed: OutsideReference[] = [];

  add(reference: OutsideReference): void {
    this.count++;
    if (this.listed.length < OUTSIDE_LISTED) this.listed.push(reference);
  }

  clone(): OutsideReferences {
    const copy = new OutsideReferences();
    copy.count = this.count;
    copy.listed.push(...this.listed);
    return copy;
  }
}
