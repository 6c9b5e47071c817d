/**
 * `record --continue-from`: a pause outlives the recorder that saw it begin (docs/design.md §6,
 * "Series"). A `record` process stopped with SIGTERM, and one killed with -9, between a pause and
 * its resume, each continued by a new recorder (`startRecorder` with `continueFrom`, in the test's
 * process, in front of the reference peer, also in it): the resume's receipt in the new log names
 * the suspension's receipt in the old one, `lost` over the series finds nothing lost and `verify`
 * over it passes. A three-log series with its middle log left out, two logs swapped, or a log of
 * another series put in, fails `verify` naming what is wrong. What `verify`, `lost` and `audit`
 * conclude is read with the library calls those commands make (test/helpers/verdicts.ts);
 * a `record --continue-from` process says a torn last line on stderr and refuses an edited log.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { type Recorder, startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { auditVerdict, lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { type CliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';
import { ok } from '../replay/session.js';

let dir = '';
let keyFile = '';
let peer: RunningPeer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-continue-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'series' }).keyFile()), { mode: 0o600 });
  peer = await startPeer({ deterministic: true, storeDir: join(dir, 'peer-store') });
});
afterAll(async () => {
  await peer.close();
  await rm(dir, { recursive: true, force: true });
});

/** The recorder `record` runs, in this process, into `out` (continuing `from` when given), fsync always. */
function recordHere(out: string, from?: string): Promise<Recorder> {
  return startRecorder({
    upstream: peer.url,
    out,
    key: keyFile,
    fsync: 'always',
    ...(from === undefined ? {} : { continueFrom: from }),
    // What `record` would say on stderr (a torn last line continued from, say) is not checked here.
    warn: () => undefined,
  });
}

/** Closes a recorder started here: true when it wrote all (`record` exits 0). */
async function closeHere(recorder: Recorder): Promise<boolean> {
  return (await recorder.close()).complete;
}

/** `record` into `out` (continuing `from` when given), with every receipt fsynced before its answer. */
function record(out: string, from?: string): Promise<CliProcess> {
  return startRecordProcess([
    '--upstream',
    peer.url,
    '--out',
    out,
    '--key',
    keyFile,
    '--fsync',
    'always',
    '--quiet',
    ...(from === undefined ? [] : ['--continue-from', from]),
  ]);
}

/** A task paused through `url`: its id and resume token. */
async function pauseTask(url: string, text: string): Promise<{ taskId: string; resumeToken: string }> {
  const sent = await ok<{ task: { id: string } }>(url, 'SendMessage', {
    message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    configuration: { returnImmediately: true },
  });
  const paused = await ok<{ state: string; pause: { resumeToken: string } }>(url, 'PauseTask', {
    taskId: sent.task.id,
    reason: text,
  });
  expect(paused.state).toBe('TASK_STATE_PAUSED');
  return { taskId: sent.task.id, resumeToken: paused.pause.resumeToken };
}

async function resumeTask(url: string, pause: { taskId: string; resumeToken: string }): Promise<void> {
  const resumed = await ok<{ state: string }>(url, 'ResumeTask', pause);
  expect(resumed.state).not.toBe('TASK_STATE_PAUSED');
}

interface Line {
  text: string;
  value: { type: string; taskId?: string; suspension?: string; outcome?: string; series?: unknown };
}

/** The complete lines of a log (a kill may have torn the last). */
async function linesOf(file: string): Promise<Line[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .slice(0, -1)
    .map((line) => ({ text: line, value: JSON.parse(line) as Line['value'] }));
}

const receipts = (recording: string): string => recording.replace(/\.jsonl$/, '.receipts.jsonl');

/**
 * A session over three recorders: a pause through the first, a `record` process stopped by `stop`
 * (or, for `close`, a recorder in this process closed, as SIGTERM closes one); the second,
 * continuing it, sees a second pause and the first resumed, and is closed; the third resumes the
 * second pause. Gives the three recordings.
 */
