/**
 * @module replay/run-merged
 * `run --merge A B …` (docs/design.md §8, §17): the recordings of several recorders in front of one
 * peer replayed as one session against one live peer, their entries merged by recorded time
 * (src/replay/merged-session.ts); the receipts derived from the merged replay are compared with
 * the union of the recordings' golden logs, paired by pause identity, so a pause seen by one
 * recorder and its end seen by another pair. One {@link RecordingResult} for the whole session.
 */
import { systemClock } from '../clock.js';
import { A2aReplayError } from '../errors.js';
import { readRecording } from '../recording/recording-reader.js';
import { REPLAY_MAX_BODY_DEPTH, type RecordingHeader } from '../recording/format.js';
import { deriveReceiptLog, logVersionOf, unsignedKeyring } from './derive-receipts.js';
import { driveRecording } from './driver.js';
import { fetchAgentCard } from '../http/agent-card-fetch.js';
import { type GoldenLog, type MergeSource, diffMergedReceipts, mergeEntries } from './merged-session.js';
import type { RecordingResult } from './result.js';
import {
  type LivePeer,
  type RunRecordingOptions,
  driveNotes,
  emptyResult,
  failed,
  stoppedResult,
  goldenPathFor,
  livePace,
  readGoldenLines,
} from './run-recording.js';

/** Replays the recordings as one merged session and compares with their golden logs' union. */
export async function runMerged(files: readonly string[], options: RunRecordingOptions): Promise<RecordingResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const goldenFiles = files.map((f) => goldenPathFor(f));
  let result = emptyResult(files.join(' + '), goldenFiles.join(' + '));
  const done = (r: RecordingResult): RecordingResult => ({ ...r, durationMs: clock.now() - started });
  const sources: MergeSource[] = [];
  const goldens: GoldenLog[] = [];
  let header: RecordingHeader | undefined;
  try {
    for (const [i, file] of files.entries()) {
      const recording = await readRecording(file, { maxBodyDepth: REPLAY_MAX_BODY_DEPTH });
      header ??= recording.header;
      sources.push({ file, entries: recording.entries });
      const golden = goldenFiles[i] as string;
      const lines = await readGoldenLines(golden);
      if (lines === undefined) throw new A2aReplayError('RECORDING_MALFORMED', `${golden}: no golden receipts`);
      goldens.push({ file: golden, lines });
    }
  } catch (error) {
    return done(failed(result, error));
  }
  const first = header as RecordingHeader;
  const entries = mergeEntries(sources);
  result.recordingId = first.id;
  result.entries = entries.length;

  let peer: LivePeer | undefined;
  try {
    peer = await options.openPeer(entries, first);
    const current = peer;
    // Only a peer the replay may pace needs its card read (a deterministic reference peer is not paced).
    const liveCard = current.embedded || current.peerClock ? undefined : await fetchAgentCard(peer.url);
    const drive = await driveRecording(entries, {
      peerUrl: peer.url,
      clock,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(current.failure ? { peerFailure: current.failure } : {}),
      ...(options.noise ? { noise: options.noise } : {}),
      ...(options.ignore ? { ignore: options.ignore } : {}),
      ...(options.grpcPeer !== undefined ? { grpcPeer: options.grpcPeer } : {}),
      ...(current.peerClock ? { peerClock: current.peerClock } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...livePace(current, liveCard, options.pace),
    });
    result = {
      ...result,
      exchanges: drive.exchanges,
      liveEntries: drive.liveEntries,
      drift: drive.drift,
      timelines: drive.timelines,
    };
    if (drive.stopped) return done(stoppedResult(result, drive.entries));
    const version = logVersionOf(goldens[0]?.lines ?? []);
    const derived = await deriveReceiptLog({
      header: first,
      entries: drive.replayed,
      keyring: unsignedKeyring(),
      tool: options.tool,
      ...(version !== undefined ? { version } : {}),
    });
    result.notes.push(
      `${files.length} recordings replayed as one session; receipts compared by content ` +
        'with the union of their golden logs',
      ...driveNotes(drive, true),
    );
    const receipts = diffMergedReceipts(goldens, derived.lines);
    const drifted = receipts.differences.length > 0 || result.drift.length > 0;
    return done({ ...result, receipts, outcome: drifted ? 'drift' : 'match' });
  } catch (error) {
    return done(failed(result, error));
  } finally {
    await peer?.close();
  }
}
