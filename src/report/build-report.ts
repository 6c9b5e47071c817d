/**
 * @module report/build-report
 * Gathers what the HTML report shows (docs/design.md §12) from recordings, receipt logs and
 * replay results: each task's states over recorded time, each pause with its initiator, end,
 * rejected attempts and lost verdict, and the audit rows with their receipt hashes, span ids and
 * verification status. The lost verdicts are the observer's own (the LostPause spans `lost`
 * lists), so the report never disagrees with `lost`, `audit` or Jaeger.
 */
import { type JsonValue, sha256Prefixed } from '../canonical/canonical-json.js';
import { EntryVersions } from '../observe/entry-versions.js';
import { stateFromV03 } from '../protocol/methods.js';
import { VerdictRules } from '../observe/verdict-rules.js';
import type { RulesOf, VersionsOf } from '../receipts/audit.js';
import type { Keyring } from '../receipts/keys.js';
import { readLogChunks } from '../receipts/log-reader.js';
import { readReceiptLogLine } from '../receipts/read-line.js';
import { describeVerification } from '../logs/describe-verification.js';
import { type VerifyResult, verifyReceiptLog } from '../receipts/verify.js';
import type { RecordingEntry } from '../recording/format.js';
import type { ReceiptLogLine } from '../receipts/types.js';
import { readRecording } from '../recording/recording-reader.js';
import { deriveReceiptLog, unsignedKeyring } from '../replay/derive-receipts.js';
import { errorMessage } from '../errors.js';
import { describeDrift } from '../replay/reporters/text.js';
import type { RecordingResult } from '../replay/result.js';
import { LostPauseCollector } from '../observe/lost-pauses.js';
import { type RecordingGaps, gapNotes, gapsOfFindings, gapsWord } from '../logs/recording-gaps.js';
import type { Lane, LanePause, LaneState, ReportRow, ReportSection, UnlistedPauses } from './html-report.js';
import { REPORT_LISTED_PAUSES, ReceiptRows, type ShownPause } from './receipt-rows.js';
import { type InterruptionRow, type InterruptionVerdict, InterruptionRows } from './interruption-rows.js';

/** A receipt log alone: an interruption no continuation closed is lost as the log ends (as `lost` says). */
const neverContinued = (): InterruptionVerdict => ({ reason: 'never_continued', rule: null });

type Obj = { [key: string]: JsonValue };
const obj = (v: JsonValue | undefined): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;

/** (task, state) pairs an answer or event shows, in either dialect; a legacy pause envelope counts as PAUSED. */
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
    // A v0.3 JSON-RPC status names its state in lowercase kebab (`input-required`).
    let state =
      typeof status?.state === 'string'
        ? stateFromV03(status.state)
        : typeof o.state === 'string'
          ? o.state
          : undefined;
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

/** A line of a receipt log as the readers read it, or undefined for one they refuse (shown by verify). */
export function receiptLine(text: string): ReceiptLogLine | undefined {
  const parsed = readReceiptLogLine(JSON.parse(text) as unknown);
  return parsed.ok ? parsed.value : undefined;
}

/** The lanes: the recording's task states, each with its pauses (a loop: one push per pause). */
export function lanesOf(states: Map<string, LaneState[]>, shown: readonly ShownPause[]): Lane[] {
  const pauses = new Map<string, LanePause[]>();
  for (const { row, lane } of shown) {
    const list = pauses.get(row.taskId);
    if (list) list.push(lane);
    else pauses.set(row.taskId, [lane]);
  }
  const tasks = new Set(states.keys());
  for (const taskId of pauses.keys()) tasks.add(taskId);
  const lanes: Lane[] = [];
  for (const taskId of tasks)
    lanes.push({ taskId, states: states.get(taskId) ?? [], pauses: pauses.get(taskId) ?? [] });
  return lanes;
}

/** `N pauses, M lost`, the pauses counted and not listed among N (they ended, so none is lost). */
export function verdictOf(rows: readonly ReportRow[], unlisted?: UnlistedPauses): string {
  let lost = 0;
  for (const r of rows) if (r.outcome === 'lost') lost++;
  const n = rows.length + (unlisted?.count ?? 0);
  return `${n} pause${n === 1 ? '' : 's'}, ${lost} lost`;
}

/** The note a section with pauses counted and not listed says it in, or none. */
function unlistedNote(unlisted: UnlistedPauses): string[] {
  if (unlisted.count === 0) return [];
  const ended = Object.entries(unlisted.outcomes)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(', ');
  return [
    `${unlisted.count} more ${unlisted.count === 1 ? 'pause' : 'pauses'} counted and not listed (${ended}): ` +
      `the first ${REPORT_LISTED_PAUSES} and every one open or lost are listed`,
  ];
}