async function threeRecorders(name: string, stop: 'SIGTERM' | 'SIGKILL' | 'close'): Promise<string[]> {
  const at = join(dir, name);
  await mkdir(at);
  const files = [join(at, 's.jsonl'), join(at, 's.2.jsonl'), join(at, 's.3.jsonl')];
  if (stop === 'close') {
    const first = await recordHere(files[0]!);
    const pauseA = await pauseTask(first.url, `${name}-a`);
    expect(await closeHere(first)).toBe(true);
    await continueTwice(files, pauseA, name);
    return files;
  }
  const first = await record(files[0]!);
  const pauseA = await pauseTask(first.url, `${name}-a`);
  await stopProcess(first, stop);
  await continueTwice(files, pauseA, name);
  return files;
}

/** The second and third recorders of {@link threeRecorders}. */
async function continueTwice(
  files: string[],
  pauseA: { taskId: string; resumeToken: string },
  name: string,
): Promise<void> {
  const second = await recordHere(files[1]!, files[0]);
  const pauseB = await pauseTask(second.url, `${name}-b`);
  await resumeTask(second.url, pauseA);
  expect(await closeHere(second)).toBe(true);

  const third = await recordHere(files[2]!, files[1]);
  await resumeTask(third.url, pauseB);
  expect(await closeHere(third)).toBe(true);
}

describe.each(['SIGTERM', 'SIGKILL'] as const)('record --continue-from after a %s', (stop) => {
  let files: string[] = [];
  beforeAll(async () => {
    files = await threeRecorders(stop.toLowerCase(), stop);
  }, 60_000);

  it('pairs the resume with the pause the stopped recorder saw begin, by its receipt hash', async () => {
    const [first, second, third] = await Promise.all(files.map((f) => linesOf(receipts(f))));
    const pauseA = first!.find((l) => l.value.type === 'SuspensionReceipt')!;
    const pauseB = second!.find((l) => l.value.type === 'SuspensionReceipt')!;
    const resumeA = second!.find((l) => l.value.type === 'ResumptionReceipt')!;
    const resumeB = third!.find((l) => l.value.type === 'ResumptionReceipt')!;
    expect(resumeA.value).toMatchObject({ taskId: pauseA.value.taskId, outcome: 'resumed' });
    expect(resumeA.value.suspension).toBe(sha256Prefixed(pauseA.text));
    expect(resumeB.value).toMatchObject({ taskId: pauseB.value.taskId, outcome: 'resumed' });
    expect(resumeB.value.suspension).toBe(sha256Prefixed(pauseB.text));
    // Each continuing header links to the log before it: its header, its end.
    expect(second![0]!.value.series).toMatchObject({
      position: 2,
      previous: { header: sha256Prefixed(first![0]!.text), closed: stop === 'SIGTERM' },
    });
    expect(third![0]!.value.series).toMatchObject({
      position: 3,
      previous: { header: sha256Prefixed(second![0]!.text) },
    });
  });

  it('finds no lost pause over the series, which the first log alone reports lost', async () => {
    const logs = files.map(receipts);
    const series = await lostVerdict(logs, { keys: keyFile, allowTornTail: true });
    expect(series.found?.kind).toBe('series');
    expect(series.found?.lost).toEqual([]);
    expect(series.code).toBe(0);
    const alone = await lostVerdict([logs[0]!], { allowTornTail: true });
    expect(alone.found?.lost).toHaveLength(1);
    expect(alone.code).toBe(1);
  });

  it('audits the series as one log: each pause one row, ended by the resume a later log holds', async () => {
    const logs = files.map(receipts);
    const series = await auditVerdict([logs[2]!, logs[1]!, logs[0]!], keyFile);
    expect(series.code).toBe(0);
    const rows = series.rows as unknown as { reason: string; outcome: string; cause: string }[];
    expect(rows.map((r) => [r.reason, r.outcome, r.cause])).toEqual([
      [`${stop.toLowerCase()}-a`, 'resumed', 'explicit_resume'],
      [`${stop.toLowerCase()}-b`, 'resumed', 'explicit_resume'],
    ]);
    const alone = await auditVerdict([logs[0]!], keyFile, { allowOpen: true, allowTornTail: true });
    expect(alone.rows.map((r) => r.outcome)).toEqual(['open']);
  });

  it('verifies the series, given in any order or as its directory', async () => {
    const logs = files.map(receipts);
    const shuffled = await verifyVerdict([logs[2]!, logs[0]!, logs[1]!], keyFile);
    expect(shuffled.lines.join('\n')).toContain('ok: 3 logs, each linked to the one before it');
    expect(shuffled.code).toBe(0);
    const directory = await verifyVerdict([join(dir, stop.toLowerCase())], keyFile);
    expect(directory.code).toBe(0);
  });

  it('fails naming the gap when the middle log is left out', async () => {
    const logs = files.map(receipts);
    const result = await verifyVerdict([logs[0]!, logs[2]!], keyFile);
    expect(result.lines.join('\n')).toContain(
      `gap between ${logs[0]} (position 1) and ${logs[2]} (position 3): 1 log is missing`,
    );
    expect(result.code).toBe(1);
  });

  it('fails naming the files when two logs are swapped', async () => {
    const logs = files.map(receipts);
    const swapped = join(dir, `${stop}-swapped`);
    await mkdir(swapped);
    await copyFile(logs[0]!, join(swapped, 's.receipts.jsonl'));
    await copyFile(logs[1]!, join(swapped, 's.3.receipts.jsonl'));
    await copyFile(logs[2]!, join(swapped, 's.2.receipts.jsonl'));
    const result = await verifyVerdict([swapped], keyFile);
    const stdout = result.lines.join('\n');
    // Which of the two is named first depends on nothing but the order they are read in.
    expect(stdout).toMatch(/s\.([23])\.receipts\.jsonl holds position [23] of its series, but its name says \1/);
    expect(stdout).toContain('files were swapped or renamed');
    expect(result.code).toBe(1);
  });
});

