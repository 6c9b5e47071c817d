/**
 * The golden corpus (golden/<scenario>/), in-process through the public entries: every receipt log
 * verifies with the test key (`verifyReceiptLog`, as `verify LOG --key` calls it); `lostPauses`
 * finds exactly the lost pause of each binding and the lost interruption of each open gate (as
 * `lost RECORDING` reads it); every trace file is OTLP JSON with the spans its scenario implies; a
 * one-field mutation of any golden file makes `replayRecordings` (what `run` calls) drift naming
 * that field; and a recording replayed against another response shape drifts, or with `update`
 * becomes its own golden. The CLI over the same corpus: test/e2e/golden-corpus.test.ts.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scripts/golden/scenarios.js';
import {
  type Keyring,
  defaultVerifyJobs,
  loadKeyring,
  lostPauses,
  openLogSet,
  verifyReceiptLog,
} from '../../src/public/receipts.js';
import { type RecordingResult, renderRecordingText, replayRecordings } from '../../src/public/replay.js';
import { EXIT_CODES } from '../../src/public/core.js';
import { GOLDEN, GOLDEN_KEY, goldenScenarioDirs, lines, mutateGolden } from './golden-receipts.js';

const TRACES = join(GOLDEN, '..', 'traces');
const KEY = GOLDEN_KEY;

const scenarioDirs = await goldenScenarioDirs();

let scratch = '';
let keyring: Keyring;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'golden-'));
  keyring = (await loadKeyring({ keys: [KEY], env: {} })).keyring;
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** `lost RECORDING` without its printing: the recording opened as a log set and its lost pauses read. */
async function lostIn(name: string) {
  const set = await openLogSet([join(GOLDEN, name, 'recording.jsonl')]);
  try {
    expect(set.kind).toBe('log');
    const found = await lostPauses({ ...set, keyring: undefined }, { explain: false });
    // `lost` exits 2 for requests in no dialect it reads; every golden recording is read (0 or 1).
    expect(found.gaps?.notUnderstood.count ?? 0, `${name}: requests not understood`).toBe(0);
    return found;
  } finally {
    await set.close();
  }
}

/** `run RECORDING [--legacy-pause]`'s one result, and the text it prints for it. */
async function replayOne(recording: string, options: { legacyPause?: boolean; update?: boolean } = {}) {
  const summary = await replayRecordings([recording], options);
  expect(summary.results).toHaveLength(1);
  const result = summary.results[0] as RecordingResult;
  return { exitCode: summary.exitCode, result, text: renderRecordingText(result) };
}

