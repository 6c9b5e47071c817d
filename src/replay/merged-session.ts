/**
 * @module replay/merged-session
 * `run --merge` (docs/design.md §8, §17): the recordings several recorders made in front of one
 * peer, read as one session. {@link mergeEntries} merges their entries into one stream ordered by
 * recorded time; {@link diffMergedReceipts} compares the receipt log derived from that stream with
 * the union of the recorders' golden logs, pairing receipts by pause identity (task id, then the
 * resume token hash, else `pausedAt`), as `FleetLedger` pairs them, whichever file holds them, and
 * interruptions as `replay/diff` does (the K-th interruption of a task, the continuation naming it);
 * {@link diffFleetReceipts} compares the logs of two fleets the same way (`diff`). Pure.
 */
import { type JsonValue, sha256Prefixed } from '../canonical/canonical-json.js';
import type { RecordingEntry } from '../recording/format.js';
import {
  type NamedLine,
  OTHER_SESSION_FIELDS,
  type ReceiptDiff,
  type ReceiptDifference,
  VOLATILE_FIELDS,
  diffJson,
  nameReceiptLines,
} from './diff.js';

/** One recording of the merged session: its path and its entries in recorded order. */
export interface MergeSource {
  file: string;
  entries: readonly RecordingEntry[];
}

/**
 * One stream of the sources' entries, ordered by `at`: a stable merge, so each file's own order is
 * kept, and entries recorded at the same time come in the order the files were given. Exchange ids
 * are made distinct per file (`<n>/<xid>`, n the file's 1-based place), since two recorders may
 * mint the same; `seq` is renumbered 1..N in the merged order.
 */
export function mergeEntries(sources: readonly MergeSource[]): RecordingEntry[] {
  const next = sources.map(() => 0);
  const out: RecordingEntry[] = [];
  for (;;) {
    let pick = -1;
    let pickAt = Infinity;
    sources.forEach((source, i) => {
      const entry = source.entries[next[i] as number];
      if (entry === undefined) return;
      const at = Date.parse(entry.at);
      // Strictly earlier wins: ties go to the file given first.
      if (pick === -1 || at < pickAt) {
        pick = i;
        pickAt = at;
      }
    });
    if (pick === -1) return out;
    const entry = sources[pick]?.entries[next[pick] as number] as RecordingEntry;
    next[pick] = (next[pick] as number) + 1;
    out.push({ ...entry, seq: out.length + 1, xid: `${pick + 1}/${entry.xid}` });
  }
}

/** One golden receipt log of the union: the file it was read from and its lines. */
export interface GoldenLog {
  file: string;
  lines: readonly string[];
}

interface Placed {
  line: NamedLine;
  /** `FILE:LINE` of a golden receipt; `receipts[i]` of a derived one. */
  place: string;
  /**
   * `TASK pause TOKENHASH` (or `pausedAt`), `… resumption J` for the J-th end naming it;
   * `TASK interruption K`, `… continuation J` for the J-th continuation naming it.
   */
  identity: string;
}

const str = (v: JsonValue | undefined): string | null => (typeof v === 'string' ? v : null);

function pauseKey(task: string, tokenHash: string | null, pausedAt: string | null): string | null {
  const what = tokenHash ?? pausedAt;
  return what === null ? null : `task ${task} pause ${what}`;
}

/**
 * Receipts of one or more logs with their identities. A resumption names its pause by the
 * suspension it cites (of its own log, or of an earlier log of its series, given before it), or by
 * its `outside` member; one naming the task alone takes the task's latest pause seen so far in any log.
 * Interruptions and continuations (docs/design.md §14.9) are counted apart from pauses: the K-th
 * InterruptionReceipt of a task in the logs, and a continuation names it by the hash it cites, else
 * the task's latest interruption.
 */
