/**
 * @module replay/diff
 * Golden receipt diff (docs/design.md §8): the receipt log a replay derived against the golden one, line by
 * line, as `{path, expected, actual}`. Pure: text lines in, differences out.
 *
 * - Receipts pair by identity, not position: a suspension is the k-th of its task, a resumption
 *   the j-th resumption receipt naming such a suspension (see {@link receiptIdentities}), so one
 *   extra or missing receipt is reported as exactly that, and the others still pair. A paired
 *   receipt is named by its golden place (`receipts[i]`); one only a side has is reported whole,
 *   its identity in the path (`receipts[3] (task-1 suspension 2)`). Interruptions and their
 *   continuations (a log of version 5) pair the same way (`task-1 interruption 1 continuation 1`)
 *   and also name their line (`receipts[2] (task-1 interruption 1, line 4)`). Checkpoints pair by
 *   position (`checkpoints[i]`), the header is `header`.
 * - Default mode ignores {@link VOLATILE_FIELDS} — values the peer's clock decides, and the chain
 *   hashes and signatures that shift whenever one of them shifts — and counts how often each was
 *   ignored, so the report can list them. Without a key (`signed: false`), key ids are volatile too.
 * - Strict mode compares the canonical lines byte for byte (signatures included); each differing
 *   line is explained field by field with nothing ignored.
 */
import { withLaterTimeText } from './earlier-times.js';
import { type JsonValue, canonicalJson, sha256Prefixed } from '../canonical/canonical-json.js';
import { IdMap } from './substitution.js';

/** Fields ignored by default, per line type. */
export const VOLATILE_FIELDS = {
  receipt: [
    'sig',
    'seq',
    'prev',
    'suspension',
    'interruption',
    'pausedAt',
    'pausedUntil',
    'resumedAt',
    'interruptedAt',
  ],
  // A checkpoint note commits to the lines before it, so it shifts with them (docs/design.md §6).
  checkpoint: ['root', 'sig', 'note'],
  header: ['createdAt', 'tool'],
} as const;

/**
 * Extra fields ignored when the two logs come from two sessions (a client recorded against
 * `a2a-replay mock`, docs/design.md §13): what names the session rather than what happened in it —
 * the recording id, the times the recorder observed, the recording seqs a receipt cites, the
 * span ids derived from the recording id, and the recording a closing checkpoint binds.
 */
export const OTHER_SESSION_FIELDS = {
  header: ['recording'],
  receipt: ['observedAt', 'entries', 'span', 'links', 'interruptionSpan'],
  checkpoint: ['recording'],
} as const;

/**
 * Extra fields ignored when the two logs are of different format versions (docs/design.md §6: a
 * version-2, -3 or -4 golden and a later log of the same session differ in the version and in the
 * members the later versions added — the checkpoint's, the header's `series`, a resumption's
 * `outside` — not in what happened; a resumption of a pause outside the log still differs in its
 * `suspension`).
 */
export const FORMAT_VERSION_FIELDS = {
  header: ['version', 'series'],
  receipt: ['outside'],
  checkpoint: ['final', 'recording', 'note'],
} as const;

/** Extra fields ignored when the replay could not sign with the golden key. */
export const UNSIGNED_VOLATILE_FIELDS = { header: ['kids', 'checkpoint'], checkpoint: [] as string[] } as const;

export interface ReceiptDifference {
  /** e.g. `receipts[1].cause`, `header.recording`, `checkpoints[0].size`, `line 4`. */
  path: string;
  /** Absent when the golden log has nothing there. */
  expected?: JsonValue;
  /** Absent when the replayed log has nothing there. */
  actual?: JsonValue;
}

export interface ReceiptDiff {
  strict: boolean;
  signed: boolean;
  differences: ReceiptDifference[];
  /** Volatile fields that differed and were ignored, with how many times. */
  ignored: { field: string; count: number }[];
  expectedReceipts: number;
  actualReceipts: number;
}

export interface ReceiptDiffOptions {
  strict?: boolean;
  /** True when the replay signed with the golden log's key. */
  signed?: boolean;
  /** True when the actual log is another session's (ignores {@link OTHER_SESSION_FIELDS}). */
  otherSession?: boolean;
}

type Obj = { [key: string]: JsonValue };

