/**
 * @module receipts/drafts
 * Pure builders that turn what the observer saw into receipt drafts: they apply the hashing
 * rules of docs/design.md §6 (`conditionsHash`, `resumeTokenHash`, `inputHash`), write null for
 * every absent value, sort `entries`, repair what RFC 8785 cannot encode (a lone surrogate
 * becomes U+FFFD, a number `JSON.parse` made infinite becomes null) and bound what a client or
 * peer sent (a text over {@link RECEIPT_TEXT_MAX} is cut, conditions over
 * {@link RECEIPT_CONDITIONS_MAX_BYTES} are left out, their hash kept), listing each member changed
 * in `repaired`, so every caller derives the same draft from the same facts, no draft is ever
 * refused for its content, and every receipt line stays within what a log reader takes. Tokens
 * and inputs are taken only to be hashed; they never reach a receipt.
 */
import {
  type JsonValue,
  canonicalJson,
  hashCanonical,
  repairUnrepresentable,
  sha256Prefixed,
} from '../canonical/canonical-json.js';
import type { PauseInitiator, PauseMode, ResumeConditions } from '../protocol/types.js';
import { tokenHashOf } from '../recording/resume-token.js';
import { type LineKind, fieldsOf } from './line-fields.js';
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
  /**
   * The pause call's body was read from bytes that are not valid UTF-8, each invalid sequence as
   * U+FFFD (its recording entry's `bodyRepaired`): `reason` is listed in `repaired` when it holds
   * U+FFFD. Default false.
   */
  callBodyRepaired?: boolean;
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

export function sortedEntries(entries: readonly number[]): number[] {
  // Seq 0 is evidence from before the recording (a pause carried in from an earlier one, §6 "Series").
  return [...new Set(entries)].filter((seq) => seq >= 1).sort((a, b) => a - b);
}

export function span(ref: SpanRef): SpanRef {
  return { traceId: ref.traceId, spanId: ref.spanId };
}

/**
 * The most UTF-16 code units a text member of a receipt keeps whole. With the conditions' bound
 * and six bytes for the longest escape, a receipt line stays far below the 1 MiB a log reader
 * takes (MAX_LINE_BYTES, docs/design.md §6), whatever a client or peer sends.
 */
export const RECEIPT_TEXT_MAX = 8192;
/** The most bytes of canonical JSON a receipt's `conditions` may take; larger ones are left out, their hash kept. */
export const RECEIPT_CONDITIONS_MAX_BYTES = 64 * 1024;
/** What a cut text keeps of its start, in UTF-16 code units. */
const CUT_KEEP = 256;

/**
 * A text over {@link RECEIPT_TEXT_MAX}, cut: its first {@link CUT_KEEP} code units (never half a
 * surrogate pair), then its length and the hash that matches it to the recording.
 */
export function cutText(text: string): string {
  const keep = /[\ud800-\udbff]/.test(text.charAt(CUT_KEEP - 1)) ? CUT_KEEP - 1 : CUT_KEEP;
  return `${text.slice(0, keep)}…[cut: ${text.length} UTF-16 code units, ${sha256Prefixed(text)}]`;
}

/** Collects the names of repaired members while values pass through it. */
export class Repairs {
  readonly #names = new Set<string>();

  /** `value` repaired; `name` is listed when anything had to change. */
  take<T>(name: string, value: T): T {
    const fixed = repairUnrepresentable(value);
    if (fixed.repaired) this.#names.add(name);
    return fixed.value;
  }

  /** A text member repaired and, over {@link RECEIPT_TEXT_MAX}, cut; `name` is listed when it changed. */
  text<T extends string | null>(name: string, value: T): T {
    const fixed = this.take(name, value);
    if (fixed === null || fixed.length <= RECEIPT_TEXT_MAX) return fixed;
    this.#names.add(name);
    return cutText(fixed) as T;
  }

  /** Null for member `name`, listed: its value is too large for a receipt (only its hash is kept). */
  leftOut(name: string): null {
    this.#names.add(name);
    return null;
  }

