/**
 * The recorder in the test's process, through the public entries: what a test needs when `record`
 * is not its subject. What `verify`, `lost` and `audit` conclude is test/helpers/verdicts.ts; what
 * `run` concludes, test/helpers/run-report.ts. Every recorder is closed before the call returns or
 * by its caller: nothing process-wide is left behind.
 */
import { expect } from 'vitest';
import { startPeer } from '../../src/public/peer.js';
import { type Recorder, type RecordSummary, type RecorderOptions, startRecorder } from '../../src/public/record.js';
import { pauseSession } from '../intercept/pause-session.js';

/** A recorder started with `startRecorder`, what it could not do kept line by line. */
export interface TestRecorder {
  url: string;
  /** Each line its `warn` was given, as `record` would print it after `a2a-replay: ` (option names not as flags). */
  warnings: string[];
  /** Closes it once (later calls give the same summary). */
  close: () => Promise<RecordSummary>;
  recorder: Recorder;
}

/** Starts a recorder with `options`; its warnings are kept, not printed. */
export async function startTestRecorder(options: Omit<RecorderOptions, 'warn'>): Promise<TestRecorder> {
  const warnings: string[] = [];
  const recorder = await startRecorder({ ...options, warn: (line) => warnings.push(line) });
  return { url: recorder.url, warnings, close: () => recorder.close(), recorder };
}

/**
 * `pauseSession` (test/intercept/pause-session.ts) recorded by `startRecorder(options)` in front of
 * a fresh deterministic reference peer, both in this process; the recorder closed whole (as
 * `record` exits 0), its summary and warnings returned.
 */
export async function recordPauseSessionHere(
  options: Omit<RecorderOptions, 'upstream' | 'warn'>,
): Promise<{ summary: RecordSummary; warnings: string[] }> {
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startTestRecorder({ upstream: peer.url, ...options });
    let summary: RecordSummary;
    try {
      await pauseSession(recorder.url);
    } finally {
      summary = await recorder.close();
    }
    expect(summary.complete, recorder.warnings.join('\n')).toBe(true);
    return { summary, warnings: recorder.warnings };
  } finally {
    await peer.close();
  }
}
