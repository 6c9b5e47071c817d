/**
 * A real-time session recorded on a loaded machine, whose peer took the client's SendMessage late
 * (docs/design.md §8, "Real-time sessions"): the recorder wrote the request at T, the peer stamped
 * the task WORKING at T + 348 ms and worked from there. The virtual peer takes it at once, so the
 * replay must not then move its clock on to the recorded stamp (the task would run 348 ms ahead of
 * the recorded one and the first poll loop, its answer already past, could only end in timing
 * drift): the virtual peer makes the answer at once, and the clock stays where it made it.
 * Replayed in process through the library's `replayRecordings`, on the embedded peer with no
 * options, as `run FILE` does.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/canonical/canonical-json.js';
import { readRecording } from '../../src/public/intercept.js';
import { serializeLine } from '../../src/recording/recording-writer.js';
import { Keyring, loadKeyFile, readRecordingBinding } from '../../src/public/receipts.js';
import { TOOL_NAME, deriveReceiptLog, replayRecordings } from '../../src/public/replay.js';
import type { RecordingEntry } from '../../src/recording/format.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/real-time');
/** The fixture: `pollingSession(100)` against `peer --step-ms 100`, recorded under a load of 13 on 2 cores. */
const LATE_TAKE = join(FIXTURES, 'late-take.jsonl');

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'late-take-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const keyring = async (): Promise<Keyring> => new Keyring([(await loadKeyFile(join(FIXTURES, 'key.json'))).key]);

const iso = (ms: number): string => new Date(ms).toISOString();

/** The peer's own stamps an answer carries: where it stood when it made it. */
const STAMPS = new Set(['timestamp', 'pausedAt', 'resumedAt']);

/** `value` with every peer stamp in it `ms` later. */
function later(value: JsonValue | undefined, ms: number): JsonValue | undefined {
  if (Array.isArray(value)) return value.map((v) => later(v, ms) as JsonValue);
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: JsonValue } = {};
  for (const [k, v] of Object.entries(value))
    out[k] = STAMPS.has(k) && typeof v === 'string' ? iso(Date.parse(v) + ms) : (later(v, ms) as JsonValue);
  return out;
}

/**
 * The fixture as if its peer had taken the SendMessage `ms` later still: every entry after the
 * request (`at`, and the stamps of the peer's answers) `ms` later, written with golden receipts
 * derived from it as `record` derives them.
 */
async function takenLater(ms: number): Promise<string> {
  const { header, entries } = await readRecording(LATE_TAKE);
  const send = entries.find((e) => e.kind === 'request') as RecordingEntry;
  const shift = (e: RecordingEntry): RecordingEntry => {
    const at = iso(Date.parse(e.at) + ms);
    return e.body === undefined ? { ...e, at } : { ...e, at, body: later(e.body, ms) as JsonValue };
  };
  const shifted = entries.map((e) => (e.seq <= send.seq ? e : shift(e)));
  const name = `taken-${ms}`;
  const file = join(dir, `${name}.jsonl`);
  await writeFile(file, [header, ...shifted].map((line) => serializeLine(line)).join(''));
  const golden = await deriveReceiptLog({
    header,
    entries: shifted,
    keyring: await keyring(),
    tool: TOOL_NAME,
    recording: await readRecordingBinding(file),
  });
  await writeFile(join(dir, `${name}.receipts.jsonl`), `${golden.lines.join('\n')}\n`);
  return file;
}

describe('a real-time session whose peer took the SendMessage late', () => {
  it('shows the late take in the fixture: WORKING stamped 348 ms after the request was written', async () => {
    const { entries } = await readRecording(LATE_TAKE);
    const [request, answer] = entries;
    const stamped = (answer?.body as { result: { task: { status: { timestamp: string } } } }).result.task.status;
    expect(request?.kind).toBe('request');
    expect(Date.parse(stamped.timestamp) - Date.parse(request?.at ?? '')).toBe(348);
    // Its first poll loop is one read, 56 ms long: nothing in it to catch up from a clock already past.
    const gets = entries.filter((e) => e.kind === 'request' && JSON.stringify(e.body).includes('"GetTask"'));
    expect(gets[0]?.seq).toBe(3);
    expect(entries[4]?.body).toMatchObject({ method: 'PauseTask' });
  });

  it('replays to PASS with no options, twice in a row', async () => {
    const summary = await replayRecordings([LATE_TAKE, LATE_TAKE], { keyring: await keyring() });
    for (const result of summary.results) {
      expect(result.drift.map((d) => d.type)).toEqual([]);
      expect(result.outcome).toBe('match');
    }
    expect(summary.exitCode).toBe(0);
  });

  for (const ms of [652, 2652]) {
    it(`replays to PASS when the peer took it ${ms + 348} ms after the request was written`, async () => {
      const file = await takenLater(ms);
      const summary = await replayRecordings([file], { keyring: await keyring() });
      const [result] = summary.results;
      expect(result?.drift.map((d) => d.type)).toEqual([]);
      expect(result?.outcome).toBe('match');
    });
  }
});
