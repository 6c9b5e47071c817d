/**
 * @module report/build-report
 * Gathers what the HTML report shows (docs/design.md §12) from recordings, receipt logs and
 * replay results: each task's states over recorded time, each pause with its initiator, end,
 * rejected attempts and lost verdict, and the audit rows with their receipt hashes, span ids and
 * verification status. The lost verdicts are the observer's own (the LostPause spans `lost`
 * lists), so the report never disagrees with `lost`, `audit` or Jaeger.
 */
import { type JsonValue, sha256Prefixed } from '../canonical/canonical-json.js';
import { AuditCollector, type AuditRow } from '../receipts/audit.js';
import type { Keyring } from '../receipts/keys.js';
import { readLogChunks } from '../receipts/log-reader.js';
import { readReceiptLogLine } from '../receipts/read-line.js';
import type { ReceiptLogLine, SpanRef } from '../receipts/types.js';
import type { PauseMode } from '../protocol/types.js';
import { verifyReceiptLog } from '../receipts/verify.js';
import type { RecordingEntry } from '../recording/format.js';
import { readRecording } from '../recording/recording-reader.js';
import { deriveReceiptLog, unsignedKeyring } from '../replay/derive-receipts.js';
import { describeDrift } from '../replay/reporters/text.js';
import type { RecordingResult } from '../replay/result.js';
import { LostPauseCollector } from '../tracing/lost-pauses.js';
import type { Lane, LanePause, LaneState, ReportRow, ReportSection } from './html-report.js';

type Obj = { [key: string]: JsonValue };
const obj = (v: JsonValue | undefined): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;

/** (task, state) pairs an answer or event shows; a legacy pause envelope counts as PAUSED. */
function statesIn(body: JsonValue | undefined): { taskId: string; state: string }[] {
  const out: { taskId: string; state: string }[] = [];
  const stack: { value: JsonValue | undefined; depth: number }[] = [{ value: body, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (depth > 6) continue;
    if (Array.isArray(value)) {
      for (const v of value) stack.push({ value: v, depth: depth + 1 });
      continue;
    }
    const o = obj(value);
    if (!o) continue;
    const taskId = typeof o.taskId === 'string' ? o.taskId : typeof o.id === 'string' ? o.id : undefined;
    const status = obj(o.status);
    let state = typeof status?.state === 'string' ? status.state : typeof o.state === 'string' ? o.state : undefined;
    const harn = obj(obj(obj(o.metadata)?.harn)?.pause);
    if (state === 'TASK_STATE_WORKING' && harn?.state === 'paused') state = 'TASK_STATE_PAUSED';
    if (taskId !== undefined && state?.startsWith('TASK_STATE_')) {
      out.push({ taskId, state });
      continue;
    }
    for (const v of Object.values(o)) stack.push({ value: v, depth: depth + 1 });
  }
  return out;
}

function statesOf(entries: readonly RecordingEntry[]): Map<string, LaneState[]> {
  const lanes = new Map<string, LaneState[]>();
  const end = entries.length > 0 ? Date.parse(entries[entries.length - 1]!.at) : 0;
  for (const entry of entries) {
    if (entry.kind !== 'response' && entry.kind !== 'event') continue;
    const at = Date.parse(entry.at);
    for (const { taskId, state } of statesIn(entry.body)) {
      const lane = lanes.get(taskId) ?? [];
      const last = lane[lane.length - 1];
      if (last?.state === state) continue;
      if (last) last.to = at;
      lane.push({ state, from: at, to: end });
      lanes.set(taskId, lane);
    }
  }
  return lanes;
}

function initiatorOf(value: string): 'client' | 'agent' | 'unspecified' {
  return value === 'PAUSE_INITIATOR_CLIENT' ? 'client' : value === 'PAUSE_INITIATOR_AGENT' ? 'agent' : 'unspecified';
}

/** What a row shows of its suspension and of the receipts that named it, gathered line by line. */
interface Observed {
  from: number;
  to: number | null;
  rejected: number[];
  /** The last receipt's seq: a row is vouched for when a checkpoint covers it. */
  lastSeq: number;
  mode: PauseMode | null;
  span: SpanRef;
}

/**
 * Report rows and lane pauses from receipt lines taken one at a time: it keeps a row per
 * suspension (the audit collector's) and what the row shows, never the lines.
 */
class ReceiptRows {
  readonly #collector = new AuditCollector();
  readonly #observed = new Map<string, Observed>();

  add(line: ReceiptLogLine, hash: string, number: number): void {
    this.#collector.onLine({ number, line, hash });
    if (line.type === 'SuspensionReceipt') {
      this.#observed.set(hash, {
        from: Date.parse(line.observedAt),
        to: null,
        rejected: [],
        lastSeq: line.seq,
        mode: line.mode,
        span: line.span,
      });
    } else if (line.type === 'ResumptionReceipt') {
      const o = this.#observed.get(line.suspension);
      if (!o) return;
      o.lastSeq = line.seq;
      if (line.outcome === 'rejected') o.rejected.push(Date.parse(line.observedAt));
      else o.to = Date.parse(line.observedAt);
    }
  }

  /** The rows with their lost verdicts (`lostOf`: the reason, or null) and verification status. */
  build(
    lostOf: (row: AuditRow) => string | null,
    verification: (line: number, seq: number) => ReportRow['verification'],
  ): { rows: ReportRow[]; pauses: Map<string, LanePause[]> } {
    const rows: ReportRow[] = [];
    const pauses = new Map<string, LanePause[]>();
    for (const row of this.#collector.rows()) {
      const o = this.#observed.get(row.suspension);
      const lost = row.outcome === 'open' ? lostOf(row) : null;
      const ended = endedText(row);
      rows.push({
        taskId: row.taskId,
        initiator: initiatorOf(row.initiatedBy),
        principal: row.principal,
        reason: row.reason,
        mode: o?.mode ?? null,
        pausedAt: row.pausedAt,
        outcome: lost !== null ? 'lost' : row.outcome,
        ended: lost !== null ? `LOST: ${lost}` : ended,
        rejected: row.rejectedAttempts,
        receiptHash: row.suspension,
        traceId: o?.span.traceId ?? null,
        spanId: o?.span.spanId ?? null,
        verification: verification(row.line, o?.lastSeq ?? 0),
      });
      const lane = pauses.get(row.taskId) ?? [];
      lane.push({
        from: o?.from ?? Date.parse(row.pausedAt),
        to: o?.to ?? null,
        initiator: initiatorOf(row.initiatedBy),
        reason: row.reason,
        mode: null,
        ended: row.outcome === 'open' ? null : ended,
        lost,
        rejected: o?.rejected ?? [],
      });
      pauses.set(row.taskId, lane);
    }
    return { rows, pauses };
  }
}