/** `section` with its pauses counted and not listed, and the note that says so. */
function withUnlisted(section: ReportSection, unlisted: UnlistedPauses): ReportSection {
  if (unlisted.count === 0) return section;
  return { ...section, notes: [...unlistedNote(unlisted), ...section.notes], unlisted: { ...unlisted } };
}

export const rowsOf = (pauses: readonly ShownPause[]): ReportRow[] => {
  const rows: ReportRow[] = [];
  for (const p of pauses) rows.push(p.row);
  return rows;
};

/** What a recording shows: its id, its task states, and its pauses derived as replay and record derive them. */
interface RecordingData {
  id: string;
  states: Map<string, LaneState[]>;
  pauses: ShownPause[];
  notes: string[];
  /** The rules that decided each pause, by Suspension span (a receipt log's rows are matched by it). */
  rulesOf: RulesOf;
  interruptions: InterruptionRow[];
  /** The observer's lost-interruption verdicts, by the interruption's span id. */
  lostInterruptions: Map<string, InterruptionVerdict>;
  /** Its pauses counted and not listed. */
  unlisted: UnlistedPauses;
  /** Where the observer could not follow the peer, as `lost` names it (docs/design.md §14.2). */
  gaps: RecordingGaps;
}

/** The rules of each pause of a recording: a second observer run over its entries (§14.8). */
function rulesOfEntries(id: string, entries: readonly RecordingEntry[], createdAt: string): RulesOf {
  const rules = new VerdictRules(id);
  for (const entry of entries) rules.observe(entry);
  rules.finish(entries.at(-1)?.at ?? createdAt);
  return (span) => rules.of(span);
}

async function recordingData(file: string, listed = REPORT_LISTED_PAUSES): Promise<RecordingData> {
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
  const receipts = new ReceiptRows({ listed });
  const interrupted = new InterruptionRows();
  derived.lines.forEach((text, i) => {
    const line = receiptLine(text);
    if (!line) return;
    const hash = sha256Prefixed(text);
    receipts.add(line, hash, i + 1);
    interrupted.add(line, hash, i + 1);
  });
  const lostInterruptions = new Map(
    collector.lostInterruptions.map((l) => [l.span.spanId, { reason: l.reason, rule: l.rule }]),
  );
  const lostByTask = new Map(collector.lost.map((l) => [l.taskId, l.reason]));
  const rulesOf = rulesOfEntries(recording.header.id, recording.entries, recording.header.createdAt);
  const versions = new EntryVersions();
  for (const entry of recording.entries) versions.add(entry);
  const versionsOf: VersionsOf | undefined = versions.named ? (seqs) => versions.ofEntries(seqs) : undefined;
  const pauses = receipts.build(
    (row) => lostByTask.get(row.taskId) ?? null,
    () => ({ status: 'not checked', why: 'derived from the recording; pass its receipt log to verify' }),
    rulesOf,
    versionsOf,
  );
  // A recording has no empty line: entry i is on line i + 2.
  const lineOf = new Map(recording.entries.map((e, i) => [e.seq, i + 2]));
  const gaps = gapsOfFindings(derived.findings, (seq) => lineOf.get(seq) ?? 0, { cutCounts: true });
  const torn = recording.tornTail ? [`torn last line ${recording.tornTail.line} skipped`] : [];
  return {
    id: recording.header.id,
    states: statesOf(recording.entries),
    pauses,
    notes: [...torn, ...gapNotes(file, gaps)],
    gaps,
    rulesOf,
    interruptions: interrupted.build((span) => lostInterruptions.get(span.spanId) ?? null, versionsOf),
    lostInterruptions,
    unlisted: receipts.unlisted,
  };
}

/** What a receipt log says, verified first when a key is given. */
interface LogData {
  /** The log header's `recording`: the id of the recording it was made from, or null. */
  recording: string | null;
  pauses: ShownPause[];
  notes: string[];
  /** `verified`, `verified, OPEN`, `DOES NOT VERIFY`, `not verified (no key)`, ... */
  checked: string;
  interruptions: InterruptionRows;
  /** Its rows, for the pauses counted and not listed and their keys. */
  receipts: ReceiptRows;
}

