/**
 * Durable before acknowledged across a rotation (docs/design.md §6, "Rotation"): `record --key
 * --rotate-bytes 1` closes its recording and receipt log after every entry, so a pause's entries,
 * its receipt and the resume's fall in different files of the series. Every fdatasync of the
 * recorder is gated (test/helpers/sync-gate.ts) and the syncs are let run newest first, one at a
 * time: the syncs of the files a rotation closes stay held while those of the next files run.
 * Each answer and stream event that shows the pause or the resume may reach the client only once
 * released syncs cover its receipt line, in whichever log holds it, and every recording line the
 * receipt cites, in whichever file holds it. The recorder is a process (its syncs are gated by a
 * preload); the reference peer runs in this process (`startPeer`).
 */
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient, resumedEvent, stateOf, taskIdOf, userMessage } from '../../scripts/golden/a2a-client.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { type SyncGate, startSyncGate } from '../helpers/sync-gate.js';
import { type CliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';

let dir = '';
let keyFile = '';
let peer: RunningPeer;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'record-rotate-hold-')));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'hold' }).keyFile()), { mode: 0o600 });
  peer = await startPeer({ deterministic: true });
});
afterAll(async () => {
  await peer.close();
  await rm(dir, { recursive: true, force: true });
});

/** An acknowledgement the client got, and what released syncs covered of every file then. */
interface Ack {
  what: string;
  covered: ReadonlyMap<string, number>;
}