/** A line of a receipt log as the readers read it, or undefined for one they refuse (shown by verify). */
function receiptLine(text: string): ReceiptLogLine | undefined {
  const parsed = readReceiptLogLine(JSON.parse(text) as unknown);
  return parsed.ok ? parsed.value : undefined;
}

function endedText(row: AuditRow): string {
  if (row.outcome === 'open') return 'still open';
  return [row.outcome, row.cause ? `(${row.cause})` : '', row.closedAt ? `at ${row.closedAt}` : '']
    .filter(Boolean)
    .join(' ');
}

function lanesOf(states: Map<string, LaneState[]>, pauses: Map<string, LanePause[]>): Lane[] {
  const tasks = [...new Set([...states.keys(), ...pauses.keys()])];
  return tasks.map((taskId) => ({ taskId, states: states.get(taskId) ?? [], pauses: pauses.get(taskId) ?? [] }));
}

function verdictOf(rows: readonly ReportRow[]): string {
  const lost = rows.filter((r) => r.outcome === 'lost').length;
  return `${rows.length} pause${rows.length === 1 ? '' : 's'}, ${lost} lost`;
}

/** A recording: its receipts derived as replay and record derive them (not signed). */
export async function recordingSection(file: string): Promise<ReportSection> {
  const recording = await readRecording(file, { allowTornTail: true, source: file });
  // One observer pass: the receipts, and the LostPause verdicts from the same pass's span events.
  const collector = new LostPauseCollector();
  const derived = await deriveReceiptLog({
    header: recording.header,
    entries: recording.entries,
    keyring: unsignedKeyring(),
    tool: 'a2a-replay report',
    spans: collector,
  });
  const receipts = new ReceiptRows();
  derived.lines.forEach((text, i) => {
    const line = receiptLine(text);
    if (line) receipts.add(line, sha256Prefixed(text), i + 1);
  });
  const lostByTask = new Map(collector.lost.map((l) => [l.taskId, l.reason]));
  const { rows, pauses } = receipts.build(
    (row) => lostByTask.get(row.taskId) ?? null,
    () => ({ status: 'not checked', why: 'derived from the recording; pass its receipt log to verify' }),
  );
  return {
    file,
    kind: 'recording',
    verdict: verdictOf(rows),
    causes: [],
    lanes: lanesOf(statesOf(recording.entries), pauses),
    rows,
    drift: [],
    exchanges: [],
    notes: recording.tornTail ? [`torn last line ${recording.tornTail.line} skipped`] : [],
  };
}

