/**
 * The recording side of `record --rotate-after` / `--rotate-bytes` (src/record/rotation.ts) over
 * real files, its clock moved by hand: when a file is due, how the next is named, and that each
 * file reads as a recording on its own while the session's numbering runs on.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecorderOptionError } from '../../src/record/option-error.js';
import {
  RotatingRecording,
  assertNoLaterFiles,
  parseDuration,
  positionedPath,
  rotationLimits,
} from '../../src/record/rotation.js';
import { ManualClock } from '../../src/clock.js';
import { CounterIdSource } from '../../src/ids.js';
import { fileLineSink } from '../../src/recording/line-sink.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-rotation-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const draft = (xid: string) => ({ xid, kind: 'request' as const, http: { method: 'POST', path: '/' }, body: {} });

function rotating(clock: ManualClock, limits: { bytes: number | null; afterMs: number | null }): RotatingRecording {
  const ids = new CounterIdSource(1);
  const open = (path: string): RecordingWriter =>
    new RecordingWriter({ sink: fileLineSink(path), clock, ids, target: 'http://peer' });
  const path = join(dir, 's.jsonl');
  return new RotatingRecording({ first: open(path), path, position: 1, open, limits, clock, sync: true });
}

describe('RotatingRecording', () => {
  it('goes on in X.2.jsonl once the file has been open for --rotate-after, numbering on for the session', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const recording = rotating(clock, { bytes: null, afterMs: parseDuration('90s', 'rotateAfter') });
    recording.append(draft('x1'));
    clock.advance(89_999);
    expect(recording.due()).toBe(false);
    clock.advance(1);
    expect(recording.due()).toBe(true);
    const { closing } = recording.rotate();
    await closing;
    expect(recording.due()).toBe(false);
    const second = recording.append(draft('x2'));
    expect(second.seq).toBe(1);
    expect(recording.sessionEntry(second).seq).toBe(2);
    await recording.close();
    expect(recording.files).toEqual([join(dir, 's.jsonl'), join(dir, 's.2.jsonl')]);
    const [one, two] = await Promise.all(recording.files.map((f) => readRecording(f)));
    expect(one!.entries.map((e) => e.xid)).toEqual(['x1']);
    expect(two!.entries.map((e) => e.xid)).toEqual(['x2']);
    expect(two!.header.id).not.toBe(one!.header.id);
  });

  it('is not due while its file holds no entry, however long it has been open', () => {
    const clock = new ManualClock(0);
    const recording = rotating(clock, { bytes: 1, afterMs: 1000 });
    clock.advance(5000);
    expect(recording.due()).toBe(false);
    recording.append(draft('x1'));
    expect(recording.due()).toBe(true);
  });
});

describe('assertNoLaterFiles', () => {
  it('refuses to start over a later file of the series, naming it, and takes earlier or foreign ones', async () => {
    const out = join(dir, 's.jsonl');
    await writeFile(join(dir, 's.2.jsonl.bak'), '');
    await writeFile(join(dir, 'other.3.jsonl'), '');
    await assertNoLaterFiles([out, join(dir, 's.receipts.jsonl')], 1);
    await writeFile(join(dir, 's.4.receipts.jsonl'), '');
    await expect(assertNoLaterFiles([out], 1)).resolves.toBeUndefined();
    await expect(assertNoLaterFiles([out, join(dir, 's.receipts.jsonl')], 1)).rejects.toThrow(
      `${join(dir, 's.4.receipts.jsonl')} already exists`,
    );
    // A recorder continuing position 4 as s.4.jsonl writes s.5.* on.
    await expect(assertNoLaterFiles([join(dir, 's.4.receipts.jsonl')], 4)).resolves.toBeUndefined();
  });
});

describe('rotation options', () => {
  it('reads seconds, minutes and hours', () => {
    expect(parseDuration('90s', 'rotateAfter')).toBe(90_000);
    expect(parseDuration('15m', 'rotateAfter')).toBe(900_000);
    expect(parseDuration('24h', 'rotateAfter')).toBe(86_400_000);
  });

  it.each(['', '0s', '1.5h', '10', '10d', '-5m', 'm'])('refuses %j naming the option', (text) => {
    expect(() => parseDuration(text, 'rotateAfter')).toThrow(RecorderOptionError);
    expect(() => parseDuration(text, 'rotateAfter')).toThrow(/^rotateAfter: expected a whole number/);
  });

  it('takes milliseconds or a duration, and refuses a byte limit that is no whole number', () => {
    expect(rotationLimits({ rotateAfter: 5000 })).toEqual({ bytes: null, afterMs: 5000 });
    expect(rotationLimits({ rotateAfter: '2m' })).toEqual({ bytes: null, afterMs: 120_000 });
    expect(() => rotationLimits({ rotateBytes: 0 })).toThrow(/^rotateBytes: expected an integer of at least 1/);
  });

  it('gives no limits when neither flag is given', () => {
    expect(rotationLimits({})).toBeNull();
    expect(rotationLimits({ rotateBytes: 1_048_576 })).toEqual({ bytes: 1_048_576, afterMs: null });
  });

  it('names the file at each position as design §6 does', () => {
    expect(positionedPath('/d/s.jsonl', 1, 2)).toBe('/d/s.2.jsonl');
    expect(positionedPath('/d/s.receipts.jsonl', 1, 3)).toBe('/d/s.3.receipts.jsonl');
    // A recorder continuing position 2 as X.2.jsonl goes on in X.3.jsonl.
    expect(positionedPath('/d/s.2.jsonl', 2, 3)).toBe('/d/s.3.jsonl');
    expect(positionedPath('/d/s.2.receipts.jsonl', 2, 4)).toBe('/d/s.4.receipts.jsonl');
  });
});
