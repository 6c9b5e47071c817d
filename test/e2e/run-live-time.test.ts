/**
 * Time against a live peer (docs/design.md §8, "Time against a live peer"): sessions of the
 * reference peer in real-time mode (`startPeer`), recorded through `startRecorder` (what `record`
 * starts), replayed as `run --peer` replays them (`replayRecordings`, test/helpers/run-report.ts)
 * against another real-time peer, which the replay cannot move: the requests keep their recorded
 * spacing, and a poll loop is read until the peer shows the state it ended in. Bounds are the
 * loop's (4× its recorded duration, at least 1 s); no test waits on a guess. `run`'s own refusal
 * of a `--pace` it cannot use runs the built CLI. The tests wait on the wall clock, not the CPU,
 * so they run at once, each with its own peers and directory.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { parsePace } from '../../src/public/replay.js';
import { copiesOf, replayReport, verdictLines } from '../helpers/run-report.js';
import { ok, pollingSession } from '../replay/session.js';

/**
 * What one test made: its directory and the peers it started, removed and stopped after it. The
 * tests of this file wait on the wall clock, so they run at once (`describe.concurrent`), each in
 * its own scratch.
 */
interface Scratch {
  dir: string;
  peers: RunningPeer[];
}

async function inScratch(body: (s: Scratch) => Promise<void>): Promise<void> {
  const s: Scratch = { dir: await mkdtemp(join(tmpdir(), 'run-live-time-')), peers: [] };
  try {
    await body(s);
  } finally {
    for (const peer of s.peers.splice(0)) await peer.close();
    await rm(s.dir, { recursive: true, force: true });
  }
}

/** A real-time reference peer of `stepMs`, stopped after the test. */
async function realTimePeer(s: Scratch, stepMs: number): Promise<RunningPeer> {
  const peer = await startPeer({ stepMs });
  s.peers.push(peer);
  return peer;
}

/** Records `session` against a real-time peer of `stepMs`; returns the recording and key files. */
async function recordAgainst(
  s: Scratch,
  stepMs: number,
  session: (url: string) => Promise<void>,
): Promise<{ out: string; key: string }> {
  const key = join(s.dir, 'key.json');
  await writeFile(key, canonicalJson(generateReceiptKey({ kid: 'live-time' }).keyFile()), { mode: 0o600 });
  const peer = await startPeer({ stepMs });
  const out = join(s.dir, 'session.jsonl');
  const recorder = await startRecorder({ upstream: peer.url, out, key, warn: () => undefined });
  try {
    await session(recorder.url);
  } finally {
    await recorder.close();
    await peer.close();
  }
  return { out, key };
}

