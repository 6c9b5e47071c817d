/**
 * @module receipts/examine-line
 * What verifying one log line needs of that line alone (docs/design.md §6): it reads as strict
 * UTF-8 JSON with its newline, has a receipt log shape, is in canonical form, and what its
 * signature check says; plus its hash and the few facts the in-order checks (sequence, chain,
 * checkpoints, suspensions) use. It needs no other line, so worker threads can examine lines
 * while the chain is checked in order (`verify --jobs`), and the first failure is the same either way.
 */
import { sha256Prefixed } from '../canonical/canonical-json.js';
import { formatIssue } from '../protocol/read.js';
import { leafHash } from '../tlog/merkle.js';
import type { Keyring } from './keys.js';
import { lineForm } from './line-form.js';
import { type LineBlock, type RawLine, splitBlock } from './log-reader.js';
import { readReceiptLogLineByFields } from './read-line.js';
import { readReceiptLineFast } from './read-line-fast.js';
import { type ScannedLine, scanReceiptLine } from './scan-line.js';
import { type SignatureCheck, checkCheckpointSignature, checkReceiptSignature } from './signing.js';
import type {
  CheckpointSignature,
  OutsideSuspension,
  ReceiptLogHeader,
  ReceiptBinding,
  ReceiptLogLine,
  RecordingBinding,
  ResumeOutcome,
} from './types.js';
import type { VerifyFailure, VerifyFailureReason } from './verify-failure.js';

/** The facts of a line the in-order checks use (plain data, as `verify --jobs` packs it). */
export type LineFacts =
  | { type: 'ReceiptLog'; header: ReceiptLogHeader }
  | { type: 'SuspensionReceipt'; seq: number; prev: string; kid: string; taskId: string; binding: ReceiptBinding }
  | {
      type: 'ResumptionReceipt';
      seq: number;
      prev: string;
      kid: string;
      taskId: string;
      /** Null (version 5) when the suspension lies outside the log. */
      suspension: string | null;
      binding: ReceiptBinding;
      outcome: ResumeOutcome;
      /** Version 5: the pause outside the log, or null; undefined before version 5 (no `outside` member). */
      outside: OutsideSuspension | null | undefined;
    }
  /** Version 5 (docs/design.md §14.9). */
  | { type: 'InterruptionReceipt'; seq: number; prev: string; kid: string; taskId: string }
  | { type: 'ContinuationReceipt'; seq: number; prev: string; kid: string; taskId: string; interruption: string }
  | {
      type: 'Checkpoint';
      size: number;
      root: string;
      alg: CheckpointSignature['alg'];
      kid: string;
      /** null: a version-2 checkpoint, which has no `final` (nor `recording`). */
      final: boolean | null;
      recording: RecordingBinding | null;
      /** Version 4: its checkpoint note, or null; undefined before version 4 (no `note` member). */
      note: string | null | undefined;
    };

/**
 * A line that passed the line-local checks: its hash, facts, and its signature check (null for
 * the header, and for receipts when no HMAC key was given). `line` when asked for.
 */
export interface ExaminedLine {
  ok: true;
  hash: string;
  /**
   * The line's RFC 6962 leaf hash (base64), when the keyring can check checkpoint notes (it holds
   * an Ed25519 public key); else null.
   */
  leaf: string | null;
  facts: LineFacts;
  signature: SignatureCheck | null;
  line?: ReceiptLogLine;
}

export type Examined = ExaminedLine | { ok: false; failure: VerifyFailure };

function factsOf(line: ReceiptLogLine): LineFacts {
  switch (line.type) {
    case 'ReceiptLog':
      return { type: line.type, header: line };
    case 'SuspensionReceipt':
      return {
        type: line.type,
        seq: line.seq,
        prev: line.prev,
        kid: line.sig.kid,
        taskId: line.taskId,
        binding: line.binding,
      };
    case 'InterruptionReceipt':
      return { type: line.type, seq: line.seq, prev: line.prev, kid: line.sig.kid, taskId: line.taskId };
    case 'ContinuationReceipt':
      return {
        type: line.type,
        seq: line.seq,
        prev: line.prev,
        kid: line.sig.kid,
        taskId: line.taskId,
        interruption: line.interruption,
      };
    case 'ResumptionReceipt':
      return {
        type: line.type,
        seq: line.seq,
        prev: line.prev,
        kid: line.sig.kid,
        taskId: line.taskId,
        binding: line.binding,
        suspension: line.suspension,
        outcome: line.outcome,
        outside: line.outside,
      };
    case 'Checkpoint':
      return {
        type: line.type,
        size: line.size,
        root: line.root,
        alg: line.sig.alg,
        kid: line.sig.kid,
        final: line.final ?? null,
        recording: line.recording ?? null,
        note: line.note,
      };
    default: {
      const never: never = line;
      throw new Error(`unhandled line ${JSON.stringify(never)}`);
    }
  }
}