/** One non-blank line of a receipt log, named by its place: `header`, `receipts[i]`, `checkpoints[i]`. */
export interface NamedLine {
  name: string;
  kind: 'header' | 'receipt' | 'checkpoint';
  /** Its line number in the file (1-based, blank lines counted). */
  line: number;
  text: string;
  value: Obj;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Names the lines of receipt log text (already validated by the caller). */
export function nameReceiptLines(lines: readonly string[]): NamedLine[] {
  const out: NamedLine[] = [];
  let receipts = 0;
  let checkpoints = 0;
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    const parsed: unknown = JSON.parse(text);
    const value: Obj = isObj(parsed) ? parsed : { value: parsed as JsonValue };
    const line = i + 1;
    if (value.type === 'ReceiptLog') out.push({ name: 'header', kind: 'header', line, text, value });
    else if (value.type === 'Checkpoint')
      out.push({ name: `checkpoints[${checkpoints++}]`, kind: 'checkpoint', line, text, value });
    else out.push({ name: `receipts[${receipts++}]`, kind: 'receipt', line, text, value });
  });
  return out;
}

/** The receipt types of interruptions (docs/design.md §14.9), which a log of version 5 or later holds. */
const INTERRUPTION_TYPES: ReadonlySet<string> = new Set(['InterruptionReceipt', 'ContinuationReceipt']);

/** The receipt types that open something a later receipt closes, and what the identity calls it. */
const OPENINGS: Readonly<Record<string, string>> = {
  SuspensionReceipt: 'suspension',
  InterruptionReceipt: 'interruption',
};

/** The receipt types that close (or attempt) an opening: the member naming it and what they are called. */
const CLOSINGS: Readonly<Record<string, { names: string; opening: string; called: string }>> = {
  ContinuationReceipt: { names: 'interruption', opening: 'interruption', called: 'continuation' },
};

/** Any other receipt type (a resumption, or a hand-edited line) is read as a resumption. */
const RESUMPTION = { names: 'suspension', opening: 'suspension', called: 'resumption' };

/**
 * What a receipt is, independent of its place in the log: `TASK suspension K` for the K-th
 * SuspensionReceipt of a task, `TASK suspension K resumption J` for the J-th resumption receipt
 * naming it (a rejected attempt or the end), so a changed outcome still pairs and is named; in the
 * same way `TASK interruption K` for the K-th InterruptionReceipt of a task and `TASK interruption
 * K continuation J` for the ContinuationReceipt naming it (docs/design.md §14.9).
 */