/**
 * A receipt log, verified first when a key is given. The file is streamed, by the verifier and
 * then for the rows, so the memory held is the rows', not the log's (docs/design.md §12).
 */
export async function receiptLogSection(file: string, keyring: Keyring | undefined): Promise<ReportSection> {
  const result = keyring ? await verifyReceiptLog(file, { keyring, allowOpen: true, allowTornTail: true }) : undefined;
  const receipts = new ReceiptRows();
  for await (const lines of readLogChunks(file)) {
    for (const raw of lines) {
      if (raw.text === null || !raw.complete || raw.text.trim() === '') continue;
      const line = receiptLine(raw.text);
      if (line) receipts.add(line, sha256Prefixed(raw.text), raw.number);
    }
  }
  const verification = (line: number, seq: number): ReportRow['verification'] => {
    if (!result) return { status: 'not checked', why: 'no key given' };
    if (!result.ok) {
      const e = result.firstError;
      return { status: 'failed', why: `line ${e?.line ?? '?'}: ${e?.reason ?? 'invalid'}` };
    }
    if (result.firstError === undefined && line > 0 && seq > result.vouched)
      return { status: 'not checked', why: 'after the last checkpoint' };
    return {
      status: 'verified',
      why: result.receiptSignatures === 'checked' ? 'signature and chain' : 'chain and checkpoint (public key)',
    };
  };
  // A suspension no resumption closed is lost as the log ends (lost-pauses.ts, OpenSuspensions).
  const { rows, pauses } = receipts.build(() => 'recording_ended', verification);
  const notes: string[] = [];
  if (result && !result.ok) notes.push(`does not verify: ${result.firstError?.message ?? 'invalid'}`);
  // An open end is shown (a recorder killed, or lines cut off), never passed for a closed log:
  // what was cut may have resumed a pause the rows show open or lost.
  const open = result?.ok === true && !result.closed;
  if (open)
    notes.push(
      `not closed by a checkpoint: ${result.vouched} of ${result.receipts} receipts vouched for; lines after ` +
        'the last checkpoint may be missing, so a pause shown open or lost may have been resumed in them',
    );
  if (result?.ok && result.tornTail !== null) notes.push(`torn last line ${result.tornTail} skipped`);
  // Verified means a signature was checked over the lines: each receipt's HMAC (--key), or the
  // Ed25519 checkpoints that cover them (--public-key). With a public key and no checkpoint,
  // nothing signed was checked: anybody could have written that log.
  const nothingSigned = result?.ok === true && result.receiptSignatures === 'unchecked' && result.checkpoints === 0;
  if (nothingSigned)
    notes.push(
      'not verified: only a public key was given and no checkpoint vouches for any receipt, so no signature ' +
        'was checked (pass --key to check the receipts themselves)',
    );
  const checked = result
    ? result.ok
      ? nothingSigned
        ? 'NOT VERIFIED (no signed checkpoint)'
        : open
          ? 'verified, OPEN'
          : 'verified'
      : 'DOES NOT VERIFY'
    : undefined;
  return {
    file,
    kind: 'receipt log',
    verdict: `${verdictOf(rows)}, ${checked ?? 'not verified (no key)'}`,
    causes: [],
    lanes: lanesOf(new Map(), pauses),
    rows,
    drift: [],
    exchanges: [],
    notes,
  };
}

const brief = (v: JsonValue | undefined): string => (v === undefined ? '(absent)' : JSON.stringify(v));

/** A replay (`run --html`): the verdict, the likely cause, expected vs actual, and the recording's lanes. */
export async function replaySection(result: RecordingResult): Promise<ReportSection> {
  let recorded: ReportSection | undefined;
  try {
    recorded = await recordingSection(result.recording);
  } catch {
    recorded = undefined;
  }
  return {
    file: result.recording,
    kind: 'replay',
    verdict:
      result.outcome === 'match'
        ? 'PASS'
        : result.outcome === 'drift'
          ? 'DRIFT'
          : `${result.outcome.toUpperCase()}${result.error ? `: ${result.error.message}` : ''}`,
    causes: result.causes,
    lanes: recorded?.lanes ?? [],
    rows: recorded?.rows ?? [],
    drift: (result.receipts?.differences ?? []).map((d) => ({
      path: d.path,
      expected: brief(d.expected),
      actual: brief(d.actual),
    })),
    exchanges: result.drift.map(describeDrift),
    notes: result.notes,
  };
}