/**
 * A complete or torn line read the general way: JSON.parse, the readers (the fast one first, to
 * tell line-form that the members are in canonical order), the canonical check; what is wrong, if
 * anything, named.
 */
function readLineGeneral(text: string, complete: boolean, n: number): ScannedLine | VerifyFailure {
  const fail = (reason: VerifyFailureReason, message: string): VerifyFailure => ({ line: n, reason, message });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (!complete) return fail('torn_tail', `line ${n} is cut off (no newline, not JSON): the writer stopped mid-line`);
    return fail('malformed_line', `line ${n} is not JSON`);
  }
  if (!complete) return fail('torn_tail', `line ${n} has no newline: the writer stopped before finishing it`);
  let line = readReceiptLineFast(value);
  const shapesInOrder = line !== null;
  if (!line) {
    const parsed = readReceiptLogLineByFields(value);
    if (!parsed.ok) return fail('malformed_line', `line ${n}: ${formatIssue(parsed.issue)}`);
    line = parsed.value;
  }
  const form = lineForm(text, value, line, shapesInOrder);
  if (!form.canonical)
    return fail(
      'malformed_line',
      `line ${n} is not in canonical form (RFC 8785): lines are written canonical, so it was edited`,
    );
  return { line, body: form.body };
}

/** Examines one raw line; `keepLine` puts the parsed line in the answer (for `onLine`). */
export function examineLine(raw: RawLine, keyring: Keyring, keepLine: boolean): Examined {
  const n = raw.number;
  if (raw.text === null) {
    const reason = raw.complete ? 'malformed_line' : 'torn_tail';
    return { ok: false, failure: { line: n, reason, message: `line ${n} is ${raw.problem ?? 'unreadable'}` } };
  }
  // A line as the writer wrote it is read, shape and canonical form, in one pass over its text;
  // anything that pass does not decide is read the general way, which names what is wrong. A line
  // handed on (`keepLine`) is read the general way too: the scan's strings are slices, which
  // would keep the whole text of every line its reader holds on to alive.
  const scanned = raw.complete && !keepLine ? scanReceiptLine(raw.text) : null;
  const read = scanned ?? readLineGeneral(raw.text, raw.complete, n);
  if ('reason' in read) return { ok: false, failure: read };
  const { line, body } = read;
  let signature: SignatureCheck | null = null;
  if (line.type === 'Checkpoint') {
    const { sig, ...unsigned } = line;
    signature = checkCheckpointSignature(unsigned, sig, keyring, body.join(''));
  } else if (line.type !== 'ReceiptLog' && keyring.hasHmac) {
    signature = checkReceiptSignature(line, line.sig, keyring, body);
  }
  const examined: ExaminedLine = {
    ok: true,
    hash: sha256Prefixed(raw.text),
    leaf: keyring.hasEd25519Public ? leafHash(raw.text).toString('base64') : null,
    facts: factsOf(line),
    signature,
  };
  if (keepLine) examined.line = line;
  return examined;
}

const SIGNATURE_CODES: readonly (SignatureCheck | null)[] = [null, 'ok', 'unknown_kid', 'unchecked', 'bad_signature'];

/**
 * Appends a passed line to `out` as a few plain values (for `verify --jobs`: a flat array of
 * strings and numbers crosses between threads far cheaper than an object per line); the header
 * goes as its object. {@link unpackExamined} reads them back. `line` is not packed.
 */