function identify(logs: readonly { file: string; lines: readonly NamedLine[]; golden: boolean }[]): Placed[] {
  const out: Placed[] = [];
  const latest = new Map<string, string>();
  const ends = new Map<string, number>();
  const pauses = new Map<string, number>();
  const interruptions = new Map<string, number>();
  // Across the logs: a log of a series names a suspension of an earlier one by its hash (§6).
  const byHash = new Map<string, string>();
  for (const log of logs) {
    let number = 0;
    for (const line of log.lines) {
      number++;
      if (line.kind !== 'receipt') continue;
      const place = log.golden ? `${log.file}:${number}` : line.name;
      const v = line.value;
      const task = str(v.taskId) ?? '?';
      if (v.type === 'SuspensionReceipt') {
        let key = pauseKey(task, str(v.resumeTokenHash), str(v.pausedAt)) ?? `task ${task} pause`;
        const k = (pauses.get(key) ?? 0) + 1;
        pauses.set(key, k);
        if (k > 1) key = `${key} (${k})`;
        byHash.set(sha256Prefixed(line.text), key);
        latest.set(task, key);
        out.push({ line, place, identity: key });
        continue;
      }
      if (v.type === 'InterruptionReceipt') {
        const k = (interruptions.get(task) ?? 0) + 1;
        interruptions.set(task, k);
        const key = `task ${task} interruption ${k}`;
        byHash.set(sha256Prefixed(line.text), key);
        out.push({ line, place, identity: key });
        continue;
      }
      if (v.type === 'ContinuationReceipt') {
        const named = str(v.interruption);
        const k = interruptions.get(task);
        const opening =
          (named !== null ? byHash.get(named) : undefined) ?? `task ${task} interruption ${k === undefined ? '?' : k}`;
        const j = (ends.get(opening) ?? 0) + 1;
        ends.set(opening, j);
        out.push({ line, place, identity: `${opening} continuation ${j}` });
        continue;
      }
      const outside = v.outside !== null && typeof v.outside === 'object' && !Array.isArray(v.outside) ? v.outside : {};
      const named = str(v.suspension);
      const pause =
        (named !== null ? byHash.get(named) : undefined) ??
        pauseKey(task, str(outside.resumeTokenHash), str(outside.pausedAt)) ??
        latest.get(task) ??
        `task ${task} pause ?`;
      const j = (ends.get(pause) ?? 0) + 1;
      ends.set(pause, j);
      out.push({ line, place, identity: `${pause} resumption ${j}` });
    }
  }
  return out;
}

/** Receipt fields not compared across a merged session: what names a recorder or its chain. */
const IGNORED = [...VOLATILE_FIELDS.receipt, ...OTHER_SESSION_FIELDS.receipt, 'outside', 'kid', 'observedAt'] as const;

function comparable(value: NamedLine['value']): NamedLine['value'] {
  const copy = { ...value };
  for (const f of IGNORED) delete copy[f];
  return copy;
}

/**
 * Compares the merged session's derived receipt log with the union of the golden logs: each
 * receipt paired by identity, its drift named by the golden file and line that holds it; a receipt
 * only the derived log has is named by its place there. Headers and checkpoints are the
 * recorders' own and not compared.
 */
export function diffMergedReceipts(golden: readonly GoldenLog[], derived: readonly string[]): ReceiptDiff {
  const g = identify(golden.map((log) => ({ file: log.file, lines: namedAll(log.lines), golden: true })));
  const a = identify([{ file: '', lines: nameReceiptLines(derived), golden: false }]);
  return diffPlaced(g, a, false);
}

/**
 * `diff GOLDEN... -- LIVE...` (docs/design.md §17): the receipt logs of one fleet against those of
 * another, each side's logs given in series order. Receipts pair by pause identity whichever file
 * holds them; a drift is named by the golden file and line and the live one, a receipt one side
 * alone has by its file and line there. Headers and checkpoints are each recorder's own and not
 * compared; neither is what names a recorder or its chain (as {@link diffMergedReceipts}).
 */
export function diffFleetReceipts(golden: readonly GoldenLog[], live: readonly GoldenLog[]): ReceiptDiff {
  const g = identify(golden.map((log) => ({ file: log.file, lines: namedAll(log.lines), golden: true })));
  const a = identify(live.map((log) => ({ file: log.file, lines: namedAll(log.lines), golden: true })));
  return diffPlaced(g, a, true);
}

/** Pairs placed receipts by identity; `bothPlaces`: a drifted pair names the actual place too. */
function diffPlaced(g: readonly Placed[], a: readonly Placed[], bothPlaces: boolean): ReceiptDiff {
  const actualById = new Map(a.map((p) => [p.identity, p]));
  const used = new Set<Placed>();
  const differences: ReceiptDifference[] = [];
  for (const gp of g) {
    const ap = actualById.get(gp.identity);
    if (ap === undefined) {
      differences.push({ path: `${gp.place} (${gp.identity})`, expected: gp.line.value });
      continue;
    }
    used.add(ap);
    const path = bothPlaces ? `${gp.place} vs ${ap.place} (${gp.identity})` : `${gp.place} (${gp.identity})`;
    diffJson(path, comparable(gp.line.value), comparable(ap.line.value), differences);
  }
  for (const ap of a) {
    if (!used.has(ap)) differences.push({ path: `${ap.place} (${ap.identity})`, actual: ap.line.value });
  }
  return {
    strict: false,
    signed: false,
    differences,
    ignored: [],
    expectedReceipts: g.length,
    actualReceipts: a.length,
  };
}

/**
 * Every line of a log named, blank ones included as placeholders, so a receipt's position in the
 * list is its line number in the file.
 */
function namedAll(lines: readonly string[]): NamedLine[] {
  return lines.map((text, i) =>
    text.trim() === ''
      ? { name: '', kind: 'header', line: i + 1, text, value: {} }
      : { ...(nameReceiptLines([text])[0] as NamedLine), line: i + 1 },
  );
}