export function receiptIdentities(lines: readonly NamedLine[], byTaskOrder = false): Map<NamedLine, string> {
  const out = new Map<NamedLine, string>();
  const perTask = new Map<string, number>();
  const byHash = new Map<string, string>();
  const attempts = new Map<string, number>();
  const ordinals = new Map<string, string>();
  for (const line of lines) {
    if (line.kind !== 'receipt') continue;
    const id = typeof line.value.taskId === 'string' ? line.value.taskId : canonicalJson(line.value.taskId ?? null);
    let task = id;
    if (byTaskOrder) {
      task = ordinals.get(id) ?? `task ${ordinals.size + 1}`;
      ordinals.set(id, task);
    }
    const type = typeof line.value.type === 'string' ? line.value.type : '';
    const opening = OPENINGS[type];
    if (opening !== undefined) {
      const k = (perTask.get(`${opening} ${task}`) ?? 0) + 1;
      perTask.set(`${opening} ${task}`, k);
      const identity = `${task} ${opening} ${k}`;
      byHash.set(sha256Prefixed(line.text), identity);
      out.set(line, identity);
      continue;
    }
    const closing = CLOSINGS[type] ?? RESUMPTION;
    const named = line.value[closing.names];
    // A hand-edited line no longer hashes as it did: then the task's latest opening is meant.
    const latest = perTask.get(`${closing.opening} ${task}`);
    const base =
      (typeof named === 'string' ? byHash.get(named) : undefined) ??
      `${task} ${closing.opening} ${latest === undefined ? '?' : latest}`;
    const n = (attempts.get(`${closing.called} ${base}`) ?? 0) + 1;
    attempts.set(`${closing.called} ${base}`, n);
    out.set(line, `${base} ${closing.called} ${n}`);
  }
  return out;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

/** Structural differences between two JSON values, leaf by leaf. */
export function diffJson(
  path: string,
  expected: JsonValue | undefined,
  actual: JsonValue | undefined,
  out: ReceiptDifference[],
): void {
  if (same(expected, actual)) return;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const n = Math.max(expected.length, actual.length);
    for (let i = 0; i < n; i++) diffJson(child(path, i), expected[i], actual[i], out);
    return;
  }
  if (isObj(expected) && isObj(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    for (const k of keys) diffJson(child(path, k), expected[k], actual[k], out);
    return;
  }
  const d: ReceiptDifference = { path };
  if (expected !== undefined) d.expected = expected;
  if (actual !== undefined) d.actual = actual;
  out.push(d);
}

class IgnoreCounter {
  readonly counts = new Map<string, number>();
  add(field: string): void {
    this.counts.set(field, (this.counts.get(field) ?? 0) + 1);
  }
  /** By field name in code-unit order: the same on every machine, whatever its locale. */
  list(): { field: string; count: number }[] {
    return [...this.counts]
      .map(([field, count]) => ({ field, count }))
      .sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  }
}

function diffLine(
  path: string,
  expected: Obj | undefined,
  actual: Obj | undefined,
  volatile: readonly string[],
  ignored: IgnoreCounter,
  out: ReceiptDifference[],
): void {
  if (expected === undefined || actual === undefined) {
    diffJson(path, expected, actual, out);
    return;
  }
  const e: Obj = { ...expected };
  const a: Obj = { ...actual };
  for (const f of volatile) {
    if (!same(e[f], a[f])) ignored.add(f);
    delete e[f];
    delete a[f];
  }
  diffJson(path, e, a, out);
}

interface LinePair {
  name: string;
  gl: NamedLine | undefined;
  al: NamedLine | undefined;
}

/**
 * The name of a receipt pair: its golden place (`receipts[i]`), or, for one only a side has, its
 * place and identity. An interruption or continuation (docs/design.md §14.9) also names its line
 * in the golden file, or in the replayed log when the golden has none
 * (`receipts[2] (task-1 interruption 1, line 4)`), so a reader finds the gate in either file.
 */
function pairName(line: NamedLine, identity: string, paired: boolean, golden: boolean): string {
  if (!INTERRUPTION_TYPES.has(line.value.type as string)) return paired ? line.name : `${line.name} (${identity})`;
  return `${line.name} (${identity}, ${golden ? '' : 'replayed '}line ${line.line})`;
}

/** Golden and replayed lines side by side: receipts by identity, the rest by name (position). */
function pairLines(g: readonly NamedLine[], a: readonly NamedLine[], byTaskOrder: boolean): LinePair[] {
  const gIds = receiptIdentities(g, byTaskOrder);
  const aIds = receiptIdentities(a, byTaskOrder);
  const actualById = new Map<string, NamedLine>();
  for (const [line, id] of aIds) if (!actualById.has(id)) actualById.set(id, line);
  const actualByName = new Map(a.filter((l) => l.kind !== 'receipt').map((l) => [l.name, l]));
  const used = new Set<NamedLine>();
  const pairs: LinePair[] = [];
  for (const gl of g) {
    if (gl.kind !== 'receipt') {
      const al = actualByName.get(gl.name);
      if (al) used.add(al);
      pairs.push({ name: gl.name, gl, al });
      continue;
    }
    const id = gIds.get(gl) as string;
    const al = actualById.get(id);
    if (al && !used.has(al)) {
      used.add(al);
      pairs.push({ name: pairName(gl, id, true, true), gl, al });
    } else {
      pairs.push({ name: pairName(gl, id, false, true), gl, al: undefined });
    }
  }
  for (const al of a) {
    if (used.has(al)) continue;
    const name = al.kind === 'receipt' ? pairName(al, aIds.get(al) as string, false, false) : al.name;
    pairs.push({ name, gl: undefined, al });
  }
  return pairs;
}

/**
 * The ids two sessions minted each, paired as `run` pairs a live peer's (src/replay/substitution.ts):
 * the task, context and resume token hash of each pair of receipts (the K-th task's J-th pause in
 * both), the first pair of a value winning, so a contradiction stays a difference.
 */
function sessionIds(pairs: readonly LinePair[]): IdMap {
  const ids = new IdMap();
  for (const { gl, al } of pairs) {
    if (gl?.kind !== 'receipt' || al?.kind !== 'receipt') continue;
    for (const field of SESSION_ID_FIELDS) {
      const e = gl.value[field];
      const a = al.value[field];
      if (typeof e === 'string' && typeof a === 'string') ids.pair(e, a, field);
    }
  }
  return ids;
}

/** The fields of a receipt that name what a session's peer minted. */
const SESSION_ID_FIELDS = ['taskId', 'contextId', 'resumeTokenHash'] as const;

/** An interruption or continuation receipt's line (canonical JSON: `type` is a top-level member). */
const INTERRUPTION_LINE = /"type":"(?:Interruption|Continuation)Receipt"/;

/** The format version the header (the first non-blank line) states, if it parses. */
function headerVersion(lines: readonly string[]): number | undefined {
  const first = lines.find((line) => line.trim() !== '');
  try {
    const header = JSON.parse(first ?? '') as { type?: unknown; version?: unknown };
    return header.type === 'ReceiptLog' && typeof header.version === 'number' ? header.version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Compares a replayed receipt log with the golden one. Lines are the files' lines (canonical JSON,
 * no newline); blank lines are ignored.
 */
export function diffReceiptLogs(
  golden: readonly string[],
  actual: readonly string[],
  options: ReceiptDiffOptions = {},
): ReceiptDiff {
  const strict = options.strict ?? false;
  const signed = options.signed ?? true;
  // A golden log of version 4 or earlier holds no interruption receipts (docs/design.md §6,
  // §14.9): a later log of the same session is compared without them and the counts they change,
  // and the golden's peer times are read in the later log's canonical text.
  const earlier = !strict && (headerVersion(golden) ?? 5) < 5;
  const laterTimes = earlier && (headerVersion(actual) ?? 5) >= 5;
  const g = nameReceiptLines(golden).map((l) =>
    laterTimes && l.kind === 'receipt' ? { ...l, value: withLaterTimeText(l.value) } : l,
  );
  const kept = earlier ? actual.filter((line) => !INTERRUPTION_LINE.test(line)) : actual;
  const a = nameReceiptLines(kept);
  const other = options.otherSession ?? false;
  const pairs = pairLines(g, a, other);
  const differences: ReceiptDifference[] = [];
  const ignored = new IgnoreCounter();
  const ids = other ? sessionIds(pairs) : undefined;
  const versionOf = (lines: readonly NamedLine[]): unknown => lines.find((l) => l.kind === 'header')?.value.version;
  const versions = versionOf(g) !== versionOf(a);
  const volatile = {
    header: [
      ...VOLATILE_FIELDS.header,
      ...(signed ? [] : UNSIGNED_VOLATILE_FIELDS.header),
      ...(other ? OTHER_SESSION_FIELDS.header : []),
      ...(versions ? FORMAT_VERSION_FIELDS.header : []),
    ],
    receipt: [
      ...VOLATILE_FIELDS.receipt,
      ...(other ? OTHER_SESSION_FIELDS.receipt : []),
      ...(versions ? FORMAT_VERSION_FIELDS.receipt : []),
    ],
    checkpoint: [
      ...VOLATILE_FIELDS.checkpoint,
      ...(other ? OTHER_SESSION_FIELDS.checkpoint : []),
      ...(versions ? FORMAT_VERSION_FIELDS.checkpoint : []),
      ...(kept.length < actual.length ? ['size'] : []),
    ],
  };
  for (const { name, gl, al } of pairs) {
    if (strict) {
      if (gl?.text === al?.text) continue;
      const before = differences.length;
      diffJson(name, gl?.value, al?.value, differences);
      if (differences.length === before) {
        const d: ReceiptDifference = { path: `${name} (bytes)` };
        if (gl) d.expected = gl.text;
        if (al) d.actual = al.text;
        differences.push(d);
      }
      continue;
    }
    const kind = (gl ?? al)?.kind ?? 'receipt';
    const actual = ids && al && kind === 'receipt' ? ids.toRecorded(al.value as JsonValue) : al?.value;
    diffLine(name, gl?.value, actual as Obj | undefined, volatile[kind], ignored, differences);
  }
  return {
    strict,
    signed,
    differences,
    ignored: ignored.list(),
    expectedReceipts: g.filter((l) => l.kind === 'receipt').length,
    actualReceipts: a.filter((l) => l.kind === 'receipt').length,
  };
}
