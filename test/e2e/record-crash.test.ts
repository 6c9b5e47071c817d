/**
 * `kill -9` of `a2a-replay record --key` right after the k-th pause or resume a client was told
 * about, with 1 and 8 client lanes, under `--fsync always` and `batch`, against the deterministic
 * reference peer. Durable before acknowledged: every pause and resume a client saw — a PauseTask
 * or ResumeTask answer, or a PAUSED event on a stream — has its receipt in the log the killed
 * recorder left, and `verify --allow-torn-tail --allow-open` accepts that log. The recording reads
 * back up to its last complete line, with `seq` contiguous, and a torn last line is named by both
 * the recording reader and `verify`. The same with a stream of each task open while its client
 * pauses and resumes it (the answer and the stream event both tell the client), over JSON-RPC and
 * HTTP+JSON, under every `--fsync` policy (`never`: the lines were handed to the OS, which keeps
 * them when the process dies). The recorder is the built CLI, the process killed; the peer runs in
 * the test's process, and the left logs are verified there by `verifyReceiptLog` (the call `verify`
 * makes), the command itself once, where it names a torn line.
 */
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient, resumedEvent, stateOf, taskIdOf, userMessage } from '../../scripts/golden/a2a-client.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import type { Binding } from '../../src/protocol/rest-binding.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { Keyring, generateReceiptKey, verifyReceiptLog } from '../../src/public/receipts.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { runCli } from '../helpers/cli.js';
import { releaseOneByOne, startSyncGate } from '../helpers/sync-gate.js';
import { startRecordProcess } from '../helpers/cli-process.js';
import { call, stream } from '../replay/session.js';

const key = generateReceiptKey({ kid: 'crash' });
const keyring = new Keyring([key]);
let dir = '';
let keyFile = '';
/** The upstream, in this process: the recorder is the process killed. */
let peer: RunningPeer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-crash-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  peer = await startPeer({ deterministic: true });
});
afterAll(async () => {
  await peer.close();
  await rm(dir, { recursive: true, force: true });
});

/** What the clients were told: task ids whose pause, and whose resume, an answer showed them. */
interface Acknowledged {
  pauses: Set<string>;
  resumes: Set<string>;
}

/**
 * One client lane: a task paused by PauseTask and resumed by ResumeTask (even lanes), or a task
 * that parks itself, seen PAUSED on its stream (odd lanes), again and again until the recorder is
 * gone. `acked` is called the moment a client holds an answer that shows a pause or resume.
 */
