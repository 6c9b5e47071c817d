/**
 * @module tracing/attributes
 * The span attribute names and span names of docs/design.md §7, in one place. Everything that writes or
 * reads a span attribute uses these constants, never string literals.
 */
// The task and receipt attributes spans share with receipt-log records: defined beside the receipts,
// which stand without telemetry.
export { ATTR_RECEIPT_HASH, ATTR_TASK_ID } from '../receipts/receipt-attributes.js';

/** Span names. */
export const SPAN_NAMES = {
  TASK: 'Task',
  SUSPENSION: 'Suspension',
  RESUME: 'Resume',
  LOST_PAUSE: 'LostPause',
  /** A pause open when its recorder stopped, with no evidence it was lost (docs/design.md §7). */
  PAUSE_OPEN_AT_STOP: 'PauseOpenAtStop',
  /** An interruption (INPUT_REQUIRED, AUTH_REQUIRED) that can no longer be continued (docs/design.md §14.9). */
  LOST_INTERRUPTION: 'LostInterruption',
  /** A task seen in an interrupted state (docs/design.md §14.9), ending with its receipt. */
  INTERRUPTION: 'Interruption',
  /** How an interruption ended, a root linked to its Interruption span. */
  CONTINUATION: 'Continuation',
  /**
   * The call that began a pause, as the recorder saw it, in the caller's trace (docs/design.md §7):
   * a child of the caller's span (its `traceparent`, else the task's span), linked to the
   * Suspension, which is the root of the pause's own trace.
   */
  PAUSE_CALL: 'PauseCall',
  /** The call that resumed a pause, in the resume call's trace, linked to its Resume and Suspension. */
  RESUME_CALL: 'ResumeCall',
} as const;
export type SpanName = (typeof SPAN_NAMES)[keyof typeof SPAN_NAMES];

/** The A2A context id. */
export const ATTR_CONTEXT_ID = 'a2a.context.id';
/** OTel GenAI semantic convention: the conversation id (= A2A contextId). */
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';

/** RFC `pause.initiatedBy` (`PAUSE_INITIATOR_CLIENT` | `PAUSE_INITIATOR_AGENT`). */
export const ATTR_PAUSE_INITIATED_BY = 'a2a.pause.initiated_by';
export const ATTR_PAUSE_REASON = 'a2a.pause.reason';
/** How the pause was observed: PauseTask | AwaitTaskResumption | statusUpdate | legacy-metadata. */
export const ATTR_PAUSE_VIA = 'a2a.pause.via';
/** PauseTask `mode`. */
export const ATTR_PAUSE_MODE = 'a2a.pause.mode';
export const ATTR_PAUSE_CONDITIONS_HASH = 'a2a.pause.conditions_hash';
export const ATTR_PAUSE_PAUSED_AT = 'a2a.pause.paused_at';
export const ATTR_PAUSE_PAUSED_UNTIL = 'a2a.pause.paused_until';

/** Resume `cause` (explicit_resume | condition_fired | timeout | external_event | canceled). */
export const ATTR_RESUME_CAUSE = 'a2a.resume.cause';
/** Resume `outcome` (resumed | canceled | failed | rejected). */
export const ATTR_RESUME_OUTCOME = 'a2a.resume.outcome';
export const ATTR_RESUME_HAD_INPUT = 'a2a.resume.had_input';

/** Who sent the request (from the recording entry's `principal`). */
export const ATTR_PRINCIPAL = 'a2a.principal';

/** On links: `suspension` or `pipeline`. */
export const ATTR_LINK_KIND = 'a2a.link.kind';
/** Linked ids repeated as span attributes, because Jaeger drops link attributes. */
export const ATTR_LINK_SUSPENSION_TRACE_ID = 'a2a.link.suspension.trace_id';
export const ATTR_LINK_SUSPENSION_SPAN_ID = 'a2a.link.suspension.span_id';
export const ATTR_LINK_PIPELINE_TRACE_ID = 'a2a.link.pipeline.trace_id';
export const ATTR_LINK_PIPELINE_SPAN_ID = 'a2a.link.pipeline.span_id';

/**
 * `true` on the span that says a pause was open when its recorder stopped (recording or stream
 * ended, docs/design.md §7): a child of the Suspension span, from PAUSED to the stop, not an error.
 */
export const ATTR_PAUSE_OPEN_AT_STOP = 'a2a_replay.pause.open_at_stop';
/** Why a pause was declared lost (see LOST_PAUSE_REASONS). */
export const ATTR_LOST_REASON = 'a2a.lost.reason';
/**
 * The id of the observer rule that decided a verdict (docs/design.md §14.8), on Suspension, Resume
 * and LostPause spans: which table row proved the pause, ended it or declared it lost.
 */
export const ATTR_RULE = 'a2a_replay.rule';
/** The recording entry seq that opened or closed the span. */
export const ATTR_RECORDING_ENTRY_SEQ = 'a2a.recording.entry_seq';

/**
 * On a LostPause or LostInterruption span that `lost` drew (docs/design.md §7): `true`, the
 * verdict of the whole set of logs given, not of one recorder's view.
 */
export const ATTR_LOST_VERDICT = 'a2a_replay.lost.verdict';
/** Where the lost pause or interruption was seen to begin: `file:line`, one per place. */
export const ATTR_LOST_BEGUN = 'a2a_replay.lost.begun';

/** Values of {@link ATTR_LINK_KIND}. */
export const LINK_KINDS = {
  SUSPENSION: 'suspension',
  PIPELINE: 'pipeline',
  INTERRUPTION: 'interruption',
  RESUME: 'resume',
} as const;

/**
 * The A2A task state (`TASK_STATE_*`, OTel A2A semantic conventions): the state the span's entry
 * showed the task in, on Suspension, Resume, Interruption, Continuation and the Lost* spans.
 */
export const ATTR_TASK_STATE = 'a2a.task.state';
/** When the task was seen interrupted (its status time, else the entry's). */
export const ATTR_INTERRUPTED_AT = 'a2a.interruption.interrupted_at';

/**
 * OTel A2A semantic conventions (draft, `development`): the A2A method of the entry that opened the
 * span (`SendMessage`, `ResumeTask`, ...), absent when no A2A call did (docs/design.md §7).
 */
export const ATTR_METHOD_NAME = 'a2a.method.name';
/** OTel GenAI semantic conventions: the agent's name, from the agent card the recording holds. */
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
/** The hash of the agent's prompt (canonical parts of `status.message`), as its InterruptionReceipt has it. */
export const ATTR_INTERRUPTION_PROMPT_HASH = 'a2a.interruption.prompt_hash';
/** How an interruption ended: its ContinuationReceipt's `cause` (message, canceled, failed, out_of_band). */
export const ATTR_CONTINUATION_CAUSE = 'a2a.continuation.cause';
/** The hash of the continuing message's canonical parts, as its ContinuationReceipt has it. */
export const ATTR_CONTINUATION_INPUT_HASH = 'a2a.continuation.input_hash';
/** The Interruption span a Continuation follows, repeated as attributes (Jaeger drops link attributes). */
export const ATTR_LINK_INTERRUPTION_TRACE_ID = 'a2a.link.interruption.trace_id';
export const ATTR_LINK_INTERRUPTION_SPAN_ID = 'a2a.link.interruption.span_id';
