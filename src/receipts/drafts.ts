/**
 * @module receipts/drafts
 * Pure builders that turn what the observer saw into receipt drafts: they apply the hashing
 * rules of docs/design.md §6 (`conditionsHash`, `resumeTokenHash`, `inputHash`), write null for
 * every absent value, sort `entries`, and repair text RFC 8785 cannot encode (a lone surrogate
 * becomes U+FFFD and the member is listed in `repaired`), so every caller derives the same draft
 * from the same facts and no draft is ever refused for its content. Tokens and inputs are taken
 * only to be hashed; they never reach a receipt.
 */
import { type JsonValue, hashCanonical, repairLoneSurrogates } from '../canonical/canonical-json.js';
import type { PauseInitiator, PauseMode, ResumeConditions } from '../protocol/types.js';
import { tokenHashOf } from '../recording/resume-token.js';
import type {
  ReceiptBinding,
  ResumeOutcome,
  ResumeReceiptCause,
  ResumptionDraft,
  SpanRef,
  SuspensionDraft,
  SuspensionVia,
} from './types.js';

/** Facts of an observed pause; optional members default to null. */
export interface SuspensionFacts {
  taskId: string;
  contextId?: string | null;
  initiatedBy: PauseInitiator;
  principal?: string | null;
  via: SuspensionVia;
  reason?: string | null;
  mode?: PauseMode | null;
  conditions?: ResumeConditions | null;
  /** The clear token or its recording placeholder: only its hash is kept. */
  resumeToken?: string | null;
  pausedAt: string;
  pausedUntil?: string | null;
  observedAt: string;
  entries: readonly number[];
  span: SpanRef;
  /** Default `JSONRPC`. */
  binding?: ReceiptBinding;
}

/** Facts of an observed resume, cancel, failure or rejected resume attempt. */
export interface ResumptionFacts {
  taskId: string;
  cause: ResumeReceiptCause;
  outcome: ResumeOutcome;
  errorCode?: number | null;
  principal?: string | null;
  /** The resume input as sent (undefined or null: none); only its hash is kept. */
  input?: JsonValue | undefined;
  /** Defaults to whether `input` was given; pass the peer's `hadResumeInput` when it said so. */
  hadResumeInput?: boolean;
  continueTranscript?: boolean | null;
  resumedAt?: string | null;
  /** The end was inferred from the recording, not announced by the peer (default false). */
  inferred?: boolean;
  observedAt: string;
  entries: readonly number[];
  span: SpanRef;
  links: { suspension: SpanRef; pipeline?: SpanRef | null };
  /** Default `JSONRPC`. */
  binding?: ReceiptBinding;
}

function sortedEntries(entries: readonly number[]): number[] {
  return [...new Set(entries)].sort((a, b) => a - b);
}

function span(ref: SpanRef): SpanRef {
  return { traceId: ref.traceId, spanId: ref.spanId };
}

/** Collects the names of repaired members while values pass through it. */
class Repairs {
  readonly #names = new Set<string>();

  /** `value` repaired; `name` is listed when anything had to change. */
  take<T>(name: string, value: T): T {
    const fixed = repairLoneSurrogates(value);
    if (fixed.repaired) this.#names.add(name);
    return fixed.value;
  }

  /** Marks `name` as repaired when `text` holds a lone surrogate (it is hashed elsewhere). */
  note(name: string, text: string | null | undefined): void {
    if (text != null && !text.isWellFormed()) this.#names.add(name);
  }

  list(): string[] {
    return [...this.#names].sort();
  }
}

/** `hashCanonical(conditions)`, or null without conditions. */
export function conditionsHashOf(conditions: ResumeConditions | null | undefined): string | null {
  return conditions == null ? null : hashCanonical(repairLoneSurrogates(conditions).value);
}

/** The receipt hash of a token (or of its recording placeholder), or null without a token. */
export function resumeTokenHashOf(token: string | null | undefined): string | null {
  return token == null ? null : tokenHashOf(token);
}

/** `hashCanonical(input)`, or null when no input was given. */
export function inputHashOf(input: JsonValue | undefined): string | null {
  return input === undefined || input === null ? null : hashCanonical(repairLoneSurrogates(input).value);
}

/** A SuspensionDraft from observed facts (docs/design.md §6). */
export function buildSuspensionDraft(facts: SuspensionFacts): SuspensionDraft {
  const r = new Repairs();
  const conditions = r.take('conditions', facts.conditions ?? null);
  r.note('resumeTokenHash', facts.resumeToken);
  return {
    type: 'SuspensionReceipt',
    taskId: r.take('taskId', facts.taskId),
    contextId: r.take('contextId', facts.contextId ?? null),
    initiatedBy: facts.initiatedBy,
    principal: r.take('principal', facts.principal ?? null),
    via: facts.via,
    reason: r.take('reason', facts.reason ?? null),
    mode: facts.mode ?? null,
    conditions,
    conditionsHash: conditions === null ? null : hashCanonical(conditions),
    resumeTokenHash: resumeTokenHashOf(facts.resumeToken),
    pausedAt: r.take('pausedAt', facts.pausedAt),
    pausedUntil: r.take('pausedUntil', facts.pausedUntil ?? null),
    observedAt: facts.observedAt,
    entries: sortedEntries(facts.entries),
    span: span(facts.span),
    binding: facts.binding ?? 'JSONRPC',
    repaired: r.list(),
  };
}

/** A ResumptionDraft from observed facts (docs/design.md §6); the chain adds `suspension`. */
export function buildResumptionDraft(facts: ResumptionFacts): ResumptionDraft {
  const r = new Repairs();
  const input = facts.input === undefined || facts.input === null ? null : r.take('inputHash', facts.input);
  const inputHash = input === null ? null : hashCanonical(input);
  return {
    type: 'ResumptionReceipt',
    taskId: r.take('taskId', facts.taskId),
    cause: facts.cause,
    outcome: facts.outcome,
    errorCode: facts.errorCode ?? null,
    principal: r.take('principal', facts.principal ?? null),
    hadResumeInput: facts.hadResumeInput ?? inputHash !== null,
    inputHash,
    continueTranscript: facts.continueTranscript ?? null,
    resumedAt: r.take('resumedAt', facts.resumedAt ?? null),
    inferred: facts.inferred ?? false,
    observedAt: facts.observedAt,
    entries: sortedEntries(facts.entries),
    span: span(facts.span),
    links: {
      suspension: span(facts.links.suspension),
      pipeline: facts.links.pipeline ? span(facts.links.pipeline) : null,
    },
    binding: facts.binding ?? 'JSONRPC',
    repaired: r.list(),
  };
}
