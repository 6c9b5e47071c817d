/**
 * @module receipts/line-fields
 * The members of a receipt log line, declared once (docs/design.md §6): for each, its name, the
 * shape of its value, whether it may be null, and the kinds of line that carry it. The readers of
 * a line (the one-pass text scan, scan-line.ts; the fast reader, read-line-fast.ts; the field
 * readers that name what is wrong, read-line.ts) and the drafts (drafts.ts) all take the members
 * from here, so a member is added or changed in one place.
 *
 * Every member of a kind is always present (null when it does not apply). The rows of a kind, in
 * table order, are the members in the order the readers give them (and check them); sorted, they
 * are the canonical (RFC 8785) order in which the writer writes them.
 */
import { PAUSE_INITIATORS, PAUSE_MODES } from '../protocol/types.js';
import {
  CHECKPOINT_ALGS,
  CONTINUATION_CAUSES,
  INTERRUPTED_STATES,
  RECEIPT_BINDINGS,
  RESUME_RECEIPT_CAUSES,
  RESUME_OUTCOMES,
  SUSPENSION_VIAS,
} from './types.js';

/**
 * The kinds of line: the header, the two receipts (a version-5 resumption adds `outside`), and
 * checkpoints of format version 2, 3 and 4 (`checkpoint` is version 3's; version 4 adds the
 * checkpoint note).
 */
export type LineKind =
  | 'header'
  | 'header-v5'
  | 'suspension'
  | 'resumption'
  | 'resumption-v5'
  | 'interruption'
  | 'continuation'
  | 'checkpoint-v2'
  | 'checkpoint'
  | 'checkpoint-v4';

/** The `type` member of each kind. */
export const LINE_TYPES = {
  header: 'ReceiptLog',
  'header-v5': 'ReceiptLog',
  suspension: 'SuspensionReceipt',
  resumption: 'ResumptionReceipt',
  'resumption-v5': 'ResumptionReceipt',
  interruption: 'InterruptionReceipt',
  continuation: 'ContinuationReceipt',
  'checkpoint-v2': 'Checkpoint',
  checkpoint: 'Checkpoint',
  'checkpoint-v4': 'Checkpoint',
} as const satisfies Record<LineKind, string>;

/** The shape of a member's value. */
export type FieldShape =
  /** The line's `type`: the kind's name ({@link LINE_TYPES}). */
  | { kind: 'type' }
  /** Any string. */
  | { kind: 'text' }
  /** An integer of at least `min` (at most `Number.MAX_SAFE_INTEGER`). */
  | { kind: 'integer'; min: number }
  | { kind: 'boolean' }
  /** `sha256:` and 64 lower-case hex digits. */
  | { kind: 'hash' }
  /** One of `values`. */
  | { kind: 'enum'; values: readonly string[] }
  /** Any JSON object (`conditions`: the signature, not a schema, protects it). */
  | { kind: 'object' }
  /** Recording seqs: integers of at least 1, strictly ascending. */
  | { kind: 'entries' }
  /** Member names: strings, strictly ascending. */
  | { kind: 'repaired' }
  /** `{traceId, spanId}`: 32 and 16 lower-case hex digits. */
  | { kind: 'span' }
  /** `{suspension: span, pipeline: span | null}`. */
  | { kind: 'links' }
  /** A version-5 resumption's pause outside its log: `{pausedAt: text | null, resumeTokenHash: hash | null}`. */
  | { kind: 'outside' }
  /** `{alg, kid, value}`, `alg` one of `algs`. */
  | { kind: 'sig'; algs: readonly string[] }
  /** A closing checkpoint's `{id, lastLineHash, lines}` (docs/design.md §6). */
  | { kind: 'recording-binding' }
  /** A checkpoint note: a C2SP signed note, text of several lines (docs/design.md §6). */
  | { kind: 'note' }
  /** The header's format name: exactly `RECEIPT_FORMAT`. */
  | { kind: 'format' }
  /** The header's format version: one of `RECEIPT_VERSIONS`. */
  | { kind: 'version' }
  /** The header's kids: a non-empty array of strings. */
  | { kind: 'kids' }
  /** The header's checkpoint pin: `{alg, kid}`, `alg` one of `CHECKPOINT_ALGS`. */
  | { kind: 'checkpoint-pin' }
  /** A version-5 header's link to the log it continues (docs/design.md §6, "Series"). */
  | { kind: 'series-link' };

/** One member of a line. */
export interface LineField {
  name: string;
  shape: FieldShape;
  /** Whether the value may be null (the member itself is always present). */
  nullable: boolean;
  /** The kinds of line that carry it. */
  kinds: readonly LineKind[];
  /**
   * Text a client or peer sent, which a draft repairs and bounds (`RECEIPT_TEXT_MAX`, drafts.ts)
   * before it is sealed.
   */
  bounded?: true;
  /**
   * Checked before the other members of its line: the header's format, version and kids, which
   * say whether the log can be read at all.
   */
  first?: true;
  /**
   * Kept by a verifier long after its line (an open suspension's task and hash): the scan copies it
   * out of the line's text rather than keeping a slice of it.
   */
  held?: true;
}

