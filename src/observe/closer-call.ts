/**
 * @module observe/closer-call
 * A ResumeTask or CancelTask in flight (docs/design.md §14.1 `resume-call`): the call that may close
 * a pause, with its Resume span, not started until the pause it aims at is known.
 */
import type { Fact } from './fact.js';
import { resumeKey, rootSpan } from './observer-spans.js';
import type { Closer, ResumeSpan, SuspensionIdentity } from './suspension.js';

/** The call a ResumeTask / CancelTask request opens, aimed at `target` (undefined: none known). */
export function newCloser(
  recordingId: string,
  fact: Extract<Fact, { type: 'ResumeCalled' | 'CancelCalled' }>,
  target: SuspensionIdentity | undefined,
): Closer {
  const key = resumeKey(fact.entry.seq);
  const resume: ResumeSpan = {
    key,
    seq: fact.entry.seq,
    at: fact.entry.at,
    span: rootSpan(recordingId, key),
    phase: 'unstarted',
  };
  const base = { xid: fact.xid, seq: fact.entry.seq, taskId: fact.taskId, principal: fact.principal, target, resume };
  return fact.type === 'ResumeCalled'
    ? {
        kind: 'resume',
        ...base,
        tokenHash: fact.tokenHash,
        input: fact.input,
        hadInput: fact.input !== undefined,
        continueTranscript: fact.continueTranscript,
        settled: undefined,
      }
    : {
        kind: 'cancel',
        ...base,
        tokenHash: null,
        input: undefined,
        hadInput: false,
        continueTranscript: null,
        settled: undefined,
      };
}
