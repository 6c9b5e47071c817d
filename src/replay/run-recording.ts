/**
 * @module replay/run-recording
 * One recording, start to finish (docs/design.md §8): read it, open a live peer, re-drive it, derive the
 * receipts from the replayed entries, and diff them against the golden log — or, with `update`,
 * write the golden log. Every failure becomes a {@link RecordingResult} with its outcome, so a
 * corpus run reports every recording; nothing here exits the process.
 *
 * Golden receipts default to `X.receipts.jsonl` beside `X.jsonl`. A missing or malformed golden
 * file (named with its line) is `malformed` unless updating. Exchange drift alone (receipts equal)
 * is drift too: the peer answered differently even if no pause changed.
 */
import { readFile } from 'node:fs/promises';
import { type Clock, systemClock } from '../clock.js';
import type { JsonValue } from '../canonical/canonical-json.js';
import { A2aReplayError, errorMessage, isInfrastructureError } from '../errors.js';
import { fetchAgentCard } from '../http/agent-card-fetch.js';
import { writeOutputFile } from '../output-file.js';
import { referencePeerSettingsOf } from '../peer/agent-card.js';
import { formatIssue } from '../protocol/read.js';
import type { Keyring } from '../receipts/keys.js';
import { readReceiptLogLine } from '../receipts/read-line.js';
import { REPLAY_MAX_BODY_DEPTH, type RecordingEntry, type RecordingHeader } from '../recording/format.js';
import { type RecordingLineRead, readRecordingFile } from '../recording/recording-reader.js';
import { serializeLine } from '../recording/recording-writer.js';
import { Redactor } from '../recording/redaction.js';
import { SeenTokens, redactOverCapText, replaceResumeTokens } from '../recording/resume-token.js';
import type { SpanSink } from '../tracing/span-events.js';
import { readRecordingBinding } from '../receipts/recording-binding.js';
import type { ReceiptLogVersion, RecordingBinding } from '../receipts/types.js';
import { DEFAULT_SEGMENT_ENTRIES } from './segments.js';
import {
  ReceiptDeriver,
  checkpointIntervalOf,
  deriveReceiptLog,
  logVersionOf,
  unsignedKeyring,
} from './derive-receipts.js';
import type { NoiseRules } from './content.js';
import { diffReceiptLogs } from './diff.js';
import { type DriveResult, driveRecordingStream } from './driver.js';
import { addTrafficCauses, cardCauses, interruptionCauses, timingCauses } from './likely-cause.js';
import { recordedAgentCard } from './recorded-peer.js';
import type { VirtualPeerClock } from '../peer/virtual-peer-clock.js';
import { RECORDED_PACE, type ReplayPace } from './pace.js';
import type { RecordingResult } from './result.js';

/** A live peer for one recording. */
export interface LivePeer {
  url: string;
  /** An infrastructure error once the peer died (spawned peers only). */
  failure?: () => A2aReplayError | undefined;
  /**
   * True for the embedded reference peer `run` starts when given no peer: a recording made
   * against another agent cannot replay on it, which is then the first likely cause.
   */
  embedded?: boolean;
  /**
   * The peer's virtual clock: the embedded peer replaying a session of a real-time reference peer
   * runs on the recording's clock (docs/design.md §8).
   */
  peerClock?: VirtualPeerClock;
  close(): Promise<void>;
}

export interface RunRecordingOptions {
  /**
   * Opens a fresh peer for this recording (its header's agent card, or a card its entries hold,
   * tells how the recorded peer was set up).
   */
  openPeer: (entries: readonly RecordingEntry[], header: RecordingHeader) => Promise<LivePeer>;
  /** Golden receipt log; default `goldenPathFor(file)`. */
  golden?: string;
  update?: boolean;
  strict?: boolean;
  /** The golden log's key; undefined compares unsigned content. */
  keyring?: Keyring;
  timeoutMs?: number;
  tool: string;
  clock?: Clock;
  /** A span sink for this recording's trace (`--otlp`, `--traces`); flushed by the caller. */
  spans?: (header: RecordingHeader, file: string) => SpanSink | undefined;
  onProgress?: (settled: number, total: number) => void;
  /** Paths never compared, per method (`a2a-replay.config.json`). */
  noise?: NoiseRules;
  /** Paths never compared for any method (`--ignore`). */
  ignore?: readonly string[];
  /**
   * Where the recorded gRPC calls go (`HOST:PORT`); default the GRPC interface of the live peer's
   * agent card (docs/design.md §8).
   */
  grpcPeer?: string;
  /** Least entries of a replay segment (src/replay/segments.ts); default a few thousand. */
  segmentEntries?: number;
  /** Stops the replay at once: the result is `stopped`, with what was found up to there. */
  signal?: AbortSignal;
  /**
   * How requests are spaced against a live peer (default {@link RECORDED_PACE}: as recorded); the
   * embedded peer runs on the recording's own clock and takes none (docs/design.md §8).
   */
  pace?: ReplayPace;
}