const RECEIPTS: readonly LineKind[] = ['suspension', 'resumption', 'resumption-v5', 'interruption', 'continuation'];
const SUSPENSION: readonly LineKind[] = ['suspension'];
const RESUMPTION: readonly LineKind[] = ['resumption', 'resumption-v5'];
const RESUMPTION_V4: readonly LineKind[] = ['resumption'];
const RESUMPTION_V5: readonly LineKind[] = ['resumption-v5'];
// Version 5 (docs/design.md §6, §14.9).
const INTERRUPTION: readonly LineKind[] = ['interruption'];
const CONTINUATION: readonly LineKind[] = ['continuation'];
const CHECKPOINTS: readonly LineKind[] = ['checkpoint-v2', 'checkpoint', 'checkpoint-v4'];
const CHECKPOINT_V3: readonly LineKind[] = ['checkpoint', 'checkpoint-v4'];
const CHECKPOINT_V4: readonly LineKind[] = ['checkpoint-v4'];
const HEADER: readonly LineKind[] = ['header', 'header-v5'];
const HEADER_V5: readonly LineKind[] = ['header-v5'];
const HMAC_ONLY = ['hmac-sha256'] as const;

const text = { kind: 'text' } as const;
const hash = { kind: 'hash' } as const;
const bool = { kind: 'boolean' } as const;

/** Every member of every kind of line, in the order the readers give (and check) them. */
export const LINE_FIELDS: readonly LineField[] = [
  { name: 'type', shape: { kind: 'type' }, nullable: false, kinds: [...HEADER, ...RECEIPTS, ...CHECKPOINTS] },
  // The header: line 1.
  { name: 'format', shape: { kind: 'format' }, nullable: false, kinds: HEADER, first: true },
  { name: 'version', shape: { kind: 'version' }, nullable: false, kinds: HEADER, first: true },
  { name: 'recording', shape: text, nullable: true, kinds: HEADER },
  { name: 'kids', shape: { kind: 'kids' }, nullable: false, kinds: HEADER, first: true },
  { name: 'checkpoint', shape: { kind: 'checkpoint-pin' }, nullable: false, kinds: HEADER },
  { name: 'createdAt', shape: text, nullable: false, kinds: HEADER },
  { name: 'tool', shape: text, nullable: false, kinds: HEADER },
  { name: 'series', shape: { kind: 'series-link' }, nullable: true, kinds: HEADER_V5 },
  // Receipts.
  { name: 'seq', shape: { kind: 'integer', min: 1 }, nullable: false, kinds: RECEIPTS },
  { name: 'prev', shape: hash, nullable: false, kinds: RECEIPTS },
  { name: 'suspension', shape: hash, nullable: false, kinds: RESUMPTION_V4, held: true },
  // Version 5: null when the suspension lies outside the log, which `outside` then names.
  { name: 'suspension', shape: hash, nullable: true, kinds: RESUMPTION_V5, held: true },
  { name: 'taskId', shape: text, nullable: false, kinds: RECEIPTS, bounded: true, held: true },
  { name: 'interruption', shape: hash, nullable: false, kinds: CONTINUATION, held: true },
  { name: 'contextId', shape: text, nullable: true, kinds: [...SUSPENSION, ...INTERRUPTION], bounded: true },
  { name: 'state', shape: { kind: 'enum', values: INTERRUPTED_STATES }, nullable: false, kinds: INTERRUPTION },
  { name: 'promptHash', shape: hash, nullable: true, kinds: INTERRUPTION },
  { name: 'interruptedAt', shape: text, nullable: true, kinds: INTERRUPTION, bounded: true },
  { name: 'cause', shape: { kind: 'enum', values: CONTINUATION_CAUSES }, nullable: false, kinds: CONTINUATION },
  { name: 'initiatedBy', shape: { kind: 'enum', values: PAUSE_INITIATORS }, nullable: false, kinds: SUSPENSION },
  { name: 'cause', shape: { kind: 'enum', values: RESUME_RECEIPT_CAUSES }, nullable: false, kinds: RESUMPTION },
  { name: 'outcome', shape: { kind: 'enum', values: RESUME_OUTCOMES }, nullable: false, kinds: RESUMPTION },
  {
    name: 'errorCode',
    shape: { kind: 'integer', min: Number.MIN_SAFE_INTEGER },
    nullable: true,
    kinds: RESUMPTION,
  },
  {
    name: 'principal',
    shape: text,
    nullable: true,
    kinds: [...SUSPENSION, ...RESUMPTION, ...CONTINUATION],
    bounded: true,
  },
  { name: 'via', shape: { kind: 'enum', values: SUSPENSION_VIAS }, nullable: false, kinds: SUSPENSION },
  { name: 'reason', shape: text, nullable: true, kinds: SUSPENSION, bounded: true },
  { name: 'mode', shape: { kind: 'enum', values: PAUSE_MODES }, nullable: true, kinds: SUSPENSION },
  { name: 'conditions', shape: { kind: 'object' }, nullable: true, kinds: SUSPENSION },
  { name: 'conditionsHash', shape: hash, nullable: true, kinds: SUSPENSION },
  { name: 'resumeTokenHash', shape: hash, nullable: true, kinds: SUSPENSION },
  { name: 'hadResumeInput', shape: bool, nullable: false, kinds: RESUMPTION },
  { name: 'inputHash', shape: hash, nullable: true, kinds: [...RESUMPTION, ...CONTINUATION] },
  { name: 'continueTranscript', shape: bool, nullable: true, kinds: RESUMPTION },
  { name: 'pausedAt', shape: text, nullable: false, kinds: SUSPENSION, bounded: true },
  { name: 'pausedUntil', shape: text, nullable: true, kinds: SUSPENSION, bounded: true },
  { name: 'resumedAt', shape: text, nullable: true, kinds: RESUMPTION, bounded: true },
  { name: 'inferred', shape: bool, nullable: false, kinds: RESUMPTION },
  { name: 'observedAt', shape: text, nullable: false, kinds: RECEIPTS },
  { name: 'entries', shape: { kind: 'entries' }, nullable: false, kinds: RECEIPTS },
  { name: 'span', shape: { kind: 'span' }, nullable: false, kinds: RECEIPTS },
  { name: 'links', shape: { kind: 'links' }, nullable: false, kinds: RESUMPTION },
  { name: 'interruptionSpan', shape: { kind: 'span' }, nullable: false, kinds: CONTINUATION },
  { name: 'binding', shape: { kind: 'enum', values: RECEIPT_BINDINGS }, nullable: false, kinds: RECEIPTS },
  { name: 'repaired', shape: { kind: 'repaired' }, nullable: false, kinds: RECEIPTS },
  { name: 'outside', shape: { kind: 'outside' }, nullable: true, kinds: RESUMPTION_V5 },
  // Checkpoints (docs/design.md §6: version 3 adds `final` and `recording`, version 4 `note`).
  { name: 'size', shape: { kind: 'integer', min: 0 }, nullable: false, kinds: CHECKPOINTS },
  { name: 'root', shape: hash, nullable: false, kinds: CHECKPOINTS },
  { name: 'final', shape: bool, nullable: false, kinds: CHECKPOINT_V3 },
  { name: 'recording', shape: { kind: 'recording-binding' }, nullable: true, kinds: CHECKPOINT_V3 },
  { name: 'note', shape: { kind: 'note' }, nullable: true, kinds: CHECKPOINT_V4 },
  { name: 'sig', shape: { kind: 'sig', algs: HMAC_ONLY }, nullable: false, kinds: RECEIPTS },
  { name: 'sig', shape: { kind: 'sig', algs: CHECKPOINT_ALGS }, nullable: false, kinds: CHECKPOINTS },
];

