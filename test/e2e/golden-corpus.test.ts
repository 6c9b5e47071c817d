/**
 * The golden corpus (golden/<scenario>/) replays to zero drift on the embedded reference peer, byte
 * for byte with --strict; a one-field mutation of any golden file is caught and named; every
 * receipt log verifies; `lost` finds exactly the lost pause of each binding; every trace file is OTLP JSON
 * with the spans its scenario implies.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scripts/golden/scenarios.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { ROOT, runCli } from '../helpers/cli.js';

const GOLDEN = join(ROOT, 'golden');
const TRACES = join(ROOT, 'traces');
const KEY = join(GOLDEN, 'test-key.json');

const scenarioDirs = existsSync(GOLDEN)
  ? (await readdir(GOLDEN, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
  : [];

interface LogLine {
  type: string;
  [key: string]: unknown;
}

async function logLines(file: string): Promise<LogLine[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as LogLine);
}

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'golden-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

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

  it('replays to zero drift on the embedded peer, and byte for byte with --strict', async () => {
    const recordings = scenarioDirs.map((name) => join(GOLDEN, name, 'recording.jsonl'));
    const plain = await runCli(['run', ...recordings, '--concurrency', '2']);
    expect(plain.stdout + plain.stderr).not.toMatch(/DRIFT|FAIL/);
    expect(plain.code).toBe(0);
    const strict = await runCli(['run', ...recordings, '--key', KEY, '--strict', '--concurrency', '2']);
    expect(strict.code, strict.stdout + strict.stderr).toBe(0);
  });

  it('verifies every golden receipt log with the test key', async () => {
    for (const name of scenarioDirs) {
      const r = await runCli(['verify', join(GOLDEN, name, 'recording.receipts.jsonl'), '--key', KEY]);
      expect(r.code, `${name}: ${r.stdout}${r.stderr}`).toBe(0);
    }
  });

  it('finds exactly one lost pause per binding and dialect in the corpus, in the lost-pause scenarios', async () => {
    const lost: string[] = [];
    for (const name of scenarioDirs) {
      const r = await runCli(['lost', join(GOLDEN, name, 'recording.jsonl'), '--json']);
      expect([0, 1]).toContain(r.code);
      const found = JSON.parse(r.stdout) as { lost: unknown[] };
      for (let i = 0; i < found.lost.length; i++) lost.push(name);
    }
    expect(lost).toEqual(['grpc-lost-pause', 'lost-pause', 'rest-lost-pause', 'v03-lost-pause', 'v03-rest-lost-pause']);
  });

  it('finds the lost interruption of each scenario that leaves its gate open, with its reason', async () => {
    const lost: string[] = [];
    for (const name of scenarioDirs) {
      const r = await runCli(['lost', join(GOLDEN, name, 'recording.jsonl'), '--json']);
      const found = JSON.parse(r.stdout) as { lostInterruptions: { reason: string; state: string }[] };
      for (const l of found.lostInterruptions) lost.push(`${name}: ${l.reason} ${l.state}`);
    }
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
      const receipts = await logLines(join(GOLDEN, name, 'recording.receipts.jsonl'));
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
  it.each(scenarioDirs)('%s: one changed field makes run exit 1 naming that field', async (name) => {
    const dir = join(scratch, name);
    await mkdir(dir, { recursive: true });
    await copyFile(join(GOLDEN, name, 'recording.jsonl'), join(dir, 'recording.jsonl'));
    const lines = await logLines(join(GOLDEN, name, 'recording.receipts.jsonl'));
    const receiptIndex = lines.filter((l) => l.type === 'SuspensionReceipt' || l.type === 'ResumptionReceipt');
    const interruption = lines.findIndex((l) => l.type === 'InterruptionReceipt');
    let path: string;
    if (receiptIndex.length > 0) {
      const target = receiptIndex[0] as LogLine;
      target.reason = 'reason-mutated';
      path = 'receipts[0].reason';
    } else if (interruption > 0) {
      // An interruption is named by its identity and its line in the golden file.
      const target = lines[interruption] as LogLine;
      target.promptHash = `sha256:${'0'.repeat(64)}`;
      path = `receipts[0] (${String(target.taskId)} interruption 1, line ${interruption + 1}).promptHash`;
    } else {
      (lines[0] as LogLine).recording = 'recording-mutated';
      path = 'header.recording';
    }
    await writeFile(join(dir, 'recording.receipts.jsonl'), `${lines.map((l) => canonicalJson(l)).join('\n')}\n`);
    const r = await runCli(['run', join(dir, 'recording.jsonl')]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(`${path}: expected`);
  });
});

describe('a corpus recording replayed against another response shape', () => {
  it('budget-interrupt against --legacy-pause drifts in via only: tokens map from resumeToken to handle', async () => {
    const r = await runCli(['run', join(GOLDEN, 'budget-interrupt', 'recording.jsonl'), '--legacy-pause']);
    expect(r.code).toBe(1);
    const receiptLines = r.stdout.split('\n').filter((l) => /^ {4}receipts\[/.test(l));
    expect(receiptLines.length).toBeGreaterThan(0);
    expect(
      receiptLines.every((l) => /^ {4}receipts\[\d+\]\.via: expected "PauseTask", actual "legacy-metadata"$/.test(l)),
    ).toBe(true);
  });

  it('--update clears exchange drift too: live answers become the expectations; the next run passes', async () => {
    const dir = join(scratch, 'update-exchanges');
    await mkdir(dir, { recursive: true });
    for (const name of ['recording.jsonl', 'recording.receipts.jsonl'])
      await copyFile(join(GOLDEN, 'budget-interrupt', name), join(dir, name));
    const recording = join(dir, 'recording.jsonl');
    expect((await runCli(['run', recording, '--legacy-pause'])).code).toBe(1);
    const updated = await runCli(['run', recording, '--legacy-pause', '--update']);
    expect(updated.code).toBe(0);
    const again = await runCli(['run', recording, '--legacy-pause']);
    expect(again.stdout).toMatch(/^PASS /m);
    expect(again.code).toBe(0);
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