export function packExamined(examined: ExaminedLine, out: unknown[]): void {
  const { facts, hash, leaf } = examined;
  const signature = SIGNATURE_CODES.indexOf(examined.signature);
  switch (facts.type) {
    case 'SuspensionReceipt':
      out.push(0, hash, leaf, signature, facts.seq, facts.prev, facts.kid, facts.taskId, facts.binding);
      return;
    case 'ResumptionReceipt':
      out.push(
        1,
        hash,
        leaf,
        signature,
        facts.seq,
        facts.prev,
        facts.kid,
        facts.taskId,
        facts.suspension,
        facts.outcome,
        facts.outside,
        facts.binding,
      );
      return;
    case 'Checkpoint':
      out.push(
        2,
        hash,
        leaf,
        signature,
        facts.size,
        facts.root,
        facts.alg,
        facts.kid,
        facts.final,
        facts.recording,
        facts.note,
      );
      return;
    case 'ReceiptLog':
      out.push(3, hash, leaf, signature, facts.header);
      return;
    case 'InterruptionReceipt':
      out.push(4, hash, leaf, signature, facts.seq, facts.prev, facts.kid, facts.taskId);
      return;
    case 'ContinuationReceipt':
      out.push(5, hash, leaf, signature, facts.seq, facts.prev, facts.kid, facts.taskId, facts.interruption);
      return;
    default: {
      const never: never = facts;
      throw new Error(`unhandled line ${JSON.stringify(never)}`);
    }
  }
}

/** The lines {@link packExamined} packed into `packed`, in order, each given to `each`. */
export function unpackExamined(packed: readonly unknown[], each: (examined: ExaminedLine) => boolean): boolean {
  const v = packed as never[];
  for (let i = 0; i < v.length;) {
    const hash = v[i + 1]!;
    const leaf = v[i + 2]!;
    const signature = SIGNATURE_CODES[v[i + 3]!]!;
    let facts: LineFacts;
    switch (v[i] as unknown) {
      case 0:
        facts = {
          type: 'SuspensionReceipt',
          seq: v[i + 4]!,
          prev: v[i + 5]!,
          kid: v[i + 6]!,
          taskId: v[i + 7]!,
          binding: v[i + 8]!,
        };
        i += 9;
        break;
      case 1:
        facts = {
          type: 'ResumptionReceipt',
          seq: v[i + 4]!,
          prev: v[i + 5]!,
          kid: v[i + 6]!,
          taskId: v[i + 7]!,
          suspension: v[i + 8]!,
          outcome: v[i + 9]!,
          outside: v[i + 10]!,
          binding: v[i + 11]!,
        };
        i += 12;
        break;
      case 2:
        facts = {
          type: 'Checkpoint',
          size: v[i + 4]!,
          root: v[i + 5]!,
          alg: v[i + 6]!,
          kid: v[i + 7]!,
          final: v[i + 8]!,
          recording: v[i + 9]!,
          note: v[i + 10]!,
        };
        i += 11;
        break;
      case 4:
        facts = { type: 'InterruptionReceipt', seq: v[i + 4]!, prev: v[i + 5]!, kid: v[i + 6]!, taskId: v[i + 7]! };
        i += 8;
        break;
      case 5:
        facts = {
          type: 'ContinuationReceipt',
          seq: v[i + 4]!,
          prev: v[i + 5]!,
          kid: v[i + 6]!,
          taskId: v[i + 7]!,
          interruption: v[i + 8]!,
        };
        i += 9;
        break;
      default:
        facts = { type: 'ReceiptLog', header: v[i + 4]! };
        i += 5;
    }
    if (!each({ ok: true, hash, leaf, facts, signature })) return false;
  }
  return true;
}

/**
 * A block's lines examined in order up to the first bad one: those that passed, packed (with
 * their parsed values when `keepLines`), then the bad one's failure, if any.
 */
export interface BlockAnswer {
  packed: unknown[];
  lines: ReceiptLogLine[] | null;
  failure: VerifyFailure | null;
}

/** Examines the lines of a block (`verify --jobs`: on a worker, or on the main thread in turn). */
export function examineBlock(block: LineBlock, keyring: Keyring, keepLines: boolean): BlockAnswer {
  const packed: unknown[] = [];
  const lines: ReceiptLogLine[] | null = keepLines ? [] : null;
  for (const raw of splitBlock(block)) {
    const examined = examineLine(raw, keyring, keepLines);
    if (!examined.ok) return { packed, lines, failure: examined.failure };
    packExamined(examined, packed);
    lines?.push(examined.line!);
  }
  return { packed, lines, failure: null };
}