describe.concurrent('a polled session of a real-time reference peer, replayed against a live real-time peer', () => {
  for (const [stepMs, pollMs] of [
    [100, 100],
    [60, 25],
    [200, 70],
  ] as const) {
    it(`replays with no flags, 10 times in a row: PASS (--step-ms ${stepMs}, GetTask every ${pollMs} ms)`, ({
      expect,
    }) =>
      inScratch(async (s) => {
        const { out, key } = await recordAgainst(s, stepMs, (url) => pollingSession(url, pollMs));
        const text = await readFile(out, 'utf8');
        expect(text.match(/"method":"GetTask"/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
        expect(text).toContain('"method":"PauseTask"');
        const live = await realTimePeer(s, stepMs);
        const replayed = await replayReport(await copiesOf(out, s.dir, 10), { peer: live.url, key });
        expect(replayed.stdout, replayed.stdout).not.toMatch(/^DRIFT/m);
        expect(verdictLines(replayed.stdout)).toHaveLength(10);
        expect(verdictLines(replayed.stdout).every((line) => line.startsWith('PASS '))).toBe(true);
        expect(replayed.code).toBe(0);
      }));
  }
});

describe.concurrent('a poll loop that ends in another state on replay', () => {
  it('is timing drift, with the recorded and replayed durations, in text, JSON, JUnit and HTML', ({ expect }) =>
    inScratch(async (s) => {
      const { out, key } = await recordAgainst(s, 60, (url) => pollingSession(url, 25));
      // The same session against a peer 50 times slower: the first loop's bound passes first.
      const slow = await realTimePeer(s, 3000);
      const junit = join(s.dir, 'run.xml');
      const html = join(s.dir, 'run.html');
      const replayed = await replayReport([out], { peer: slow.url, key, junit, html });
      expect(replayed.code, replayed.stdout).toBe(1);
      const line = new RegExp(
        String.raw`GetTask response \[task:[^\]]+\]: timing drift: the poll loop \(\d+ reads?\) ` +
          String.raw`ended in WORKING, 0 artifacts after (\d+) ms; recorded: WORKING, (\d) artifacts after (\d+) ms`,
      );
      const m = line.exec(replayed.stdout);
      expect(m, replayed.stdout).not.toBeNull();
      // The bound (at least 1 s of wall time) passed; the recorded loop was shorter.
      expect(Number(m![1])).toBeGreaterThanOrEqual(1000);
      expect(Number(m![2])).toBeGreaterThanOrEqual(2);
      expect(Number(m![3])).toBeLessThan(Number(m![1]));
      expect(replayed.stdout).toMatch(
        /^ {2}likely cause: timing: \d+ poll loops? ended in another state than recorded/m,
      );
      // Said as timing, not as the artifacts the live answer lacks.
      expect(replayed.stdout).not.toMatch(/GetTask response[^\n]*content: .*removed/);
      expect(await readFile(junit, 'utf8')).toMatch(/timing drift: the poll loop/);
      expect(await readFile(html, 'utf8')).toMatch(/timing drift: the poll loop/);

      const json = await replayReport([out], { peer: slow.url, key, json: true });
      const summary = JSON.parse(json.stdout) as { results: { drift: Record<string, unknown>[] }[] };
      const timing = summary.results[0]!.drift.filter((d) => d.type === 'timing');
      expect(timing.length).toBeGreaterThanOrEqual(1);
      expect(timing[0]!.clock).toBe('wall');
      expect(timing[0]!.expectedState).toMatch(/^WORKING, \d artifacts$/);
      expect(timing[0]!.replayedMs as number).toBeGreaterThanOrEqual(1000);
      expect(timing[0]!.recordedMs as number).toBeLessThan(timing[0]!.replayedMs as number);
    }));
});

/** Sends `work:6`, waits `waitMs` without reading, and cancels it (the answer shows the artifacts done). */
async function cancelAfter(url: string, waitMs: number): Promise<void> {
  const { task } = await ok<{ task: { id: string } }>(url, 'SendMessage', {
    message: { messageId: 'm-pace', role: 'ROLE_USER', parts: [{ text: 'work:6' }] },
    configuration: { returnImmediately: true },
  });
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  await ok(url, 'CancelTask', { id: task.id });
}

describe.concurrent('--pace against a live peer', () => {
  it('keeps the recorded spacing by default; --pace none sends at once, and the cancel finds less done', ({ expect }) =>
    inScratch(async (s) => {
      // Steps of 400 ms, the cancel 600 ms in: mid-step, 200 ms from either edge.
      const { out, key } = await recordAgainst(s, 400, (url) => cancelAfter(url, 600));
      expect(await readFile(out, 'utf8')).toContain('"artifactId":"artifact-1-1"');
      const live = await realTimePeer(s, 400);
      const paced = await replayReport([out], { peer: live.url, key });
      expect(paced.stdout).toMatch(/^PASS /m);
      expect(paced.code).toBe(0);
      const unpaced = await replayReport([out], { peer: live.url, key, pace: parsePace('none') });
      expect(unpaced.code, unpaced.stdout).toBe(1);
      expect(unpaced.stdout).toMatch(/seq \d+ CancelTask response [^\n]*content \/result\/artifacts: removed/);
    }));

  it('refuses a pace it cannot read, and a pace without a live peer, as usage errors', async ({ expect }) => {
    const recording = 'golden/caller-pause-finish-step/recording.jsonl';
    const bad = await runCli(['run', recording, '--peer', 'http://127.0.0.1:9', '--pace', 'fast']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--pace: pace "fast": expected recorded, none, or xN');
    const embedded = await runCli(['run', recording, '--pace', 'x2']);
    expect(embedded.code).toBe(2);
    expect(embedded.stderr).toContain('--pace spaces the requests to a live peer');
  });
});