/**
 * The first likely cause when the embedded reference peer replays a recording whose card is
 * another agent's: nothing else can be right, so the user is told to pass that agent.
 */
function otherAgentCause(card: JsonValue | undefined): string | undefined {
  if (card === undefined || referencePeerSettingsOf(card) !== undefined) return undefined;
  const name = card !== null && typeof card === 'object' && !Array.isArray(card) ? card.name : undefined;
  const agent = typeof name === 'string' && name !== '' ? `another agent (${JSON.stringify(name)})` : 'another agent';
  return (
    `another agent: the recording was made against ${agent}, not the reference peer run starts by default; ` +
    'pass --peer URL (or --peer-cmd CMD) to replay it against that agent'
  );
}

/**
 * The replayed entries (already in the recording's identity) as the recorder would have written
 * them, renumbered 1..n in their order: resume tokens as placeholders, in parsed bodies and in
 * bodies kept as text (docs/design.md §8), and secrets (headers, URLs, JSON members) marked by the
 * recorder's default rule under a fresh mark key of this rewrite.
 *
 * Replay keeps the live peer's real tokens (it sends them back), so a live answer kept as text
 * (not JSON, nested deeper than replay walks, or over the observation cap) holds them as they came:
 * every `bodyText` goes through {@link redactOverCapText} with the tokens seen in every parsed body
 * of the run (the last 64 it saw), a `resumeToken` member in the text being replaced
 * whether seen or not, and a token cut short at the end of a cut text removed.
 */
function rewrittenEntries(replayed: readonly RecordingEntry[]): RecordingEntry[] {
  const seen = new SeenTokens();
  const redactor = new Redactor();
  const entries = replayed.map((entry, i): RecordingEntry => {
    const copy: RecordingEntry = {
      ...entry,
      seq: i + 1,
      http: { ...entry.http, path: redactor.path(entry.http.path) },
    };
    if (copy.http.headers) copy.http.headers = redactor.headers(copy.http.headers);
    if (copy.body !== undefined) {
      const body = structuredClone(copy.body);
      copy.body = redactor.json(replaceResumeTokens(body, JSON.stringify(body), seen));
    }
    return copy;
  });
  // Every body first, so a text is cleared of a token a later body shows too.
  for (const entry of entries) {
    if (entry.bodyText !== undefined)
      entry.bodyText = redactor.bodyText(redactOverCapText(entry.bodyText, seen, entry.cut !== undefined));
  }
  return entries;
}

/** Writes {@link rewrittenEntries} as the recording `file`: canonical lines, mode 0600, replaced atomically. */
async function rewriteRecording(
  file: string,
  header: RecordingHeader,
  replayed: readonly RecordingEntry[],
): Promise<RecordingEntry[]> {
  const entries = rewrittenEntries(replayed);
  await writeOutputFile(file, [header, ...entries].map((line) => serializeLine(line)).join(''));
  return entries;
}

/**
 * The pace against `peer` (docs/design.md §8, "Time against a live peer"): none for the embedded
 * peer, which runs on the recording's clock, nor for a deterministic reference peer (its card
 * says so), whose tasks move only with the recording's AdvanceClock calls; `pace`, else
 * {@link RECORDED_PACE}, for any other.
 */
