/**
 * Lines reach a file as the bytes of their concatenation in UTF-8, without being joined into one
 * string first (src/recording/line-sink.ts, LineEncoder): small and large batches, batches past
 * the buffer an encoder keeps, every kind of code unit, through each way a file sink writes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { LineEncoder, fileLineSink } from '../../src/recording/line-sink.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'line-encoder-'));
  dirs.push(dir);
  return join(dir, 'lines.jsonl');
};

const joinedBytes = (lines: readonly string[]): Buffer => Buffer.from(lines.join(''), 'utf8');

describe('LineEncoder', () => {
  it('gives the bytes of the joined lines for any text, the buffer reused or grown', () => {
    const encoder = new LineEncoder();
    // Whole lines, each ending with its newline, as the writers hand them over.
    const line = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }).map((s) => `${s}\n`),
      fc.string({ unit: 'grapheme', maxLength: 50 }).map((s) => `${s}\n`),
      fc.integer({ min: 1, max: 300_000 }).map((n) => `${'x'.repeat(n)}\n`),
      fc.integer({ min: 1, max: 40_000 }).map((n) => `${'\u4e2d'.repeat(n)}\n`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        expect(encoder.encode(lines).equals(joinedBytes(lines))).toBe(true);
      }),
      { numRuns: fuzzRuns(150), seed: 2025 },
    );
  });

  it('encodes a batch larger than the buffer it keeps, and then small ones again', () => {
    const encoder = new LineEncoder();
    const huge = ['\u00e9'.repeat(3 * 1024 * 1024), '\ud83d\ude00\n', 'tail\n'];
    expect(encoder.encode(huge).equals(joinedBytes(huge))).toBe(true);
    const small = ['{"a":1}\n', '\udc00 lone\n'];
    expect(encoder.encode(small).equals(joinedBytes(small))).toBe(true);
  });
});

describe('fileLineSink', () => {
  it('writes lines, text and synchronous batches in order, byte for byte', async () => {
    const path = tempFile();
    const sink = fileLineSink(path);
    const big = `${'y'.repeat(200_000)}\n`;
    const written: string[] = [];
    const add = (lines: string[]): string[] => (written.push(...lines), lines);
    await sink.writeLines!(add(['{"seq":1}\n', big, '{"caf\u00e9":"\ud83d\ude00"}\n']));
    await sink.write(add(['{"seq":2}\n'])[0]!);
    expect(sink.writeLinesNow!(add([big, '{"seq":3}\n']))).toBe(true);
    expect(sink.writeNow!(add(['{"seq":4}\n'])[0]!)).toBe(true);
    await sink.close();
    expect(readFileSync(path).equals(joinedBytes(written))).toBe(true);
  });

  it('keeps lines whole when a caller writes again before its last write ended', async () => {
    const path = tempFile();
    const sink = fileLineSink(path);
    const a = `${'a'.repeat(300_000)}\n`;
    const b = `${'b'.repeat(300_000)}\n`;
    await Promise.all([sink.writeLines!([a]), sink.writeLines!([b])]);
    await sink.close();
    const text = readFileSync(path, 'utf8');
    expect(text.length).toBe(a.length + b.length);
    expect([text.slice(0, a.length), text.slice(a.length)].sort()).toEqual([a, b]);
  });

  it('cannot write synchronously before the file is open', () => {
    const sink = fileLineSink(tempFile());
    expect(sink.writeLinesNow!(['x\n'])).toBe(false);
    expect(sink.writeNow!('x\n')).toBe(false);
  });
});