async function lane(url: string, index: number, acked: (kind: 'pause' | 'resume', taskId: string) => void) {
  for (;;) {
    try {
      if (index % 2 === 1) {
        let taskId = '';
        const { rest } = await stream(url, 'await:approval:30', (event) => {
          const update = event.statusUpdate as { taskId: string; status: { state: string } } | undefined;
          const task = event.task as { id: string; status: { state: string } } | undefined;
          const state = update?.status.state ?? task?.status.state;
          taskId = update?.taskId ?? task?.id ?? taskId;
          return state === 'TASK_STATE_PAUSED';
        });
        acked('pause', taskId);
        void rest.catch(() => undefined);
        continue;
      }
      const sent = (await call(url, 'SendMessage', {
        message: { messageId: `m-${index}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
        configuration: { returnImmediately: true },
      })) as { result?: { task: { id: string } } };
      const taskId = sent.result?.task.id;
      if (taskId === undefined) return;
      const paused = (await call(url, 'PauseTask', { taskId, reason: 'crash test' })) as {
        result?: { state: string; pause: { resumeToken: string } };
      };
      if (paused.result?.state !== 'TASK_STATE_PAUSED') return;
      acked('pause', taskId);
      const resumed = (await call(url, 'ResumeTask', { taskId, resumeToken: paused.result.pause.resumeToken })) as {
        result?: { state: string };
      };
      if (resumed.result === undefined) return;
      acked('resume', taskId);
    } catch {
      return; // the recorder is gone
    }
  }
}

/**
 * One client lane with a stream open: a task streamed by SendStreamingMessage, paused by PauseTask
 * and resumed by ResumeTask while its stream stays open, again and again until the recorder is
 * gone. The answers and the stream's PAUSED and resume events each count as an acknowledgement.
 * `streams` collects each stream's end, so events read after the kill are counted too.
 */
async function streamLane(
  url: string,
  binding: Binding,
  index: number,
  streams: Promise<void>[],
  acked: (kind: 'pause' | 'resume', taskId: string) => void,
) {
  const client = new A2aTestClient(url, undefined, binding);
  for (let round = 0; ; round++) {
    const stream = client.stream('SendStreamingMessage', userMessage('work:3', `m-${index}-${round}`));
    const ended = stream.done.catch(() => undefined);
    streams.push(ended);
    const gone = ended.then(() => undefined);
    try {
      const first = await Promise.race([stream.next((e) => taskIdOf(e) !== undefined), gone]);
      const taskId = first === undefined ? undefined : taskIdOf(first);
      if (taskId === undefined) return;
      void stream.next((e) => stateOf(e) === 'TASK_STATE_PAUSED').then(() => acked('pause', taskId));
      const paused = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId, reason: 'crash' });
      acked('pause', taskId);
      void stream.next(resumedEvent).then(() => acked('resume', taskId));
      await client.ok('ResumeTask', { taskId, resumeToken: paused.pause.resumeToken });
      acked('resume', taskId);
    } catch {
      return; // the recorder is gone
    } finally {
      stream.abort();
    }
  }
}

interface ReceiptLine {
  type: string;
  taskId?: string;
  outcome?: string;
}

/** The complete lines of a log a kill may have torn. */
async function completeLines(file: string): Promise<ReceiptLine[]> {
  const text = await readFile(file, 'utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ReceiptLine);
}

const newlines = (text: string): number => text.split('\n').length - 1;

/** Cuts the last complete line of `file` in half; returns that line's (1-based) number. */
async function tearLastLine(file: string): Promise<number> {
  const text = await readFile(file, 'utf8');
  const start = text.slice(0, -1).lastIndexOf('\n') + 1;
  await truncate(file, Buffer.byteLength(text.slice(0, start + Math.floor((text.length - 1 - start) / 2))));
  return newlines(text);
}

/** The left log verified in this process by the call `verify` makes (its text: the torn-line test). */
function verified(log: string, options: { allowTornTail?: boolean; allowOpen?: boolean }) {
  return verifyReceiptLog(log, { keyring, ...options });
}

/** Every pause and resume the clients were told about has its receipt among the log's complete lines. */
async function expectReceipted(log: string, acknowledged: Acknowledged): Promise<void> {
  const lines = await completeLines(log);
  const suspended = new Set(lines.filter((l) => l.type === 'SuspensionReceipt').map((l) => l.taskId));
  const resumed = new Set(
    lines.filter((l) => l.type === 'ResumptionReceipt' && l.outcome === 'resumed').map((l) => l.taskId),
  );
  expect([...acknowledged.pauses].filter((t) => !suspended.has(t))).toEqual([]);
  expect([...acknowledged.resumes].filter((t) => !resumed.has(t))).toEqual([]);
}

describe('kill -9 right after the k-th acknowledged pause or resume', () => {
  const cases = [
    { lanes: 1, k: 1 },
    { lanes: 1, k: 4 },
    { lanes: 1, k: 9 },
    { lanes: 8, k: 6 },
    { lanes: 8, k: 25 },
  ];
  for (const fsync of ['always', 'batch'] as const) {
    for (const { lanes, k } of cases) {
      const name = `keeps every acknowledged receipt (--fsync ${fsync}, ${lanes} lane(s), k=${k})`;
      it(name, async () => {
        const out = join(dir, `${fsync}-${lanes}-${k}.jsonl`);
        const log = out.replace(/\.jsonl$/, '.receipts.jsonl');
        const recorder = await startRecordProcess([
          '--upstream',
          peer.url,
          '--out',
          out,
          '--key',
          keyFile,
          '--fsync',
          fsync,
        ]);
        const acknowledged: Acknowledged = { pauses: new Set(), resumes: new Set() };
        let count = 0;
        const acked = (kind: 'pause' | 'resume', taskId: string): void => {
          (kind === 'pause' ? acknowledged.pauses : acknowledged.resumes).add(taskId);
          // Killed synchronously, from the client's own callback: no later line can be awaited.
          if (++count === k) recorder.child.kill('SIGKILL');
        };
        await Promise.all(Array.from({ length: lanes }, (_, i) => lane(recorder.url, i, acked)));
        await recorder.exited;
        expect(count).toBeGreaterThanOrEqual(k);

        await expectReceipted(log, acknowledged);

        const open = await verified(log, { allowTornTail: true, allowOpen: true });
        expect(open.ok).toBe(true);
        expect(open.receipts).toBeGreaterThanOrEqual(acknowledged.pauses.size + acknowledged.resumes.size);
        // Never closed (no shutdown ran): without allowOpen the open end is an error.
        const closedOnly = await verified(log, { allowTornTail: true });
        expect(closedOnly.ok).toBe(false);
        expect(closedOnly.firstError?.reason).toBe('not_closed');

        const recording = await readRecording(out, { allowTornTail: true });
        expect(recording.entries.map((e) => e.seq)).toEqual(recording.entries.map((_, i) => i + 1));
      });
    }
  }

  it('names a torn last line in the recording and in the receipt log', async () => {
    const out = join(dir, 'torn.jsonl');
    const log = join(dir, 'torn.receipts.jsonl');
    const recorder = await startRecordProcess(['--upstream', peer.url, '--out', out, '--key', keyFile]);
    let count = 0;
    await lane(recorder.url, 0, () => {
      if (++count === 3) recorder.child.kill('SIGKILL');
    });
    await recorder.exited;
    for (const file of [out, log]) {
      const text = await readFile(file, 'utf8');
      if (text.endsWith('\n')) await tearLastLine(file);
    }
    const tornLine = newlines(await readFile(out, 'utf8')) + 1;
    const recording = await readRecording(out, { allowTornTail: true });
    expect(recording.tornTail?.line).toBe(tornLine);
    await expect(readRecording(out)).rejects.toMatchObject({ code: 'RECORDING_TORN' });
    const tornLogLine = newlines(await readFile(log, 'utf8')) + 1;
    const tolerant = await verified(log, { allowTornTail: true, allowOpen: true });
    expect(tolerant).toMatchObject({ ok: true, tornTail: tornLogLine });
    const strict = await runCli(['verify', log, '--key', keyFile, '--allow-open']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain(`INVALID at line ${tornLogLine}: torn_tail`);
  });
});

describe('kill -9 at the k-th acknowledgement with a stream of each task open', () => {
  const cases = [
    { lanes: 2, k: 2 },
    { lanes: 4, k: 9 },
  ];
  /** A round trip to the peer and turns of the event loop: bytes already sent arrive. */
  const settle = async (): Promise<void> => {
    await fetch(new URL('/.well-known/agent-card.json', peer.url)).then((r) => r.text());
    for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    for (const fsync of ['never', 'batch', 'always'] as const) {
      for (const { lanes, k } of cases) {
        const name = `keeps every receipt a client was shown (${binding}, --fsync ${fsync}, ${lanes} lanes, k=${k})`;
        it(name, async () => {
          const out = join(dir, `stream-${binding === 'JSONRPC' ? 'rpc' : 'rest'}-${fsync}-${lanes}-${k}.jsonl`);
          const log = out.replace(/\.jsonl$/, '.receipts.jsonl');
          // Syncs run one at a time, each after what was sent before it arrived: an answer let out
          // before its receipt was durable reaches the client while that receipt may not be written.
          const gate = await startSyncGate(dir);
          try {
            const recorder = await startRecordProcess(
              ['--upstream', peer.url, '--out', out, '--key', keyFile, '--fsync', fsync],
              gate.env,
            );
            gate.holding = true;
            const acknowledged: Acknowledged = { pauses: new Set(), resumes: new Set() };
            let count = 0;
            let wake: () => void = () => undefined;
            const acked = (kind: 'pause' | 'resume', taskId: string): void => {
              (kind === 'pause' ? acknowledged.pauses : acknowledged.resumes).add(taskId);
              // Killed synchronously, from the client's own callback: no later line can be awaited.
              if (++count === k) recorder.child.kill('SIGKILL');
              wake();
            };
            const streams: Promise<void>[] = [];
            const clients = Promise.all(
              Array.from({ length: lanes }, (_, i) => streamLane(recorder.url, binding, i, streams, acked)),
            );
            await releaseOneByOne(
              gate,
              () => count >= k,
              settle,
              () => new Promise<void>((resolve) => (wake = resolve)),
            );
            await clients;
            await recorder.exited;
            // Events the recorder sent before it died are read to the end: they were shown too.
            await Promise.all(streams);
            expect(count).toBeGreaterThanOrEqual(k);
            await expectReceipted(log, acknowledged);
            expect((await verified(log, { allowTornTail: true, allowOpen: true })).ok).toBe(true);
          } finally {
            await gate.close();
          }
        });
      }
    }
  }
});
