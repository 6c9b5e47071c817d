/**
 * Durable before acknowledged, decided by the test's own steps: a recorder with a key
 * (`startRecorder`) in front of the deterministic reference peer (`startPeer`), both in this
 * process, runs with every fdatasync of the process gated (test/helpers/sync-gate.ts,
 * sync-gate-here.ts), a stream of the task open while the client pauses and resumes it, over JSON-RPC, HTTP+JSON and
 * gRPC, under `fsync` `batch` and `always`. Each entry that shows the pause or the resume — the
 * PauseTask / ResumeTask answer and the stream's event, whichever of them made the receipt — may
 * reach the client only after syncs the test let run cover the receipt line and the recording
 * lines it cites. The syncs are let run one at a time, oldest first, and each is given the chance
 * to show a leak before the next. With two tasks, the second paused while a sync for the first's
 * receipt is held: its answers wait for a sync that began after its receipt was written, never
 * for the one already running (in either file).
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient, resumedEvent, stateOf, taskIdOf, userMessage } from '../../scripts/golden/a2a-client.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { GrpcTestClient } from '../helpers/grpc-test-client.js';
import { type SyncGate, releaseOneByOne, startSyncGate } from '../helpers/sync-gate.js';
import { type TestRecorder, startTestRecorder } from '../helpers/in-process.js';
import { installSyncGateHere } from '../helpers/sync-gate-here.js';

let dir = '';
let keyFile = '';
let peer: RunningPeer;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'record-hold-sync-')));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'hold' }).keyFile()), { mode: 0o600 });
  peer = await startPeer({ deterministic: true });
});
afterAll(async () => {
  await peer.close();
  await rm(dir, { recursive: true, force: true });
});

/** What the released syncs covered of each file when a client got an acknowledgement. */
interface Ack {
  what: string;
  log: number;
  recording: number;
}

/** Acknowledgements as the client gets them, with what was durable at that moment. */
class Acks {
  readonly seen: Ack[] = [];
  #wake: (() => void)[] = [];
  constructor(
    readonly gate: SyncGate,
    readonly log: string,
    readonly recording: string,
  ) {}
  add(what: string): void {
    this.seen.push({ what, log: this.gate.released(this.log), recording: this.gate.released(this.recording) });
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

/** Waits (bounded) until the recording has `count` lines that contain `text`. */
async function recorded(file: string, text: string, count: number): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l.includes(text));
    if (lines.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`the recording never held ${count} lines with ${text}`);
}

/** The end offset (bytes) of the first line of `file` that `match` accepts, and that line. */
async function lineEnd(file: string, match: (line: Record<string, unknown>) => boolean) {
  const text = await readFile(file, 'utf8');
  let end = 0;
  for (const line of text.split('\n')) {
    end += Buffer.byteLength(line) + 1;
    if (line !== '' && match(JSON.parse(line) as Record<string, unknown>))
      return { end, line: JSON.parse(line) as { entries: number[] } };
  }
  throw new Error(`no such line in ${file}`);
}

/** The end offset of the recording line of entry `seq` (line 1 is the header). */
async function entryEnd(file: string, seq: number): Promise<number> {
  const lines = (await readFile(file, 'utf8')).split('\n').slice(0, seq + 1);
  return lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
}

/** What the test's body gets of {@link gatedRecorder}. */
interface Gated {
  url: string;
  gate: SyncGate;
  acks: Acks;
  out: string;
  log: string;
}

/**
 * A recorder with the key in front of the peer, every fdatasync of this process gated, for
 * `body`; afterwards every sync is let run and the recorder is stopped whole. The streams' tasks
 * never end (the clock stands still): the stop cuts them, with no grace.
 */
async function gatedRecorder(
  name: string,
  fsync: 'batch' | 'always',
  body: (gated: Gated) => Promise<void>,
): Promise<void> {
  const out = join(dir, `${name}.jsonl`);
  const log = out.replace(/\.jsonl$/, '.receipts.jsonl');
  const gate = await startSyncGate(dir);
  const here = await installSyncGateHere(gate);
  let recorder: TestRecorder | undefined;
  try {
    recorder = await startTestRecorder({ upstream: peer.url, out, key: keyFile, fsync, graceMs: 0 });
    await body({ url: recorder.url, gate, acks: new Acks(gate, log, out), out, log });
  } finally {
    gate.holding = false;
    while (gate.releaseOldest() !== undefined);
    if (recorder) expect((await recorder.close()).complete, recorder.warnings.join('\n')).toBe(true);
    here.uninstall();
    await gate.close();
  }
}

/** Each acknowledgement reached the client only once released syncs covered what its receipt needs. */
function expectCovered(acks: Acks, needOf: (what: string) => { log: number; recording: number }): void {
  for (const ack of acks.seen) {
    const need = needOf(ack.what);
    expect({ what: ack.what, log: ack.log >= need.log, recording: ack.recording >= need.recording }).toEqual({
      what: ack.what,
      log: true,
      recording: true,
    });
  }
}