export function livePace(
  peer: LivePeer,
  liveCard: JsonValue | undefined,
  pace: ReplayPace | undefined,
): { pace?: ReplayPace } {
  if (peer.embedded === true || peer.peerClock !== undefined) return {};
  if (referencePeerSettingsOf(liveCard)?.deterministic === true) return {};
  return { pace: pace ?? RECORDED_PACE };
}

/** `X.receipts.jsonl` beside `X.jsonl`. */
export function goldenPathFor(file: string): string {
  return file.endsWith('.jsonl') ? `${file.slice(0, -'.jsonl'.length)}.receipts.jsonl` : `${file}.receipts.jsonl`;
}

/** Reads a golden log as lines, checking each; a bad line is RECORDING_MALFORMED naming file:line. */
export async function readGoldenLines(path: string): Promise<string[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new A2aReplayError(
      'IO_FAILED',
      `${path}: cannot read the golden receipts (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new A2aReplayError('RECORDING_MALFORMED', `${path}:${i + 1}: not valid JSON`);
    }
    const read = readReceiptLogLine(value);
    if (!read.ok) throw new A2aReplayError('RECORDING_MALFORMED', `${path}:${i + 1}: ${formatIssue(read.issue)}`);
    if (i === 0 && read.value.type !== 'ReceiptLog')
      throw new A2aReplayError('RECORDING_MALFORMED', `${path}:1: the first line is not a ReceiptLog header`);
  });
  return lines;
}

/** The result of a failure: infrastructure or malformed input, as the error says. */
export function failed(result: RecordingResult, error: unknown): RecordingResult {
  if (error instanceof A2aReplayError) {
    return {
      ...result,
      outcome: isInfrastructureError(error) ? 'infrastructure' : 'malformed',
      error: { code: error.code, message: error.message },
    };
  }
  const message = errorMessage(error);
  return { ...result, outcome: 'infrastructure', error: { code: 'INTERNAL', message } };
}

/** Gives a dying peer process a moment to be seen dead; its failure, or undefined. */
async function waitForFailure(
  failure: () => A2aReplayError | undefined,
  ms = 1000,
): Promise<A2aReplayError | undefined> {
  for (let waited = 0; waited <= ms; waited += 50) {
    const f = failure();
    if (f) return f;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** The result of a recording before anything is known of it: a match with nothing in it. */
export function emptyResult(file: string, golden: string): RecordingResult {
  return {
    recording: file,
    recordingId: null,
    golden,
    outcome: 'match',
    exchanges: 0,
    entries: 0,
    liveEntries: 0,
    durationMs: 0,
    receipts: null,
    drift: [],
    timelines: [],
    update: null,
    error: null,
    notes: [],
    causes: [],
  };
}

/** What a replay says beside its verdict: what was not compared, what was mapped or sent unusually. */
export function driveNotes(drive: DriveResult, signed: boolean): string[] {
  const notes: string[] = [];
  if (!signed)
    notes.push('no key given: receipt content compared, signatures and key ids not (pass --key to compare them)');
  // Said only when an id differed: the resume tokens always do (the recording holds placeholders).
  if (drive.ids.remappedIds > 0)
    notes.push(`${drive.ids.remapped} ids and tokens minted by the live peer were mapped to the recorded ones`);
  notes.push(...drive.notes);
  if (drive.ids.conflicts.length > 0) {
    notes.push(`${drive.ids.conflicts.length} id pairs contradicted earlier ones and were ignored`);
  }
  return notes;
}

/**
 * The URL (`HOST:PORT`) of the first GRPC interface an agent card lists, if any: v1.0's
 * `supportedInterfaces[].protocolBinding`, v0.3's `additionalInterfaces[].transport`, or a v0.3
 * card's own `url` when its `preferredTransport` is GRPC.
 */
export function grpcInterfaceOf(card: JsonValue | undefined): string | undefined {
  if (card === null || typeof card !== 'object' || Array.isArray(card)) return undefined;
  if (card.preferredTransport === 'GRPC' && typeof card.url === 'string' && card.url !== '') return card.url;
  for (const key of ['supportedInterfaces', 'additionalInterfaces']) {
    const interfaces = card[key];
    if (!Array.isArray(interfaces)) continue;
    for (const item of interfaces) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
      const binding = item.protocolBinding ?? item.transport;
      if (binding === 'GRPC' && typeof item.url === 'string' && item.url !== '') return item.url;
    }
  }
  return undefined;
}

/**
 * The result of a replay a signal stopped (SIGINT, SIGTERM): what it found up to there, said to be
 * partial; the receipts are not compared (the log of a part says nothing of the whole).
 */
export function stoppedResult(result: RecordingResult, settled: number): RecordingResult {
  const message = `the run was stopped after ${settled} of ${result.entries} entries: this result is partial`;
  return { ...result, outcome: 'stopped', error: { code: 'STOPPED', message } };
}

/** What `--update` writes from: the replay, the log it derived and the shape of the golden log. */
interface UpdateSource {
  header: RecordingHeader;
  drive: DriveResult;
  lines: readonly string[];
  shape: { checkpointEvery?: number; version?: ReceiptLogVersion };
}

/**
 * `--update`: writes the golden log from the replay. On exchange drift the live answers become the
 * recording's expectations, so the next run passes; the golden receipts are then derived from
 * exactly that file.
 */
async function updateGolden(
  file: string,
  golden: string,
  goldenLines: readonly string[] | undefined,
  source: UpdateSource,
  options: RunRecordingOptions,
): Promise<{ update: NonNullable<RecordingResult['update']>; notes: string[] }> {
  const { header, drive, shape } = source;
  let lines = source.lines;
  const notes: string[] = [];
  if (drive.driftCount > 0) {
    const entries = await rewriteRecording(file, header, drive.replayed);
    const derived = await deriveReceiptLog({
      header,
      entries,
      keyring: options.keyring ?? unsignedKeyring(),
      tool: options.tool,
      ...shape,
      recording: await readRecordingBinding(file),
    });
    lines = derived.lines;
    const n = drive.driftCount;
    notes.push(`${file}: rewritten from the live answers (${n} exchange drift${n === 1 ? '' : 's'})`);
  }
  const changes = goldenLines === undefined ? [] : diffReceiptLogs(goldenLines, lines, { strict: true }).differences;
  await writeOutputFile(golden, `${lines.join('\n')}\n`);
  return { update: { created: goldenLines === undefined, changes }, notes };
}

/** A recording opened as a stream: its header, its first entries read, and an iterable of all its entries. */
interface RecordingStream {
  header: RecordingHeader;
  /** The first entries (up to a segment's worth): where a card the session fetched is looked for. */
  head: RecordingEntry[];
  entries: AsyncIterable<RecordingEntry>;
}

/** Opens `file` as a stream of entries, read once, as the replay goes (src/replay/segments.ts). */
async function openRecordingStream(file: string): Promise<RecordingStream> {
  const lines = readRecordingFile(file, { maxBodyDepth: REPLAY_MAX_BODY_DEPTH });
  const first = await lines.next();
  if (first.done || first.value.kind !== 'header')
    throw new A2aReplayError('RECORDING_MALFORMED', `${file}:1: the recording has no header line`);
  const header = first.value.header;
  const head: RecordingEntry[] = [];
  let rest: IteratorResult<RecordingLineRead> | undefined;
  while (head.length < DEFAULT_SEGMENT_ENTRIES) {
    rest = await lines.next();
    if (rest.done) break;
    if (rest.value.kind === 'entry') head.push(rest.value.entry);
    rest = undefined;
  }
  async function* entries(): AsyncGenerator<RecordingEntry> {
    yield* head.splice(0);
    if (rest?.done) return;
    for await (const read of lines) if (read.kind === 'entry') yield read.entry;
  }
  return { header, head: [...head], entries: entries() };
}

/** Replays one recording and compares (or updates) its golden receipts. */
export async function runRecording(file: string, options: RunRecordingOptions): Promise<RecordingResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const golden = options.golden ?? goldenPathFor(file);
  let result = emptyResult(file, golden);
  const done = (r: RecordingResult): RecordingResult => ({ ...r, durationMs: clock.now() - started });
  let recording: RecordingStream;
  let goldenLines: string[] | undefined;
  let binding: RecordingBinding;
  try {
    recording = await openRecordingStream(file);
    result.recordingId = recording.header.id;
    binding = await readRecordingBinding(file);
    result.entries = binding.lines - 1;
    goldenLines = await readGoldenLines(golden);
    if (goldenLines === undefined && !options.update) {
      throw new A2aReplayError(
        'RECORDING_MALFORMED',
        `${golden}: no golden receipts (run with --update to create them)`,
      );
    }
  } catch (error) {
    return done(failed(result, error));
  }

  let peer: LivePeer | undefined;
  try {
    const { header } = recording;
    peer = await options.openPeer(recording.head, header);
    const currentPeer = peer;
    const card = recordedAgentCard(recording.head, header);
    const other = peer.embedded ? otherAgentCause(card) : undefined;
    const liveCard = await fetchAgentCard(peer.url);
    result.causes = [...(other ? [other] : []), ...cardCauses(card, liveCard)];
    const grpcPeer = options.grpcPeer ?? grpcInterfaceOf(liveCard);
    const signed = options.keyring !== undefined;
    const spans = options.spans?.(header, file);
    const checkpointEvery = goldenLines === undefined ? undefined : checkpointIntervalOf(goldenLines);
    // The log is derived as its golden was written: in its format version, closed with the
    // recording file's binding (docs/design.md §6).
    const version = goldenLines === undefined ? undefined : logVersionOf(goldenLines);
    const shape = {
      ...(checkpointEvery !== undefined ? { checkpointEvery } : {}),
      ...(version !== undefined ? { version } : {}),
    };
    // Receipts are derived as the segments settle, in recorded order (docs/design.md §8).
    const deriver = new ReceiptDeriver({
      header,
      keyring: options.keyring ?? unsignedKeyring(),
      tool: options.tool,
      ...(spans ? { spans } : {}),
      ...shape,
      recording: binding,
    });
    const traffic = new Map<string, string>();
    const drive = await driveRecordingStream(recording.entries, {
      peerUrl: peer.url,
      clock,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(currentPeer.failure ? { peerFailure: currentPeer.failure } : {}),
      ...(options.noise ? { noise: options.noise } : {}),
      ...(options.ignore ? { ignore: options.ignore } : {}),
      ...(grpcPeer !== undefined ? { grpcPeer } : {}),
      ...(currentPeer.peerClock ? { peerClock: currentPeer.peerClock } : {}),
      ...(options.segmentEntries !== undefined ? { segmentEntries: options.segmentEntries } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      totalEntries: result.entries,
      firstExtraSeq: binding.lines,
      keepReplayed: options.update ?? false,
      onSegment: (replayed, recorded) => {
        for (const entry of replayed) deriver.push(entry);
        addTrafficCauses(traffic, replayed, recorded);
      },
      ...livePace(currentPeer, liveCard, options.pace),
    });
    result = {
      ...result,
      exchanges: drive.exchanges,
      liveEntries: drive.liveEntries,
      drift: drive.drift,
      timelines: drive.timelines,
      causes: [...result.causes, ...timingCauses(drive.drift), ...traffic.values()],
    };
    if (drive.stopped) {
      result.notes.push(...driveNotes(drive, signed));
      return done(stoppedResult(result, drive.entries));
    }
    const derived = await deriver.finish();
    result.notes.push(...driveNotes(drive, signed));
    result.causes.push(...interruptionCauses(goldenLines ?? [], derived.lostInterruptions, golden));
    if (options.update) {
      const update = await updateGolden(
        file,
        golden,
        goldenLines,
        { header, drive, lines: derived.lines, shape },
        options,
      );
      return done({ ...result, notes: [...result.notes, ...update.notes], outcome: 'updated', update: update.update });
    }
    const receipts = diffReceiptLogs(goldenLines ?? [], derived.lines, { strict: options.strict ?? false, signed });
    const drifted = receipts.differences.length > 0 || drive.driftCount > 0;
    return done({ ...result, receipts, outcome: drifted ? 'drift' : 'match' });
  } catch (error) {
    // A spawned peer that died shows first as a refused or reset connection: say it crashed.
    const crashed =
      peer?.failure && error instanceof A2aReplayError && error.code === 'PEER_UNREACHABLE'
        ? await waitForFailure(peer.failure)
        : undefined;
    return done(failed(result, crashed ?? error));
  } finally {
    await peer?.close();
  }
}
