/**
 * The recorder and the verdicts of `verify`, `lost` and `run` in the test's process, through the
 * public entries: what a test needs when the CLI is not its subject. `verified` and `replayed` give
 * the text those commands print on stdout and the exit code they end with, computed by the calls
 * the commands make (cli/commands/verify.ts, cli/commands/run.ts); `lostIn` gives what `lost`
 * lists and its exit code (cli/commands/lost.ts). Every recorder and log set is closed before the
 * call returns or by its caller: nothing process-wide is left behind.
 */
import { expect } from 'vitest';
import { startPeer } from '../../src/public/peer.js';
import {
  type Keyring,
  type LostPauses,
  type ReceiptKey,
  lostOutcome,
  lostPauses,
  openLogSet,
  verificationLines,
  verifyLogSet,
} from '../../src/public/receipts.js';
import { type Recorder, type RecordSummary, type RecorderOptions, startRecorder } from '../../src/public/record.js';
import { renderRecordingText, replayRecordings } from '../../src/public/replay.js';
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

/** What a command would print on stdout, and its exit code. */
export interface Verdict {
  code: number;
  stdout: string;
}

/**
 * `verify PATHS [--key K] [--checkpoint HEAD] [--recording R]`: `verifyLogSet` over `openLogSet`,
 * printed by `verificationLines`; exit 0 when it verifies, 1 when not (with one job, as verify
 * checks a log under 4 MiB).
 */
export async function verified(
  paths: readonly string[],
  options: { keys?: Keyring | ReceiptKey | string | readonly string[]; head?: string; recording?: string } = {},
): Promise<Verdict> {
  const set = await openLogSet(paths, { keys: options.keys, head: options.head, jobs: 1 });
  try {
    const result = await verifyLogSet(set, options.recording === undefined ? {} : { recording: options.recording });
    return {
      code: result.ok ? 0 : 1,
      stdout: verificationLines(result)
        .map((l) => `${l}\n`)
        .join(''),
    };
  } finally {
    await set.close();
  }
}

/** `lost FILES [--key K]`: what `lostPauses` finds, and the exit code `lostOutcome` gives. */
export async function lostIn(
  files: readonly string[],
  options: { keys?: Keyring | ReceiptKey | string | readonly string[] } = {},
): Promise<{ found: LostPauses; code: number }> {
  const set = await openLogSet(files, { keys: options.keys });
  try {
    const found = await lostPauses(set);
    const outcome = lostOutcome(found);
    return { found, code: outcome === 'clean' ? 0 : outcome === 'not-understood' ? 2 : 1 };
  } finally {
    await set.close();
  }
}

/** `run RECORDING [--key K] [--strict]`: `replayRecordings` against the embedded peer, its text and exit code. */
export async function replayed(
  recording: string,
  options: { keyring?: Keyring; strict?: boolean } = {},
): Promise<Verdict> {
  const summary = await replayRecordings([recording], {
    ...(options.keyring === undefined ? {} : { keyring: options.keyring }),
    strict: options.strict ?? false,
  });
  return { code: summary.exitCode, stdout: summary.results.map((r) => `${renderRecordingText(r)}\n`).join('') };
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