/** How a row of a log verified as `result` says (`undefined`: no key given), by its line and last seq. */
export function verificationOf(
  result: VerifyResult | undefined,
): (line: number, seq: number) => ReportRow['verification'] {
  return (line, seq) => {
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
}

/** What a log verified as `result` adds to its section's notes, and its verdict's word (describeVerification). */
export function logChecks(result: VerifyResult | undefined): { notes: string[]; checked: string } {
  if (result === undefined) return { notes: [], checked: 'not verified (no key)' };
  const { notes, word } = describeVerification(result);
  return { notes, checked: word };
}

/**
 * A receipt log's pauses. The file is streamed, by the verifier and then for the rows, so the
 * memory held is the rows', not the log's (docs/design.md §12). A log holds no rule: its rows
 * have rules only from `rulesOf`, its recording's (§14.8).
 */
async function logData(file: string, keyring: Keyring | undefined, rulesOf?: RulesOf): Promise<LogData> {
  const result = keyring ? await verifyReceiptLog(file, { keyring, allowOpen: true, allowTornTail: true }) : undefined;
  // Joined with its recording (`rulesOf` given), the keys of the pauses not listed say they are in the log.
  const receipts = new ReceiptRows({ listed: REPORT_LISTED_PAUSES, keys: rulesOf !== undefined });
  const interruptions = new InterruptionRows();
  let recording: string | null = null;
  for await (const lines of readLogChunks(file)) {
    for (const raw of lines) {
      if (raw.text === null || !raw.complete || raw.text.trim() === '') continue;
      const line = receiptLine(raw.text);
      if (!line) continue;
      if (line.type === 'ReceiptLog') recording = line.recording;
      const hash = sha256Prefixed(raw.text);
      receipts.add(line, hash, raw.number);
      interruptions.add(line, hash, raw.number);
    }
  }
  const verification = verificationOf(result);
  // A suspension no resumption closed is lost as the log ends (lost-pauses.ts, OpenSuspensions).
  const pauses = receipts.build(() => 'recording_ended', verification, rulesOf);
  const { notes, checked } = logChecks(result);
  return { recording, pauses, notes, checked, interruptions, receipts };
}

export function sectionOf(
  file: string,
  kind: ReportSection['kind'],
  verdict: string,
  lanes: Lane[],
  rows: ReportRow[],
  notes: string[],
): ReportSection {
  return { file, kind, verdict, causes: [], lanes, rows, drift: [], exchanges: [], notes };
}

/** A recording: its receipts derived as replay and record derive them (not signed). */
export async function recordingSection(file: string): Promise<ReportSection> {
  const data = await recordingData(file);
  const rows = rowsOf(data.pauses);
  const verdict = `${verdictOf(rows, data.unlisted)}${gapsWord(data.gaps)}`;
  const section = sectionOf(file, 'recording', verdict, lanesOf(data.states, data.pauses), rows, data.notes);
  return withInterruptions(withUnlisted(section, data.unlisted), data.interruptions);
}

/**
 * A receipt log, verified first when a key is given. The file is streamed, by the verifier and
 * then for the rows, so the memory held is the rows', not the log's (docs/design.md §12).
 */
export async function receiptLogSection(file: string, keyring: Keyring | undefined): Promise<ReportSection> {
  const data = await logData(file, keyring);
  const rows = rowsOf(data.pauses);
  const interruptions = data.interruptions.build(neverContinued);
  const verdict = `${verdictOf(rows, data.receipts.unlisted)}, ${data.checked}`;
  const section = sectionOf(file, 'receipt log', verdict, lanesOf(new Map(), data.pauses), rows, data.notes);
  return withInterruptions(withUnlisted(section, data.receipts.unlisted), interruptions);
}

/**
 * A recording and its receipt log (the log's header names the recording's id) as one view: each
 * pause once, as the log says it (its hash, verification, lost verdict), and the pauses only the
 * recording shows added, marked as such; the lanes' states come from the recording. The log is
 * streamed as alone; of the recording's pauses only the keys of the log's are looked up.
 */
export async function joinedSection(
  recordingFile: string,
  logFile: string,
  keyring: Keyring | undefined,
): Promise<ReportSection> {
  // Every pause of the recording: one the log does not hold is listed as only in the recording.
  const recording = await recordingData(recordingFile, Number.POSITIVE_INFINITY);
  const log = await logData(logFile, keyring, recording.rulesOf);
  if (log.recording !== recording.id)
    throw new Error(
      `${logFile}: its header names recording ${JSON.stringify(log.recording)}, ` +
        `not ${JSON.stringify(recording.id)} of ${recordingFile}; they are not joined`,
    );
  const inLog = new Set<string>();
  for (const p of log.pauses) inLog.add(p.key);
  const pauses = log.pauses;
  let only = 0;
  for (const p of recording.pauses) {
    if (inLog.has(p.key) || log.receipts.releasedKey(p.key)) continue;
    only++;
    pauses.push({
      ...p,
      row: { ...p.row, verification: { status: 'not checked', why: 'only in the recording, not in its receipt log' } },
    });
  }
  const rows = rowsOf(pauses);
  const notes = [
    `joined: the recording ${recordingFile} and its receipt log ${logFile} (recording id ${recording.id}); ` +
      'each pause is shown once, as the receipt log says it',
  ];
  if (only > 0)
    notes.push(`${only} ${only === 1 ? 'pause is' : 'pauses are'} only in the recording, not in its receipt log`);
  for (const n of recording.notes) notes.push(n);
  for (const n of log.notes) notes.push(n);
  // The interruptions as the log says them; a lost one with the reason and rule the recording gives.
  const interruptions = log.interruptions.build(
    (span) => recording.lostInterruptions.get(span.spanId) ?? neverContinued(),
  );
  const section = sectionOf(
    `${recordingFile} + ${logFile}`,
    'recording + receipt log',
    `${verdictOf(rows, log.receipts.unlisted)}, ${log.checked}${gapsWord(recording.gaps)}`,
    lanesOf(recording.states, pauses),
    rows,
    notes,
  );
  return withInterruptions(withUnlisted(section, log.receipts.unlisted), interruptions);
}

/** `section` with its interruptions, and their count in its verdict when there are any. */
function withInterruptions(section: ReportSection, interruptions: InterruptionRow[]): ReportSection {
  if (interruptions.length === 0) return section;
  let lost = 0;
  for (const r of interruptions) if (r.outcome === 'lost') lost++;
  const count = `${interruptions.length} interruption${interruptions.length === 1 ? '' : 's'}, ${lost} lost`;
  return { ...section, verdict: `${section.verdict}; ${count}`, interruptions };
}

/** A file given to the report: its kind, and the recording id it names (a log's `recording`). */
export interface ReportInput {
  file: string;
  kind: 'recording' | 'receipt log';
  /** A recording header's `id`, a receipt log header's `recording`; null when absent. */
  id: string | null;
}

/** What the report shows of its inputs, in their order: a recording and its log joined, the rest alone. */
export type ReportPart =
  | { kind: 'joined'; recording: ReportInput; log: ReportInput }
  | { kind: 'alone'; input: ReportInput; note: string | null };

/**
 * Pairs each recording with the first receipt log not yet paired whose header names its id; a
 * pair takes the place of whichever of the two comes first. A file left alone while files of the
 * other kind were given says why it was not joined.
 */
export function pairReportInputs(inputs: readonly ReportInput[]): ReportPart[] {
  const logOf = new Map<ReportInput, ReportInput>();
  const used = new Set<ReportInput>();
  for (const r of inputs) {
    if (r.kind !== 'recording' || r.id === null) continue;
    const log = inputs.find((l) => l.kind === 'receipt log' && l.id === r.id && !used.has(l));
    if (!log) continue;
    used.add(log);
    logOf.set(r, log);
  }
  const recordingOf = new Map([...logOf].map(([r, l]) => [l, r]));
  const parts: ReportPart[] = [];
  const done = new Set<ReportInput>();
  const has = (kind: ReportInput['kind']): boolean => inputs.some((i) => i.kind === kind);
  const id = (i: ReportInput): string => (i.id === null ? 'none' : i.id);
  for (const input of inputs) {
    if (done.has(input)) continue;
    const other = input.kind === 'recording' ? logOf.get(input) : recordingOf.get(input);
    if (other) {
      done.add(other);
      const [recording, log] = input.kind === 'recording' ? [input, other] : [other, input];
      parts.push({ kind: 'joined', recording, log });
      continue;
    }
    let note: string | null = null;
    if (input.kind === 'recording' && has('receipt log'))
      note = `not joined: no receipt log given and left unjoined names this recording's id (${id(input)})`;
    if (input.kind === 'receipt log' && has('recording'))
      note = `not joined: no recording given and left unjoined has this log's recording id (${id(input)})`;
    parts.push({ kind: 'alone', input, note });
  }
  return parts;
}

/** A file given to the report could not be read; the message names it. */
export class ReportInputError extends Error {
  override name = 'ReportInputError';
}

/** The sections of a report over recordings and receipt logs, a recording and its log joined. */
export async function fileSections(
  inputs: readonly ReportInput[],
  keyring: Keyring | undefined,
): Promise<ReportSection[]> {
  const sections: ReportSection[] = [];
  for (const part of pairReportInputs(inputs)) {
    const files = part.kind === 'joined' ? `${part.recording.file} + ${part.log.file}` : part.input.file;
    try {
      if (part.kind === 'joined') {
        sections.push(await joinedSection(part.recording.file, part.log.file, keyring));
        continue;
      }
      const { input, note } = part;
      const s =
        input.kind === 'recording' ? await recordingSection(input.file) : await receiptLogSection(input.file, keyring);
      if (note !== null) s.notes.unshift(note);
      sections.push(s);
    } catch (error) {
      throw new ReportInputError(`${files}: ${errorMessage(error)}`);
    }
  }
  return sections;
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
    notes: recorded?.unlisted ? [...unlistedNote(recorded.unlisted), ...result.notes] : result.notes,
    ...(recorded?.interruptions ? { interruptions: recorded.interruptions } : {}),
    ...(recorded?.unlisted ? { unlisted: recorded.unlisted } : {}),
  };
}
