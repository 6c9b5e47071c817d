/**
 * The pause session of test/intercept/pause-session.ts recorded through `startRecorder` in front of
 * a fresh deterministic reference peer (`startPeer`), both in the test's process: what
 * `a2a-replay record` in front of `a2a-replay peer --deterministic` writes, for tests whose subject
 * is what was recorded rather than the processes. Every server is closed before it returns.
 */
import { startPeer } from '../../src/public/peer.js';
import { type RecordSummary, type RecorderOptions, startRecorder } from '../../src/public/record.js';
import { pauseSession } from '../intercept/pause-session.js';

export interface RecordedPauseSession {
  /** What the recorder warned of (what `record` would print on stderr before its stop line). */
  warnings: string[];
  summary: RecordSummary;
}

/** Records `pauseSession` with `options` (`upstream` is the fresh peer). */
export async function recordPauseSessionInProcess(
  options: Omit<RecorderOptions, 'upstream'>,
): Promise<RecordedPauseSession> {
  const peer = await startPeer({ deterministic: true });
  try {
    const warnings: string[] = [];
    const recorder = await startRecorder({ warn: (line) => warnings.push(line), ...options, upstream: peer.url });
    let summary: RecordSummary;
    try {
      await pauseSession(recorder.url);
    } finally {
      summary = await recorder.close();
    }
    return { warnings, summary };
  } finally {
    await peer.close();
  }
}