describe('the golden corpus', () => {
  it('holds every scenario, each with its recording, golden receipts and trace', () => {
    expect(scenarioDirs.length).toBeGreaterThan(0);
    expect(scenarioDirs).toEqual(SCENARIOS.map((s) => s.name).sort());
    for (const name of scenarioDirs) {
      expect(existsSync(join(GOLDEN, name, 'recording.jsonl')), `${name}/recording.jsonl`).toBe(true);
      expect(existsSync(join(GOLDEN, name, 'recording.receipts.jsonl')), `${name}/recording.receipts.jsonl`).toBe(true);
      expect(existsSync(join(TRACES, `${name}.otlp.json`)), `traces/${name}.otlp.json`).toBe(true);
    }
  });

  it.each(scenarioDirs)('verifies the golden receipt log of %s with the test key', async (name) => {
    const log = join(GOLDEN, name, 'recording.receipts.jsonl');
    const result = await verifyReceiptLog(log, {
      keyring,
      jobs: defaultVerifyJobs((await stat(log)).size, availableParallelism()),
      allowTornTail: false,
      allowOpen: false,
    });
    expect(result.ok, `${name}: ${JSON.stringify(result.firstError ?? null)}`).toBe(true);
  });

  it('finds exactly one lost pause per binding and dialect in the corpus, in the lost-pause scenarios', async () => {
    const lost: string[] = [];
    for (const name of scenarioDirs) for (const _ of (await lostIn(name)).lost) lost.push(name);
    expect(lost).toEqual(['grpc-lost-pause', 'lost-pause', 'rest-lost-pause', 'v03-lost-pause', 'v03-rest-lost-pause']);
  });

  it('finds the lost interruption of each scenario that leaves its gate open, with its reason', async () => {
    const lost: string[] = [];
    for (const name of scenarioDirs)
      for (const l of (await lostIn(name)).interruptions) lost.push(`${name}: ${l.reason} ${l.state}`);
    expect(lost).toEqual([
      'input-answered-as-new-task: continued_as_new_task TASK_STATE_INPUT_REQUIRED',
      'input-gate-bypassed: bypassed TASK_STATE_INPUT_REQUIRED',
      'input-never-answered: never_continued TASK_STATE_INPUT_REQUIRED',
      // Its INPUT_REQUIRED task is there to refuse a pause; nothing answers it.
      'pause-refused-terminal-and-input-required: never_continued TASK_STATE_INPUT_REQUIRED',
      // The v0.3 twins lose what their v1.0 originals lose.
      'v03-input-answered-as-new-task: continued_as_new_task TASK_STATE_INPUT_REQUIRED',
      'v03-input-gate-bypassed: bypassed TASK_STATE_INPUT_REQUIRED',
      'v03-input-never-answered: never_continued TASK_STATE_INPUT_REQUIRED',
      'v03-rest-input-answered-as-new-task: continued_as_new_task TASK_STATE_INPUT_REQUIRED',
      'v03-rest-input-gate-bypassed: bypassed TASK_STATE_INPUT_REQUIRED',
      'v03-rest-input-never-answered: never_continued TASK_STATE_INPUT_REQUIRED',
    ]);
  });

  it('keeps every trace file as OTLP JSON with the spans of its scenario', async () => {
    for (const name of scenarioDirs) {
      const trace = JSON.parse(await readFile(join(TRACES, `${name}.otlp.json`), 'utf8')) as {
        resourceSpans: {
          scopeSpans: {
            spans: { name: string; traceId: string; spanId: string; links?: unknown[]; status?: { code?: number } }[];
          }[];
        }[];
      };
      const spans = trace.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
      for (const span of spans) {
        expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      }
      const receipts = await lines(name);
      const suspensions = receipts.filter((l) => l.type === 'SuspensionReceipt').length;
      const closing = receipts.filter((l) => l.type === 'ResumptionReceipt' && l.outcome !== 'rejected').length;
      const count = (n: string, failed = false) =>
        spans.filter((s) => s.name === n && (s.status?.code === 2) === failed).length;
      // A refused PauseTask still shows as a Suspension span, ended with an error.
      expect(count('Suspension'), `${name} Suspension spans`).toBe(suspensions);
      expect(count('Suspension', true), `${name} failed Suspension spans`).toBe(
        name === 'pause-refused-terminal-and-input-required' ? 2 : 0,
      );
      // Every closing resumption has its Resume span (an error span when the task failed or was canceled).
      expect(count('Resume') + count('Resume', true), `${name} Resume spans`).toBeGreaterThanOrEqual(closing);
      // The lost-pause scenarios end with their pause open: a PauseOpenAtStop span, not a LostPause (§7); trace
      // files written before that drew a LostPause for it.
      const open = count('LostPause', true) + count('PauseOpenAtStop');
      expect(open, `${name} LostPause and PauseOpenAtStop spans`).toBe(name.endsWith('lost-pause') ? 1 : 0);
      for (const resume of spans.filter((s) => s.name === 'Resume'))
        expect(resume.links?.length).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('mutated golden files', () => {
  it.each(scenarioDirs)('%s: one changed field makes the replay drift naming that field', async (name) => {
    const dir = join(scratch, name);
    const path = await mutateGolden(name, dir);
    const { exitCode, result, text } = await replayOne(join(dir, 'recording.jsonl'));
    expect(result.outcome, text).toBe('drift');
    expect(exitCode).toBe(EXIT_CODES.drift);
    expect(result.receipts?.differences.map((d) => d.path)).toContain(path);
    expect(text).toContain(`${path}: expected`);
  });
});

describe('a corpus recording replayed against another response shape', () => {
  it('budget-interrupt against legacyPause drifts in via only: tokens map from resumeToken to handle', async () => {
    const { exitCode, text } = await replayOne(join(GOLDEN, 'budget-interrupt', 'recording.jsonl'), {
      legacyPause: true,
    });
    expect(exitCode).toBe(EXIT_CODES.drift);
    const receiptLines = text.split('\n').filter((l) => /^ {4}receipts\[/.test(l));
    expect(receiptLines.length).toBeGreaterThan(0);
    expect(
      receiptLines.every((l) => /^ {4}receipts\[\d+\]\.via: expected "PauseTask", actual "legacy-metadata"$/.test(l)),
    ).toBe(true);
  });

  it('update clears exchange drift too: live answers become the expectations; the next run passes', async () => {
    const dir = join(scratch, 'update-exchanges');
    await mkdir(dir, { recursive: true });
    for (const name of ['recording.jsonl', 'recording.receipts.jsonl'])
      await copyFile(join(GOLDEN, 'budget-interrupt', name), join(dir, name));
    const recording = join(dir, 'recording.jsonl');
    expect((await replayOne(recording, { legacyPause: true })).exitCode).toBe(EXIT_CODES.drift);
    const updated = await replayOne(recording, { legacyPause: true, update: true });
    expect(updated.exitCode, updated.text).toBe(EXIT_CODES.ok);
    expect(updated.result.outcome).toBe('updated');
    const again = await replayOne(recording, { legacyPause: true });
    expect(again.text).toMatch(/^PASS /m);
    expect(again.exitCode).toBe(EXIT_CODES.ok);
    // Rewritten as the recorder writes: no resume token in clear, seq contiguous.
    const text = await readFile(recording, 'utf8');
    expect(text).not.toMatch(/"(resumeToken|handle)":"(?!a2a-replay:resume-token:)/);
    const seqs = text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });
});
