/**
 * @module receipts/drafts
 * Pure builders that turn what the observer saw into receipt drafts: they apply the hashing
 * rules of DESIGN §6 (`conditionsHash`, `resumeTokenHash`, `inputHash` via `hashCanonical`),
 * write null for every absent value and sort `entries`, so every caller derives the same draft
 * from the same facts. Tokens and inputs are taken only to be hashed; they never reach a receipt.
 */
import { type JsonValue, hashCanonical } from '../canonical/canonical-json.js';
import type { PauseInitiator, PauseMode, ResumeConditions } from '../protocol/types.js';
import type {
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
  /** The clear token: only its hash is kept. */
  resumeToken?: string | null;
  pausedAt: string;
  pausedUntil?: string | null;
  observedAt: string;
  entries: readonly number[];
  span: SpanRef;
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
  observedAt: string;
  entries: readonly number[];
  span: SpanRef;
  links: { suspension: SpanRef; pipeline?: SpanRef | null };
}

function sortedEntries(entries: readonly number[]): number[] {
  return [...new Set(entries)].sort((a, b) => a - b);
}

function span(ref: SpanRef): SpanRef {
  return { traceId: ref.traceId, spanId: ref.spanId };
}

/** `hashCanonical(conditions)`, or null without conditions. */
export function conditionsHashOf(conditions: ResumeConditions | null | undefined): string | null {
  return conditions == null ? null : hashCanonical(conditions);
}

/** `hashCanonical(token)`, or null without a token. */
export function resumeTokenHashOf(token: string | null | undefined): string | null {
  return token == null ? null : hashCanonical(token);
}

/** `hashCanonical(input)`, or null when no input was given. */
export function inputHashOf(input: JsonValue | undefined): string | null {
  return input === undefined || input === null ? null : hashCanonical(input);
}

/** A SuspensionDraft from observed facts (DESIGN §6). */
export function buildSuspensionDraft(facts: SuspensionFacts): SuspensionDraft {
  const conditions = facts.conditions ?? null;
  return {
    type: 'SuspensionReceipt',
    taskId: facts.taskId,
    contextId: facts.contextId ?? null,
    initiatedBy: facts.initiatedBy,
    principal: facts.principal ?? null,
    via: facts.via,
    reason: facts.reason ?? null,
    mode: facts.mode ?? null,
    conditions,
    conditionsHash: conditionsHashOf(conditions),
    resumeTokenHash: resumeTokenHashOf(facts.resumeToken),
    pausedAt: facts.pausedAt,
    pausedUntil: facts.pausedUntil ?? null,
    observedAt: facts.observedAt,
    entries: sortedEntries(facts.entries),
    span: span(facts.span),
  };
}

/** A ResumptionDraft from observed facts (DESIGN §6); the chain adds `suspension`. */
export function buildResumptionDraft(facts: ResumptionFacts): ResumptionDraft {
  const inputHash = inputHashOf(facts.input);
  return {
    type: 'ResumptionReceipt',
    taskId: facts.taskId,
    cause: facts.cause,
    outcome: facts.outcome,
    errorCode: facts.errorCode ?? null,
    principal: facts.principal ?? null,
    hadResumeInput: facts.hadResumeInput ?? inputHash !== null,
    inputHash,
    continueTranscript: facts.continueTranscript ?? null,
    resumedAt: facts.resumedAt ?? null,
    observedAt: facts.observedAt,
    entries: sortedEntries(facts.entries),
    span: span(facts.span),
    links: { suspension: span(facts.links.suspension), pipeline: facts.links.pipeline ? span(facts.links.pipeline) : null },
  };
}