describe('an acknowledgement waits for the sync that covers its receipt', () => {
  for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
    for (const fsync of ['batch', 'always'] as const) {
      it(`holds the pause and resume answers and stream events (${binding}, fsync ${fsync})`, async () => {
        const name = `${{ JSONRPC: 'rpc', 'HTTP+JSON': 'rest', GRPC: 'grpc' }[binding]}-${fsync}`;
        await gatedRecorder(name, fsync, async ({ url, gate, acks, out, log }) => {
          const client = binding === 'GRPC' ? new GrpcTestClient(url) : new A2aTestClient(url, undefined, binding);
          const stream = client.stream('SendStreamingMessage', userMessage('work:3', 'm-1'));
          const taskId = taskIdOf(await stream.next((e) => taskIdOf(e) !== undefined)) as string;

          gate.holding = true;
          void stream.next((e) => stateOf(e) === 'TASK_STATE_PAUSED').then(() => acks.add('pause: stream event'));
          const paused = client.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId, reason: 'held' });
          void paused.then(() => acks.add('pause: answer'));
          await recorded(out, 'TASK_STATE_PAUSED', 2);
          await releaseOneByOne(
            gate,
            () => acks.seen.length >= 2,
            settle,
            () => acks.changed(),
          );

          const { resumeToken } = (await paused).pause;
          void stream.next(resumedEvent).then(() => acks.add('resume: stream event'));
          void client.ok('ResumeTask', { taskId, resumeToken }).then(() => acks.add('resume: answer'));
          await recorded(out, 'explicit_resume', 2);
          await releaseOneByOne(
            gate,
            () => acks.seen.length >= 4,
            settle,
            () => acks.changed(),
          );
          gate.holding = false;
          while (gate.releaseOldest() !== undefined);
          stream.abort();
          if (client instanceof GrpcTestClient) client.close();

          const suspension = await lineEnd(log, (l) => l.type === 'SuspensionReceipt' && l.taskId === taskId);
          const resumption = await lineEnd(log, (l) => l.type === 'ResumptionReceipt' && l.outcome === 'resumed');
          const needs = async (receipt: typeof suspension) => ({
            log: receipt.end,
            recording: await entryEnd(out, Math.max(...receipt.line.entries)),
          });
          const pauseNeeds = await needs(suspension);
          const resumeNeeds = await needs(resumption);
          expect(acks.seen.map((a) => a.what).sort()).toEqual([
            'pause: answer',
            'pause: stream event',
            'resume: answer',
            'resume: stream event',
          ]);
          expectCovered(acks, (what) => (what.startsWith('pause') ? pauseNeeds : resumeNeeds));
        });
      });
    }
  }

  for (const fsync of ['batch', 'always'] as const) {
    it(`does not let out a pause on a sync that began before its receipt was written (fsync ${fsync})`, async () => {
      await gatedRecorder(`two-${fsync}`, fsync, async ({ url, gate, acks, out, log }) => {
        const client = new A2aTestClient(url);
        const streams = ['a', 'b'].map((m) => client.stream('SendStreamingMessage', userMessage('work:3', m)));
        const [a, b] = await Promise.all(
          streams.map(async (st) => taskIdOf(await st.next((e) => taskIdOf(e) !== undefined)) as string),
        );
        gate.holding = true;
        streams.forEach((st, i) => {
          void st.next((e) => stateOf(e) === 'TASK_STATE_PAUSED').then(() => acks.add(`${i}: stream event`));
        });
        void client.ok('PauseTask', { taskId: a, reason: 'first' }).then(() => acks.add('0: answer'));
        // A sync of the log runs for the first receipt (held) before the second pause is asked for.
        await recorded(out, 'TASK_STATE_PAUSED', 2);
        while (!gate.pending.some((r) => r.path === log)) await gate.untilPending().then(settle);
        void client.ok('PauseTask', { taskId: b, reason: 'second' }).then(() => acks.add('1: answer'));
        await recorded(out, 'TASK_STATE_PAUSED', 4);
        await releaseOneByOne(
          gate,
          () => acks.seen.length >= 4,
          settle,
          () => acks.changed(),
        );
        gate.holding = false;
        while (gate.releaseOldest() !== undefined);
        for (const st of streams) st.abort();

        const needs = await Promise.all(
          [a, b].map(async (taskId) => {
            const receipt = await lineEnd(log, (l) => l.type === 'SuspensionReceipt' && l.taskId === taskId);
            return { log: receipt.end, recording: await entryEnd(out, Math.max(...receipt.line.entries)) };
          }),
        );
        expect(acks.seen.map((x) => x.what).sort()).toEqual([
          '0: answer',
          '0: stream event',
          '1: answer',
          '1: stream event',
        ]);
        expectCovered(acks, (what) => needs[Number(what[0])] as { log: number; recording: number });
      });
    });
  }
});