/** The members of `kind`, in the order the readers give them. */
export function fieldsOf(kind: LineKind): readonly LineField[] {
  return FIELDS_BY_KIND[kind];
}

/**
 * A line of `kind` with every member null, in the order the readers give them: a reader fills a
 * copy of it (`{ ...blankLineOf(kind) }`), so every line of a kind has one object shape.
 */
export function blankLineOf(kind: LineKind): Readonly<Record<string, unknown>> {
  return BLANK_LINE[kind];
}

/** The member names of `kind` in canonical (RFC 8785 §3.2.3) order: the order written lines have. */
export function canonicalOrderOf(kind: LineKind): readonly string[] {
  return CANONICAL_ORDER[kind];
}

function byKind<T>(of: (kind: LineKind) => T): Record<LineKind, T> {
  return {
    header: of('header'),
    'header-v5': of('header-v5'),
    suspension: of('suspension'),
    resumption: of('resumption'),
    'resumption-v5': of('resumption-v5'),
    interruption: of('interruption'),
    continuation: of('continuation'),
    'checkpoint-v2': of('checkpoint-v2'),
    checkpoint: of('checkpoint'),
    'checkpoint-v4': of('checkpoint-v4'),
  };
}

const FIELDS_BY_KIND = byKind((kind) => LINE_FIELDS.filter((f) => f.kinds.includes(kind)));

// Member names are ASCII, so the default sort (by UTF-16 code units) is the canonical order.
const CANONICAL_ORDER = byKind((kind) => FIELDS_BY_KIND[kind].map((f) => f.name).sort());

const BLANK_LINE = byKind((kind) =>
  Object.freeze(Object.fromEntries(FIELDS_BY_KIND[kind].map((f) => [f.name, null] as const))),
);
