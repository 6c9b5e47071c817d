/**
 * The blocks `verify --jobs` hands its workers (`LineSplitter.pushBlock`, split by `splitBlock`)
 * give exactly the lines of `LineSplitter.push`, whatever the chunk boundaries: a line across
 * chunks, a multi-byte character cut by a boundary, a last line without its newline, CRLF ends
 * (kept in the text, as the reader does), byte order marks, bytes that are not UTF-8 and lines
 * over the length limit. And both decode as a fatal `TextDecoder` (keeping byte order marks) would,
 * for any bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LineBlock, LineSplitter, type RawLine, splitBlock } from '../../src/receipts/log-reader.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const MAX = 24;

function byPush(bytes: Buffer, size: number): RawLine[] {
  const splitter = new LineSplitter(MAX);
  const out: RawLine[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(...splitter.push(bytes.subarray(at, at + size)));
  const last = splitter.end();
  return last ? [...out, last] : out;
}

function byBlocks(bytes: Buffer, size: number): { lines: RawLine[]; blocks: LineBlock[] } {
  const splitter = new LineSplitter(MAX);
  const lines: RawLine[] = [];
  const blocks: LineBlock[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    for (const item of splitter.pushBlock(bytes.subarray(at, at + size))) {
      if ('bytes' in item) {
        blocks.push(item);
        const split = splitBlock(item, MAX);
        expect(split).toHaveLength(item.count);
        lines.push(...split);
      } else lines.push(item);
    }
  }
  const last = splitter.end();
  return { lines: last ? [...lines, last] : lines, blocks };
}

const inputs: [string, Buffer][] = [
  ['plain lines', Buffer.from('{"a":1}\n{"b":2}\n{"c":3}\n')],
  ['multi-byte characters', Buffer.from('{"é":"ü€𝄞"}\n{"x":"日本語"}\n€€€€\n')],
  ['no final newline', Buffer.from('{"a":1}\n{"b":"€ torn')],
  ['CRLF', Buffer.from('{"a":1}\r\n{"b":2}\r\n\r\n')],
  ['byte order marks', Buffer.from('\uFEFF{"a":1}\n\uFEFF{"b":2}\nx\uFEFFy\n')],
  [
    'not UTF-8',
    Buffer.concat([Buffer.from('ok\n'), Buffer.from([0x7b, 0xff, 0x7d, 0x0a, 0xe2, 0x82]), Buffer.from('\nok\n')]),
  ],
  ['too long', Buffer.from(`short\n${'x'.repeat(30)}\n${'€'.repeat(9)}\n${'y'.repeat(24)}\nend\n${'z'.repeat(40)}`)],
  ['empty lines', Buffer.from('\n\n{"a":1}\n\n')],
];

describe('LineSplitter.pushBlock and splitBlock', () => {
  for (const [name, bytes] of inputs) {
    it(`give the lines of push for ${name}, at every chunk size`, () => {
      for (let size = 1; size <= bytes.length; size++) {
        const want = byPush(bytes, size);
        const { lines, blocks } = byBlocks(bytes, size);
        expect(lines, `chunks of ${size}`).toEqual(want);
        for (const block of blocks) {
          expect(block.bytes.byteOffset).toBe(0);
          expect(block.bytes.buffer.byteLength).toBe(block.bytes.byteLength);
        }
      }
    });
  }

  it('splits a long block line by line too, with the numbers it is given', () => {
    const text = `${'a'.repeat(20)}\n${'b'.repeat(30)}\n${'c'.repeat(10)}\n`;
    const lines = splitBlock({ first: 7, count: 3, bytes: new Uint8Array(Buffer.from(text)) }, MAX);
    expect(lines.map((l) => [l.number, l.text, l.problem])).toEqual([
      [7, 'a'.repeat(20), null],
      [8, null, `longer than ${MAX} bytes`],
      [9, 'c'.repeat(10), null],
    ]);
  });
});

/** The lines of `bytes` as a fatal TextDecoder that keeps byte order marks reads each one. */
function byTextDecoder(bytes: Buffer): RawLine[] {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const lines: RawLine[] = [];
  let start = 0;
  for (let number = 1; start < bytes.length; number++) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl === -1 ? bytes.length : nl;
    const line = bytes.subarray(start, end);
    let text: string | null = null;
    let problem: string | null = null;
    if (line.length > MAX) problem = `longer than ${MAX} bytes`;
    else {
      try {
        text = decoder.decode(line);
      } catch {
        problem = 'not valid UTF-8';
      }
    }
    lines.push({ number, text, problem, complete: nl !== -1 });
    start = end + 1;
  }
  return lines;
}

describe('decoding', () => {
  // Bytes that make up characters of every length, parts of them, a byte order mark, surrogates
  // encoded as UTF-8 (not valid), over-long forms and newlines.
  const piece = fc.oneof(
    fc.constantFrom(
      [0x0a],
      [0x61],
      [0xef, 0xbb, 0xbf],
      [0xc3, 0xa9],
      [0xe2, 0x82, 0xac],
      [0xf0, 0x9d, 0x84, 0x9e],
      [0xed, 0xa0, 0x80],
      [0xc0, 0xaf],
      [0xf4, 0x90, 0x80, 0x80],
    ),
    fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 3 }),
  );
  const bytes = fc.array(piece, { maxLength: 40 }).map((pieces) => Buffer.from(pieces.flat()));

  it('push and splitBlock give the lines a fatal TextDecoder reads, for any bytes', () => {
    fc.assert(
      fc.property(bytes, fc.integer({ min: 1, max: 16 }), (input, size) => {
        const want = byTextDecoder(input);
        expect(byPush(input, size)).toEqual(want);
        expect(byBlocks(input, size).lines).toEqual(want);
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });
});
