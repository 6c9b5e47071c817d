/**
 * A recording and its receipt log given to the report together are one view: each pause once, as
 * the receipt log says it, with what only the recording shows added; files that do not belong
 * together stay apart and say so.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { loadKeyring } from '../../src/receipts/key-file.js';
import {
  type ReportInput,
  fileSections,
  joinedSection,
  pairReportInputs,
  receiptLogSection,
  recordingSection,
} from '../../src/report/build-report.js';
import { renderHtmlReport } from '../../src/report/html-report.js';
import { ROOT } from '../helpers/cli.js';

const GOLDEN = join(ROOT, 'golden');
const recordingOf = (scenario: string): string => join(GOLDEN, scenario, 'recording.jsonl');
const logOf = (scenario: string): string => join(GOLDEN, scenario, 'recording.receipts.jsonl');
const idOf = async (file: string, field: 'id' | 'recording'): Promise<string> => {
  const text = await readFile(file, 'utf8');
  return (JSON.parse(text.slice(0, text.indexOf('\n'))) as Record<string, string>)[field] as string;
};
const recordingInput = async (scenario: string): Promise<ReportInput> => ({
  file: recordingOf(scenario),
  kind: 'recording',
  id: await idOf(recordingOf(scenario), 'id'),
});
const logInput = async (scenario: string, file = logOf(scenario)): Promise<ReportInput> => ({
  file,
  kind: 'receipt log',
  id: await idOf(file, 'recording'),
});

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-join-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a recording and its receipt log in one report', () => {
  it("show each pause once, with the receipt log's hash, verification and lost verdict", async () => {
    const { keyring } = await loadKeyring({ keys: [join(GOLDEN, 'test-key.json')], publicKeys: [], env: {} });
    const section = await joinedSection(recordingOf('lost-pause'), logOf('lost-pause'), keyring);
    expect(section.kind).toBe('recording + receipt log');
    expect(section.verdict).toBe('1 pause, 1 lost, verified');
    expect(section.rows).toHaveLength(1);
    const [row] = section.rows;
    const log = (await readFile(logOf('lost-pause'), 'utf8')).split('\n');
    expect(row?.receiptHash).toBe(sha256Prefixed(log.find((l) => l.includes('"SuspensionReceipt"')) ?? ''));
    expect(row?.verification.status).toBe('verified');
    expect(row?.outcome).toBe('lost');
    expect(row?.ended).toBe('LOST: recording_ended');
    // The lanes keep the recording's states, and draw the pause once.
    expect(section.lanes).toHaveLength(1);
    expect(section.lanes[0]?.states.map((s) => s.state)).toContain('TASK_STATE_PAUSED');
    expect(section.lanes[0]?.pauses).toHaveLength(1);
  });

  it('name the rules that proved and ended each pause, from the recording; a log alone names none', async () => {
    const proved = 'pending/proven';
    const ended = 'open/end-recording-ended';
    const joined = await joinedSection(recordingOf('lost-pause'), logOf('lost-pause'), undefined);
    expect(joined.rows.map((r) => r.rules)).toEqual([{ pause: proved, end: ended }]);
    const recording = await recordingSection(recordingOf('lost-pause'));
    expect(recording.rows.map((r) => r.rules)).toEqual([{ pause: proved, end: ended }]);
    const alone = await receiptLogSection(logOf('lost-pause'), undefined);
    expect(alone.rows.map((r) => r.rules)).toEqual([null]);
    const html = renderHtmlReport({ title: 'rules', createdAt: '2025-01-01T00:00:00.000Z', sections: [joined] });
    expect(html).toContain(`<td class="c7">proved by ${proved}; ended by ${ended}</td>`);
    expect(html).toMatch(new RegExp(`<li class="lost-item"[^]*by rule <code class="rule">${ended}</code>`));
    const logHtml = renderHtmlReport({ title: 'rules', createdAt: '2025-01-01T00:00:00.000Z', sections: [alone] });
    expect(logHtml).toContain('<td class="c7">-</td>');
    expect(logHtml).not.toContain('by rule');
  });

  it('add a pause only the recording shows, marked as such', async () => {
    const lines = (await readFile(logOf('budget-interrupt'), 'utf8')).split('\n').filter((l) => l !== '');
    const suspensions = lines.filter((l) => l.includes('"type":"SuspensionReceipt"'));
    const dropped = (JSON.parse(suspensions[2] as string) as { taskId: string }).taskId;
    const cut = join(dir, 'cut.receipts.jsonl');
    await writeFile(cut, `${lines.filter((l) => !l.includes(`"taskId":"${dropped}"`)).join('\n')}\n`);
    const sections = await fileSections(
      [await recordingInput('budget-interrupt'), await logInput('budget-interrupt', cut)],
      undefined,
    );
    expect(sections).toHaveLength(1);
    const rows = sections[0]?.rows ?? [];
    expect(rows.map((r) => r.taskId).sort()).toEqual(
      [...new Set(suspensions.map((s) => (JSON.parse(s) as { taskId: string }).taskId))].sort(),
    );
    const only = rows.filter((r) => r.verification.why === 'only in the recording, not in its receipt log');
    expect(only.map((r) => r.taskId)).toEqual([dropped]);
    expect(sections[0]?.notes).toContain('1 pause is only in the recording, not in its receipt log');
  });

  it('keep files that do not belong together apart, each saying why', async () => {
    const inputs = [await recordingInput('lost-pause'), await logInput('wrong-token-then-right')];
    expect(pairReportInputs(inputs).map((p) => p.kind)).toEqual(['alone', 'alone']);
    const sections = await fileSections(inputs, undefined);
    expect(sections.map((s) => s.kind)).toEqual(['recording', 'receipt log']);
    expect(sections[0]?.notes[0]).toBe(
      `not joined: no receipt log given and left unjoined names this recording's id (${inputs[0]?.id})`,
    );
    expect(sections[1]?.notes[0]).toBe(
      `not joined: no recording given and left unjoined has this log's recording id (${inputs[1]?.id})`,
    );
    await expect(joinedSection(recordingOf('lost-pause'), logOf('wrong-token-then-right'), undefined)).rejects.toThrow(
      new RegExp(
        'wrong-token-then-right/recording\\.receipts\\.jsonl: its header names recording "rec-[^"]+", ' +
          'not "rec-[^"]+" of .*lost-pause/recording\\.jsonl; they are not joined',
      ),
    );
  });

  it('pair a log given before its recording, once, in the place of the first of the two', async () => {
    const a = await recordingInput('lost-pause');
    const b = await logInput('lost-pause');
    const c = await recordingInput('timeout-fail');
    const again = { ...a };
    const parts = pairReportInputs([b, c, a, again]);
    expect(parts.map((p) => (p.kind === 'joined' ? [p.recording, p.log] : [p.input]))).toEqual([[a, b], [c], [again]]);
    expect(parts[0]?.kind).toBe('joined');
    for (const part of parts.slice(1)) expect(part.kind === 'alone' ? part.note : null).toMatch(/^not joined: /);
  });
});
