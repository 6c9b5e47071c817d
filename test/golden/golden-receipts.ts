/** The golden corpus as its tests read it: each receipt log parsed, and a copy with one field changed. */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../../src/public/core.js';

export const GOLDEN = join(import.meta.dirname, '..', '..', 'golden');
/** The published test key the golden receipts are signed with. */
export const GOLDEN_KEY = join(GOLDEN, 'test-key.json');

/** The golden scenarios' directory names, sorted (none when golden/ is missing). */
export async function goldenScenarioDirs(): Promise<string[]> {
  if (!existsSync(GOLDEN)) return [];
  return (await readdir(GOLDEN, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export interface Line {
  type: string;
  [key: string]: unknown;
}

/** The lines of `golden/<scenario>/recording.receipts.jsonl`, parsed. */
export async function lines(scenario: string): Promise<Line[]> {
  return (await readFile(join(GOLDEN, scenario, 'recording.receipts.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

/**
 * Copies the scenario's recording into `dir` beside its golden receipts with one field changed,
 * and returns the path the replay must name: a receipt's reason, else an interruption's prompt
 * hash (named by its identity and its line in the golden file), else the header's recording.
 */
export async function mutateGolden(name: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await copyFile(join(GOLDEN, name, 'recording.jsonl'), join(dir, 'recording.jsonl'));
  const all = await lines(name);
  const receipts = all.filter((l) => l.type === 'SuspensionReceipt' || l.type === 'ResumptionReceipt');
  const interruption = all.findIndex((l) => l.type === 'InterruptionReceipt');
  let path: string;
  if (receipts.length > 0) {
    (receipts[0] as Line).reason = 'reason-mutated';
    path = 'receipts[0].reason';
  } else if (interruption > 0) {
    const target = all[interruption] as Line;
    target.promptHash = `sha256:${'0'.repeat(64)}`;
    path = `receipts[0] (${String(target.taskId)} interruption 1, line ${interruption + 1}).promptHash`;
  } else {
    (all[0] as Line).recording = 'recording-mutated';
    path = 'header.recording';
  }
  await writeFile(join(dir, 'recording.receipts.jsonl'), `${all.map((l) => canonicalJson(l)).join('\n')}\n`);
  return path;
}
