/**
 * Sessions of the reference peer in real-time mode, with the most common client (send with
 * returnImmediately, then GetTask until done, a pause and a resume in between), on `startPeer`,
 * recorded through `startRecorder` (what `record` starts) and replayed as `run` with no flags
 * replays them (`replayRecordings`, test/helpers/run-report.ts): the embedded peer runs on a
 * virtual clock moved to each request's recorded instant, so the same requests get the same
 * answers every time.
 */
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { copiesOf, replayReport, verdictLines } from '../helpers/run-report.js';
import { PauseTooLate, pollingSession } from './session.js';

/** Runs `body` with a directory of its own, removed after it: the recording tests run at once. */
async function inDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'run-real-time-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Wall time the work runs on after the client's second artifact: a client stalled that long pauses too late. */
const PAUSE_WINDOW_MS = 3000;

/**
 * Records `pollingSession` against a real-time peer of `stepMs`; returns the recording and key
 * files. The work runs {@link PAUSE_WINDOW_MS} past the second artifact, so a loaded machine's
 * late timers still pause a working task; a client stalled past even that (the PauseTask refused,
 * the task done) is recorded again, at most twice: the replay, not the race, is under test.
 */
async function recordPolling(dir: string, stepMs: number, pollMs: number): Promise<{ out: string; key: string }> {
  const key = join(dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'real-time' }).keyFile()), { mode: 0o600 });
  const steps = 2 + Math.ceil(PAUSE_WINDOW_MS / stepMs);
  for (let attempt = 1; ; attempt++) {
    const peer = await startPeer({ stepMs });
    const out = join(dir, 'polled.jsonl');
    await rm(out, { force: true });
    await rm(join(dir, 'polled.receipts.jsonl'), { force: true });
    const recorder = await startRecorder({ upstream: peer.url, out, key, warn: () => undefined });
    try {
      await pollingSession(recorder.url, pollMs, steps);
      return { out, key };
    } catch (error) {
      if (!(error instanceof PauseTooLate) || attempt === 3) throw error;
    } finally {
      await recorder.close();
      await peer.close();
    }
  }
}

/** The sessions wait on the wall clock, not the CPU: they are recorded at once, each in its own directory. */
describe.concurrent('a polled session of a real-time reference peer', () => {
  for (const [stepMs, pollMs] of [
    [100, 100],
    [60, 25],
    [200, 70],
  ] as const) {
    it(`replays with no flags, 10 times in a row: PASS (--step-ms ${stepMs}, GetTask every ${pollMs} ms)`, ({
      expect,
    }) =>
      inDir(async (dir) => {
        const { out, key } = await recordPolling(dir, stepMs, pollMs);
        const text = await readFile(out, 'utf8');
        expect(text.match(/"method":"GetTask"/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
        expect(text).toContain('"method":"PauseTask"');
        // Ten copies, each with its golden receipts: one run replays them one after another.
        const replayed = await replayReport(await copiesOf(out, dir, 10), { key });
        const verdicts = verdictLines(replayed.stdout);
        expect(replayed.stdout).not.toMatch(/^DRIFT/m);
        expect(verdicts).toHaveLength(10);
        expect(verdicts.every((line) => line.startsWith('PASS '))).toBe(true);
        expect(replayed.code).toBe(0);
      }));
  }

  it('names a poll loop that ends in another state on replay as timing drift, with both durations', ({ expect }) =>
    inDir(async (dir) => {
      const { out, key } = await recordPolling(dir, 60, 25);
      const lines = (await readFile(out, 'utf8')).split('\n');
      // The last GetTask answer (the last poll loop's outcome) recorded as FAILED instead of COMPLETED.
      const last = lines.findLastIndex((line) => line.includes('"kind":"response"') && line.includes('COMPLETED'));
      expect(last).toBeGreaterThan(0);
      lines[last] = (lines[last] as string).replace('"state":"TASK_STATE_COMPLETED"', '"state":"TASK_STATE_FAILED"');
      await writeFile(out, lines.join('\n'));
      const replayed = await replayReport([out], { key });
      expect(replayed.code).toBe(1);
      const named = "ended in COMPLETED after \\d+ ms on the peer's clock; recorded: FAILED after \\d+ ms";
      expect(replayed.stdout).toMatch(new RegExp(`timing drift: the poll loop \\(\\d+ reads?\\) ${named}`));
    }));
});

it("says nothing of mapped ids under the README's main job: the golden corpus on the deterministic peer", async () => {
  // Every golden recording, as `run golden/*/recording.jsonl` replays them: the same ids each time.
  const recordings = readdirSync('golden', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join('golden', d.name, 'recording.jsonl'))
    .sort();
  expect(recordings.length).toBeGreaterThan(30);
  const replayed = await replayReport(recordings, { key: 'golden/test-key.json' });
  const verdicts = verdictLines(replayed.stdout);
  expect(verdicts).toHaveLength(recordings.length);
  expect(verdicts.every((line) => line.startsWith('PASS '))).toBe(true);
  expect(replayed.stdout).not.toContain('minted by the live peer');
  expect(replayed.code).toBe(0);
});