  /** Marks `name` as repaired when `text` holds a lone surrogate (it is hashed elsewhere). */
  note(name: string, text: string | null | undefined): void {
    if (text != null && !text.isWellFormed()) this.#names.add(name);
  }

  /** Lists `name`: its value was read from repaired bytes. */
  mark(name: string): void {
    this.#names.add(name);
  }

  list(): string[] {
    return [...this.#names].sort();
  }
}

/**
 * `draft` with each text member a client or peer sent (the `bounded` members of line-fields.ts)
 * repaired and, over {@link RECEIPT_TEXT_MAX}, cut, listed in `r` when it changed.
 */
function bounded<D extends SuspensionDraft | ResumptionDraft>(r: Repairs, kind: LineKind, draft: D): D {
  const members = draft as unknown as Record<string, string | null>;
  for (const field of fieldsOf(kind)) {
    if (field.bounded) members[field.name] = r.text(field.name, members[field.name] ?? null);
  }
  return draft;
}

/** `hashCanonical(conditions)`, or null without conditions. */
export function conditionsHashOf(conditions: ResumeConditions | null | undefined): string | null {
  return conditions == null ? null : hashCanonical(repairUnrepresentable(conditions).value);
}

/** The receipt hash of a token (or of its recording placeholder), or null without a token. */
export function resumeTokenHashOf(token: string | null | undefined): string | null {
  return token == null ? null : tokenHashOf(token);
}

/** `hashCanonical(input)`, or null when no input was given. */
export function inputHashOf(input: JsonValue | undefined): string | null {
  return input === undefined || input === null ? null : hashCanonical(repairUnrepresentable(input).value);
}

/** A SuspensionDraft from observed facts (docs/design.md §6). */
export function buildSuspensionDraft(facts: SuspensionFacts): SuspensionDraft {
  const r = new Repairs();
  const conditions = r.take('conditions', facts.conditions ?? null);
  const conditionsText = conditions === null ? null : canonicalJson(conditions);
  const keptConditions =
    conditionsText !== null && Buffer.byteLength(conditionsText, 'utf8') > RECEIPT_CONDITIONS_MAX_BYTES
      ? r.leftOut('conditions')
      : conditions;
  r.note('resumeTokenHash', facts.resumeToken);
  const draft: SuspensionDraft = bounded(r, 'suspension', {
    type: 'SuspensionReceipt',
    taskId: facts.taskId,
    contextId: facts.contextId ?? null,
    initiatedBy: facts.initiatedBy,
    principal: facts.principal ?? null,
    via: facts.via,
    reason: facts.reason ?? null,
    mode: facts.mode ?? null,
    conditions: keptConditions,
    conditionsHash: conditionsText === null ? null : sha256Prefixed(conditionsText),
    resumeTokenHash: resumeTokenHashOf(facts.resumeToken),
    pausedAt: facts.pausedAt,
    pausedUntil: facts.pausedUntil ?? null,
    observedAt: facts.observedAt,
    entries: sortedEntries(facts.entries),
    span: span(facts.span),
    binding: facts.binding ?? 'JSONRPC',
    repaired: [],
  });
  if (facts.callBodyRepaired === true && draft.reason?.includes('\uFFFD') === true) r.mark('reason');
  draft.repaired = r.list();
  return draft;
}

/** A ResumptionDraft from observed facts (docs/design.md §6); the chain adds `suspension`. */
export function buildResumptionDraft(facts: ResumptionFacts): ResumptionDraft {
  const r = new Repairs();
  const input = facts.input === undefined || facts.input === null ? null : r.take('inputHash', facts.input);
  const inputHash = input === null ? null : hashCanonical(input);
  const draft: ResumptionDraft = bounded(r, 'resumption', {
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
    inferred: facts.inferred ?? false,
    observedAt: facts.observedAt,
    entries: sortedEntries(facts.entries),
    span: span(facts.span),
    links: {
      suspension: span(facts.links.suspension),
      pipeline: facts.links.pipeline ? span(facts.links.pipeline) : null,
    },
    binding: facts.binding ?? 'JSONRPC',
    repaired: [],
  });
  draft.repaired = r.list();
  return draft;
}
