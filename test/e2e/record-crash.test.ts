/**
 * `kill -9` of `a2a-replay record --key` in the middle of a busy pause/resume session against the
 * deterministic reference peer: the recording reads back up to its last complete line, the
 * receipt log is one that `a2a-replay verify --allow-torn-tail` accepts, and a torn last line (the
 * kill's own when it cut a write in half, else one made by hand from the complete prefix) is
 * reported as torn with its line number by both the recording reader and `a2a-replay verify`.
 */
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson, generateReceiptKey, readRecording } from '../../src/internal.js';
import { runCli } from '../helpers/cli.js';
import { type RecordProcess, startCliProcess, startRecordProcess, stopProcess } from '../intercept/record-process.js';
import { call } from '../replay/session.js';

let dir = '';
const processes: RecordProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-crash-'));
});
afterEach(async () => {
  for (const p of processes.splice(0)) await stopProcess(p, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Large bodies make large write batches, which a SIGKILL can cut in the middle. */
const PADDING = 'x'.repeat(128 * 1024);
/** Pause/resume rounds before the kill. */
const ROUNDS = 30;

/** One client's loop: start a task, pause it, resume it, read it back (its history holds the padding). */
async function pauseLoop(url: string, stop: () => boolean, onRound: () => void): Promise<void> {
  while (!stop()) {
    try {
      const sent = (await call(url, 'SendMessage', {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:3' }, { text: PADDING }] },
        configuration: { returnImmediately: true },
      })) as { result?: { task: { id: string } } };
      const taskId = sent.result?.task.id;
      if (taskId === undefined) return;
      const paused = (await call(url, 'PauseTask', { taskId, reason: 'crash test' })) as {
        result?: { pause: { resumeToken: string } };
      };
      await call(url, 'ResumeTask', { taskId, resumeToken: paused.result?.pause.resumeToken ?? '' });
      await call(url, 'GetTask', { id: taskId });
      onRound();
    } catch {
      return; // the recorder is gone
    }
  }
}

interface VerifyJson {
  ok: boolean;
  lines: number;
  receipts: number;
  tornTail: number | null;
  firstError?: { line: number; reason: string };
}

async function verify(
  log: string,
  keyFile: string,
  ...flags: string[]
): Promise<{ code: number | null; result: VerifyJson }> {
  const run = await runCli(['verify', log, '--key', keyFile, '--json', ...flags]);
  return { code: run.code, result: JSON.parse(run.stdout) as VerifyJson };
}

const newlines = (text: string): number => text.split('\n').length - 1;

/** Cuts the last complete line of `file` in half; returns that line's (1-based) number. */
async function tearLastLine(file: string): Promise<number> {
  const text = await readFile(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const start = text.slice(0, -1).lastIndexOf('\n') + 1;
  const half = Math.floor((text.length - 1 - start) / 2);
  await truncate(file, Buffer.byteLength(text.slice(0, start + half)));
  return newlines(text);
}

/** The recording ends in a torn line: named, skipped on request, refused otherwise. */
async function expectTornRecording(file: string): Promise<number> {
  const text = await readFile(file, 'utf8');
  const tornLine = newlines(text) + 1;
  const recording = await readRecording(file, { allowTornTail: true });
  expect(recording.tornTail?.line).toBe(tornLine);
  expect(recording.entries).toHaveLength(tornLine - 2);
  expect(recording.entries.map((e) => e.seq)).toEqual(recording.entries.map((_, i) => i + 1));
  await expect(readRecording(file)).rejects.toMatchObject({ code: 'RECORDING_TORN' });
  return recording.entries.length;
}

/**
 * The receipt log ends in a torn line: `verify --allow-torn-tail` accepts the prefix and names it;
 * plain `verify` fails on it.
 */
async function expectTornLog(file: string, keyFile: string): Promise<void> {
  const tornLine = newlines(await readFile(file, 'utf8')) + 1;
  const tolerant = await verify(file, keyFile, '--allow-torn-tail');
  expect(tolerant.result).toMatchObject({ ok: true, tornTail: tornLine, lines: tornLine - 1 });
  expect(tolerant.code).toBe(0);
  const strict = await verify(file, keyFile);
  expect(strict.result).toMatchObject({ ok: false, firstError: { line: tornLine, reason: 'torn_tail' } });
  expect(strict.code).toBe(1);
}

it('leaves a recording and a receipt log that verify up to their last complete line after kill -9', async () => {
  const keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'crash' }).keyFile()), { mode: 0o600 });
  const out = join(dir, 'busy.jsonl');
  const log = join(dir, 'busy.receipts.jsonl');
  const peer = await startCliProcess(['peer', '--deterministic']);
  processes.push(peer);
  const recorder = await startRecordProcess([
    '--upstream',
    peer.url,
    '--out',
    out,
    '--key',
    keyFile,
    '--fsync',
    'never',
    '--max-body-bytes',
    String(64 << 20),
  ]);
  processes.push(recorder);

  // Eight clients keep the recorder busy with ROUNDS pause/resume rounds. Then one ListTasks answer of
  // several MB: the client has it as soon as its Content-Length is in, while the recorder still
  // parses and serializes it; the kill follows the moment the file starts to grow, so it lands
  // while that one large write is in flight and usually tears the line.
  let rounds = 0;
  let stopped = false;
  let enough: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (enough = resolve));
  const clients = Array.from({ length: 8 }, () =>
    pauseLoop(
      recorder.url,
      () => stopped,
      () => ++rounds === ROUNDS && enough(),
    ),
  );
  await reached;
  stopped = true;
  await Promise.all(clients);
  const listed = (await call(recorder.url, 'ListTasks', { pageSize: 100, historyLength: 10 })) as {
    result?: { tasks: unknown[] };
  };
  expect(listed.result?.tasks.length).toBeGreaterThanOrEqual(ROUNDS);
  const before = (await stat(out)).size;
  while ((await stat(out)).size === before && recorder.child.exitCode === null)
    await new Promise<void>((resolve) => setImmediate(resolve));
  recorder.child.kill('SIGKILL');
  await recorder.exited;

  // The recording: a torn tail left by the kill is named; a clean one is torn by hand.
  if ((await readFile(out, 'utf8')).endsWith('\n')) {
    const clean = await readRecording(out);
    expect(clean.entries.map((e) => e.seq)).toEqual(clean.entries.map((_, i) => i + 1));
    await tearLastLine(out);
  }
  expect(await expectTornRecording(out)).toBeGreaterThan(ROUNDS * 4);

  // The receipt log: a suspension and a resumption per round, never closed (no shutdown ran).
  const logText = await readFile(log, 'utf8');
  if (logText.endsWith('\n')) {
    const { code, result } = await verify(log, keyFile);
    expect(result).toMatchObject({ ok: true, tornTail: null, lines: newlines(logText) });
    expect(result.receipts).toBeGreaterThanOrEqual(ROUNDS * 2);
    expect(code).toBe(0);
    await tearLastLine(log);
  }
  await expectTornLog(log, keyFile);
});
