/**
 * @module receipts/interruption-drafts
 * Pure builders of the interruption and continuation drafts (docs/design.md §6, §14.9), under the
 * rules of receipts/drafts: null for every absent value, `entries` sorted, what RFC 8785 cannot
 * encode repaired, text a client or peer sent bounded, each member changed listed in `repaired`.
 * The agent's prompt and the client's answer are taken only to be hashed.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { hashCanonical } from '../canonical/canonical-json.js';
import { Repairs, sortedEntries, span } from './drafts.js';
import type {
  ContinuationCause,
  ContinuationDraft,
  InterruptedState,
  InterruptionDraft,
  ReceiptBinding,
  SpanRef,
} from './types.js';

/** Facts of an observed interruption. */
export interface InterruptionFacts {
  taskId: string;
  contextId: string | null;
  state: InterruptedState;
  /** The parts of the agent's prompt (`status.message`), null when it sent none. */
  prompt: JsonValue | null;
  interruptedAt: string | null;
  observedAt: string;
  entries: readonly number[];
  span: SpanRef;
  binding: ReceiptBinding;
}

/** Facts of how an interruption ended. */
export interface ContinuationFacts {
  taskId: string;
  cause: ContinuationCause;
  principal: string | null;
  /** The parts of the continuing message, null when no message continued it. */
  input: JsonValue | null;
  observedAt: string;
  entries: readonly number[];
  span: SpanRef;
  interruptionSpan: SpanRef;
  binding: ReceiptBinding;
}

/** An InterruptionDraft from observed facts; the chain adds `seq`, `prev` and `sig`. */
export function buildInterruptionDraft(facts: InterruptionFacts): InterruptionDraft {
  const r = new Repairs();
  const prompt = facts.prompt === null ? null : r.take('promptHash', facts.prompt);
  const draft: InterruptionDraft = {
    type: 'InterruptionReceipt',
    taskId: r.text('taskId', facts.taskId),
    contextId: r.text('contextId', facts.contextId),
    state: facts.state,
    promptHash: prompt === null ? null : hashCanonical(prompt),
    interruptedAt: r.text('interruptedAt', facts.interruptedAt),
    observedAt: facts.observedAt,
    entries: sortedEntries(facts.entries),
    span: span(facts.span),
    binding: facts.binding,
    repaired: [],
  };
  draft.repaired = r.list();
  return draft;
}

/** A ContinuationDraft from observed facts; the chain adds `interruption` (the hash of the line it closes). */
export function buildContinuationDraft(facts: ContinuationFacts): ContinuationDraft {
  const r = new Repairs();
  const input = facts.input === null ? null : r.take('inputHash', facts.input);
  const draft: ContinuationDraft = {
    type: 'ContinuationReceipt',
    taskId: r.text('taskId', facts.taskId),
    cause: facts.cause,
    principal: r.text('principal', facts.principal),
    inputHash: input === null ? null : hashCanonical(input),
    observedAt: facts.observedAt,
    entries: sortedEntries(facts.entries),
    span: span(facts.span),
    interruptionSpan: span(facts.interruptionSpan),
    binding: facts.binding,
    repaired: [],
  };
  draft.repaired = r.list();
  return draft;
}