class Acks {
  readonly seen: Ack[] = [];
  #wake: (() => void)[] = [];
  constructor(readonly gate: SyncGate) {}
  add(what: string): void {
    this.seen.push({ what, covered: this.gate.releasedAll() });
    for (const wake of this.#wake.splice(0)) wake();
  }
  changed(): Promise<void> {
    return new Promise((resolve) => this.#wake.push(resolve));
  }
}

/** Gives bytes already sent the time to arrive: a round trip to the peer, then turns of the event loop. */
async function settle(): Promise<void> {
  await fetch(new URL('/.well-known/agent-card.json', peer.url)).then((r) => r.text());
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** The files of the series in `at` whose names end with `suffix`, in series order (`s`, `s.2`, …). */
async function series(at: string, suffix: string): Promise<string[]> {
  const names = (await readdir(at)).filter((n) => /^s(\.\d+)?$/.test(n.slice(0, -suffix.length)) && n.endsWith(suffix));
  const position = (n: string): number => Number(/^s\.(\d+)/.exec(n)?.[1] ?? 1);
  return names.sort((a, b) => position(a) - position(b)).map((n) => join(at, n));
}

/** Each recorded entry of the session, numbered as receipts cite them: its file and its line's end offset. */
async function sessionEntries(at: string): Promise<{ file: string; end: number; text: string }[]> {
  const out: { file: string; end: number; text: string }[] = [];
  for (const file of await series(at, '.jsonl')) {
    if (file.endsWith('.receipts.jsonl')) continue;
    let end = 0;
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      end += Buffer.byteLength(line) + 1;
      if (line !== '' && (JSON.parse(line) as { type?: string }).type === undefined)
        out.push({ file, end, text: line });
    }
  }
  return out;
}

/** Waits (bounded) until the recordings in `at` hold `count` entries that contain `text`. */
async function recorded(at: string, text: string, count: number): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const entries = await sessionEntries(at).catch(() => []);
    if (entries.filter((e) => e.text.includes(text)).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`the recordings never held ${count} entries with ${text}`);
}

/** What must be durable for a receipt: its line in its log, and the recording lines it cites. */
async function needsOf(at: string, match: (line: Record<string, unknown>) => boolean): Promise<Map<string, number>> {
  const entries = await sessionEntries(at);
  for (const log of await series(at, '.receipts.jsonl')) {
    let end = 0;
    for (const line of (await readFile(log, 'utf8')).split('\n')) {
      end += Buffer.byteLength(line) + 1;
      const value = line === '' ? {} : (JSON.parse(line) as Record<string, unknown>);
      if (!match(value)) continue;
      const needs = new Map([[log, end]]);
      for (const n of value.entries as number[]) {
        const entry = entries[n - 1]!;
        needs.set(entry.file, Math.max(needs.get(entry.file) ?? 0, entry.end));
      }
      return needs;
    }
  }
  throw new Error('no such receipt in the series');
}

/** Settles in a row with nothing asked for but the held file's sync before that one is let run. */
const QUIET_SETTLES = 10;

/**
 * Lets every sync run as it is asked for but those of `held` (a recording a rotation closed), until
 * `done()`. `held`'s sync runs only once the recorder has asked for nothing else over
 * {@link QUIET_SETTLES} settles (it may be waiting for it). An answer that waits for nothing of
 * `held` goes out meanwhile; `settle()` after each release gives it the time to arrive.
 */
async function holdingFile(
  gate: SyncGate,
  held: string,
  done: () => boolean,
  changed: () => Promise<void>,
): Promise<void> {
  let quiet = 0;
  while (!done()) {
    const other = gate.pending.findIndex((r) => r.path !== held);
    if (other >= 0) {
      gate.releaseAt(other);
      quiet = 0;
    } else if (gate.pending.length === 0) {
      await Promise.race([gate.untilPending(), changed()]);
      continue;
    } else if (++quiet >= QUIET_SETTLES) {
      gate.releaseAt(0);
      quiet = 0;
    }
    await settle();
  }
}

/** The recording file in `at` whose entry contains `text` (the first such entry of the session). */
async function fileWith(at: string, text: string): Promise<string> {
  const entry = (await sessionEntries(at)).find((e) => e.text.includes(text));
  if (entry === undefined) throw new Error(`no entry with ${text}`);
  return entry.file;
}

describe('an acknowledgement across a rotation waits for the syncs of the files that hold its receipt', () => {
  for (const fsync of ['batch', 'always'] as const) {
    it(`holds the pause and resume until their receipts and cited lines are durable (--fsync ${fsync})`, async () => {
      const at = join(dir, fsync);
      await mkdir(at);
      const gate = await startSyncGate(dir);
      let recorder: CliProcess | undefined;
      try {
        recorder = await startRecordProcess(
          [
            '--upstream',
            peer.url,
            '--out',
            join(at, 's.jsonl'),
            '--key',
            keyFile,
            '--fsync',
            fsync,
            '--rotate-bytes',
            '1',
            // The stream's task never ends (the clock stands still): the stop cuts it, with no grace.
            '--grace-ms',
            '0',
          ],
          gate.env,
        );
        const client = new A2aTestClient(recorder.url);
        const stream = client.stream('SendStreamingMessage', userMessage('work:3', 'm-1'));
        const taskId = taskIdOf(await stream.next((e) => taskIdOf(e) !== undefined)) as string;
        const acks = new Acks(gate);

        gate.holding = true;
        void stream.next((e) => stateOf(e) === 'TASK_STATE_PAUSED').then(() => acks.add('pause: stream event'));
        const paused = client.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId, reason: 'held' });
        void paused.then(() => acks.add('pause: answer'));
        await recorded(at, 'TASK_STATE_PAUSED', 2);
        // The file the PauseTask call is in was closed by a rotation: its sync stays held longest.
        const pauseCall = await fileWith(at, '"PauseTask"');
        await holdingFile(
          gate,
          pauseCall,
          () => acks.seen.length >= 2,
          () => acks.changed(),
        );

        const { resumeToken } = (await paused).pause;
        void stream.next(resumedEvent).then(() => acks.add('resume: stream event'));
        void client.ok('ResumeTask', { taskId, resumeToken }).then(() => acks.add('resume: answer'));
        await recorded(at, 'explicit_resume', 2);
        const resumeCall = await fileWith(at, '"ResumeTask"');
        await holdingFile(
          gate,
          resumeCall,
          () => acks.seen.length >= 4,
          () => acks.changed(),
        );
        gate.holding = false;
        while (gate.releaseOldest() !== undefined);
        stream.abort();
        expect(await stopProcess(recorder)).toBe(0);
        recorder = undefined;

        const pauseNeeds = await needsOf(at, (l) => l.type === 'SuspensionReceipt' && l.taskId === taskId);
        const resumeNeeds = await needsOf(at, (l) => l.type === 'ResumptionReceipt' && l.outcome === 'resumed');
        // The pause and its resume are in different logs, and each cites the file of its call, closed
        // by a rotation before the answer came.
        expect([...pauseNeeds.keys()][0]).not.toBe([...resumeNeeds.keys()][0]);
        expect(pauseNeeds.has(pauseCall)).toBe(true);
        expect(resumeNeeds.has(resumeCall)).toBe(true);
        expect(acks.seen.map((a) => a.what).sort()).toEqual([
          'pause: answer',
          'pause: stream event',
          'resume: answer',
          'resume: stream event',
        ]);
        for (const ack of acks.seen) {
          const needs = ack.what.startsWith('pause') ? pauseNeeds : resumeNeeds;
          const short = [...needs].filter(([file, end]) => (ack.covered.get(file) ?? 0) < end).map(([file]) => file);
          expect({ what: ack.what, notDurable: short }).toEqual({ what: ack.what, notDurable: [] });
        }
      } finally {
        gate.holding = false;
        while (gate.releaseOldest() !== undefined);
        if (recorder) await stopProcess(recorder);
        await gate.close();
      }
    });
  }
});