describe('verify over a series with a log of another series put in', () => {
  it('names the log that belongs to another series', async () => {
    const ours = await threeRecorders('ours', 'close');
    const theirs = await threeRecorders('theirs', 'close');
    const mixed = await verifyVerdict([receipts(ours[0]!), receipts(theirs[1]!), receipts(ours[2]!)], keyFile);
    expect(mixed.lines.join('\n')).toContain(`${receipts(theirs[1]!)} belongs to series`);
    expect(mixed.lines.join('\n')).toContain('a log from another series was put in');
    expect(mixed.code).toBe(1);
  }, 120_000);
});

describe('record --continue-from a log that was cut or edited', () => {
  let recording = '';
  beforeAll(async () => {
    const at = join(dir, 'damaged');
    await mkdir(at);
    recording = join(at, 's.jsonl');
    const first = await recordHere(recording);
    await pauseTask(first.url, 'damaged');
    expect(await closeHere(first)).toBe(true);
  }, 60_000);

  it('continues after a torn last line and says so on stderr', async () => {
    const at = join(dir, 'torn');
    await mkdir(at);
    const copy = join(at, 's.jsonl');
    await copyFile(recording, copy);
    const log = await readFile(receipts(recording), 'utf8');
    // A recorder killed mid-line: the closing checkpoint half written, without its newline.
    await writeFile(receipts(copy), log.slice(0, log.length - 40), { mode: 0o600 });
    const next = await record(join(at, 's.2.jsonl'), copy);
    expect(await stopProcess(next)).toBe(0);
    const lines = log.split('\n').length - 1;
    expect(next.stderr()).toContain(`line ${lines} is torn (the recorder was killed mid-line)`);
    const linked = (await linesOf(join(at, 's.2.receipts.jsonl')))[0]!.value.series;
    expect(linked).toMatchObject({ previous: { lines: lines - 1, closed: false } });
  });

  it('refuses a log whose receipt was edited, naming the line', async () => {
    const at = join(dir, 'edited');
    await mkdir(at);
    const copy = join(at, 's.jsonl');
    await copyFile(recording, copy);
    const log = await readFile(receipts(recording), 'utf8');
    await writeFile(receipts(copy), log.replace('"reason":"damaged"', '"reason":"changed"'), { mode: 0o600 });
    const refused = await runCli([
      'record',
      '--upstream',
      peer.url,
      '--out',
      join(at, 's.2.jsonl'),
      '--key',
      keyFile,
      '--continue-from',
      copy,
    ]);
    expect(refused.stderr).toMatch(/--continue-from: .*s\.receipts\.jsonl:2: does not verify \(bad_signature/);
    expect(refused.code).toBe(2);
  });
});
