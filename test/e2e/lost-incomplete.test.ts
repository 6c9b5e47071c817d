/**
 * `lost` on a recording whose entries do not hold all the peer sent (docs/design.md §5, §14): an
 * entry the recorder could not read (`incomplete`) or keeps as its head (`cut`) hides what it
 * showed, so the recording is reported INCOMPLETE, naming the line, seq and why, with exit 1,
 * even when no pause is lost; the same recording whole is clean. `verify --recording` checks the
 * recording is the log's. The built CLI shows what `lost` prints for each kind of gap and its
 * refusal; the verdicts alone are the library calls the commands make.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadKeyring } from '../../src/public/receipts.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { lostVerdict, verifyVerdict, expectNoLostInRecording } from '../helpers/verdicts.js';

const GOLDEN = join(ROOT, 'golden/agent-self-park-on-event/recording.jsonl');
/** Line 9 of the golden recording: the stream event that shows the task PAUSED (seq 8). */
const PAUSED_LINE = 9;

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lost-incomplete-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The golden recording with its PAUSED event replaced by what `change` makes of it. */
async function withPausedEvent(change: (entry: Record<string, unknown>) => Record<string, unknown>): Promise<string> {
  const lines = (await readFile(GOLDEN, 'utf8')).trimEnd().split('\n');
  const entry = JSON.parse(lines[PAUSED_LINE - 1] as string) as Record<string, unknown>;
  expect(JSON.stringify(entry.body)).toContain('TASK_STATE_PAUSED');
  lines[PAUSED_LINE - 1] = JSON.stringify(change(entry));
  const file = join(dir, 'changed.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

it('finds the golden recording clean', async () => {
  const lost = await lostVerdict([GOLDEN]);
  expect(lost.json).toMatchObject({ lost: [], complete: true });
  // What makes `lost` print exactly `no lost pauses in FILE (recording)`.
  expectNoLostInRecording(lost.found);
  expect(lost.code).toBe(0);
});

it('reports a recording with an entry the recorder could not read as incomplete, naming it', async () => {
  const file = await withPausedEvent(({ body: _body, ...entry }) => ({
    ...entry,
    bodyText: '[gzip-encoded body of 90 bytes not recorded: it is not valid data of that encoding]',
    incomplete: 'content-encoding gzip: it is not valid data of that encoding',
  }));
  const lost = await runCli(['lost', file]);
  expect(lost.stdout).toContain('(recording, INCOMPLETE)');
  expect(lost.stdout).toContain('INCOMPLETE: 1 entry of');
  expect(lost.stdout).toContain(
    `changed.jsonl:${PAUSED_LINE}: seq ${PAUSED_LINE - 1}: the recorder could not read it: ` +
      'content-encoding gzip: it is not valid data of that encoding',
  );
  expect(lost.code).toBe(1);
  const json = await lostVerdict([file]);
  expect(json.json).toMatchObject({ complete: false, incomplete: [{ line: 9, seq: 8 }] });
  expect(json.code).toBe(1);
});

it('reports a recording with a body kept as its head as incomplete, pointing to the receipt log', async () => {
  const file = await withPausedEvent(({ body, ...entry }) => ({
    ...entry,
    bodyText: JSON.stringify(body).slice(0, 64),
    cut: { bytes: JSON.stringify(body).length, sha256: `sha256:${'0'.repeat(64)}` },
  }));
  const lost = await runCli(['lost', file]);
  expect(lost.stdout).toMatch(
    new RegExp(
      'changed\\.jsonl:9: seq 8: the recording keeps the first part of its \\d+-byte body only \\(sha256:0+\\); ' +
        'the recorder observed it whole, so its receipt log holds what it showed',
    ),
  );
  expect(lost.code).toBe(1);
});

it('refuses a cut that does not say what was cut, naming the line', async () => {
  const file = await withPausedEvent(({ body: _body, ...entry }) => ({ ...entry, bodyText: '{', cut: { bytes: 9 } }));
  const lost = await runCli(['lost', file]);
  expect(lost.stderr).toContain(`changed.jsonl:${PAUSED_LINE}`);
  expect(lost.stderr).toContain('entry field "cut" is not {bytes: a whole number, sha256: "sha256:<64 hex>"}');
  expect(lost.code).toBe(2);
});

it('verify --recording accepts the log with its own recording and refuses another recording', async () => {
  const log = GOLDEN.replace(/\.jsonl$/, '.receipts.jsonl');
  const { keyring } = await loadKeyring({ keys: [join(ROOT, 'golden/test-key.json')], env: {} });
  const own = await verifyVerdict([log], keyring, { checks: { recording: GOLDEN } });
  expect(own.stdout).toContain('recording.jsonl: complete: the recorder read every answer whole');
  expect(own.code).toBe(0);
  const other = join(ROOT, 'golden/cancel-while-paused/recording.jsonl');
  const wrong = await verifyVerdict([log], keyring, { checks: { recording: other } });
  expect(wrong.stdout).toContain(`${other}: not the recording of ${log}`);
  expect(wrong.code).toBe(1);
});
