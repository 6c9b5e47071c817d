/**
 * The report as a library call (`a2a-replay/report`, docs/design.md §12): the sections `report`
 * reads and the file it writes, through the public entry alone.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadKeyring } from '../../src/public/receipts.js';
import { pausesOf, reportInputOf, reportSections, writeHtmlReport } from '../../src/public/report.js';

const GOLDEN = join(import.meta.dirname, '..', '..', 'golden');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-library-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the report as a library call', () => {
  it('joins a recording with its verified log into one section and writes the lost pause in the file', async () => {
    const scenario = join(GOLDEN, 'lost-pause');
    const { keyring } = await loadKeyring({ keys: [join(GOLDEN, 'test-key.json')] });
    const sections = await reportSections(
      [join(scenario, 'recording.jsonl'), join(scenario, 'recording.receipts.jsonl')],
      { keyring },
    );
    expect(sections).toHaveLength(1);
    expect(pausesOf(sections[0]!)).toBe(1);
    expect(sections[0]!.rows.map((r) => r.outcome)).toEqual(['lost']);
    const out = join(dir, 'report.html');
    await writeHtmlReport(out, sections, 'lost-pause');
    const html = await readFile(out, 'utf8');
    expect(html).toContain('<title>lost-pause</title>');
    expect(html).toContain('recording_ended');
  });

  it('reads a header of any length: a continued log names its open pauses on line 1', async () => {
    // A header over the 1 MiB one read used to take: read so, it was "not JSON".
    const log = join(dir, 'long-header.receipts.jsonl');
    const header = { type: 'ReceiptLog', recording: 'rec-long', pad: 'x'.repeat(1 << 21) };
    await writeFile(log, `${JSON.stringify(header)}\n`);
    expect(await reportInputOf(log)).toEqual({ file: log, kind: 'receipt log', id: 'rec-long' });
  });

  it('names the file and line of a header that is not one', async () => {
    const file = join(dir, 'other.jsonl');
    await writeFile(file, '{"type":"something"}\n');
    await expect(reportInputOf(file)).rejects.toThrow(`${file}:1: neither a recording nor a receipt log header`);
    await expect(reportInputOf(join(dir, 'missing.jsonl'))).rejects.toThrow('missing.jsonl: cannot read (ENOENT)');
  });
});
