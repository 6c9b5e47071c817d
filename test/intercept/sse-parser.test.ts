import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseParser } from '../../src/intercept/sse-parser.js';
import { fuzzRuns } from '../helpers/fuzz.js';

const STREAM =
  'data: {"a":1}\r\n\r\n: comment\nevent: status\nid: 7\ndata: line one\ndata: line ' +
  'two\n\ndata:no-space\r\rretry: 10\n\n';
const EXPECTED = [{ data: '{"a":1}' }, { data: 'line one\nline two', event: 'status', id: '7' }, { data: 'no-space' }];

describe('SseParser', () => {
  it('parses CRLF, CR and LF line ends, comments, multi-line data, event and id', () => {
    const parser = new SseParser();
    expect([...parser.push(STREAM), ...parser.end().events]).toEqual(EXPECTED);
  });

  it('gives the same events whatever the chunk boundaries, byte by byte included', () => {
    const bytes = new TextEncoder().encode(STREAM);
    for (const size of [1, 2, 3, 5, 8, 13]) {
      const parser = new SseParser();
      const events = [];
      for (let i = 0; i < bytes.length; i += size) events.push(...parser.push(bytes.subarray(i, i + size)));
      events.push(...parser.end().events);
      expect(events).toEqual(EXPECTED);
    }
  });

  it('keeps a multi-byte character split across chunks', () => {
    const bytes = new TextEncoder().encode('data: "é😀"\n\n');
    const parser = new SseParser();
    const events = [
      ...parser.push(bytes.subarray(0, 8)),
      ...parser.push(bytes.subarray(8, 10)),
      ...parser.push(bytes.subarray(10)),
    ];
    expect(events).toEqual([{ data: '"é😀"' }]);
  });

  it('does not dispatch an event cut off before its blank line, and says so', () => {
    const parser = new SseParser();
    expect(parser.push('data: {"a":1}\n\ndata: {"b"')).toEqual([{ data: '{"a":1}' }]);
    expect(parser.end()).toEqual({ events: [], incomplete: true });
  });

  it('ignores a leading byte order mark and events with no data', () => {
    const parser = new SseParser();
    expect(parser.push('\ufeffevent: x\n\ndata: y\n\n')).toEqual([{ data: 'y' }]);
  });

  it('keeps at most the cap of the data of an event, says it was cut, and parses on after it', () => {
    const parser = new SseParser(10);
    const events = [
      ...parser.push('data: 0123456789abc\n\ndata: 01234\ndata: 56789\n\n'),
      ...parser.push('data: 0123456789\n\ndata: ok\n\n'),
    ];
    expect(events).toEqual([
      { data: '0123456789', truncated: true },
      { data: '01234\n5678', truncated: true },
      { data: '0123456789' },
      { data: 'ok' },
    ]);
  });

  it('holds only the cap of a line that never ends, however many chunks it comes in', () => {
    const parser = new SseParser(100);
    expect(parser.push('data: {"a":1}\n\nevent: big\ndata: ')).toEqual([{ data: '{"a":1}' }]);
    for (let i = 0; i < 2000; i++) expect(parser.push('y'.repeat(1000))).toEqual([]);
    expect(parser.push('\n\ndata: after\n\n')).toEqual([
      { data: 'y'.repeat(100), event: 'big', truncated: true },
      { data: 'after' },
    ]);
    parser.push('data: ' + 'z'.repeat(5000));
    expect(parser.end()).toEqual({ events: [], incomplete: true });
  });

  it('gives the events of an uncapped parser, data cut at the cap, whatever the chunks', () => {
    const line = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'é', '😀', ':', ' '), maxLength: 30 }).map((v) => `data: ${v}`),
      fc.constantFrom('', ': comment', 'event: e', 'id: 1', 'data'),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 20 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 17 }),
        (lines, eol, cap, size) => {
          const text = lines.map((l) => l + eol).join('') + eol;
          const bytes = new TextEncoder().encode(text);
          const capped = new SseParser(cap);
          const got = [];
          for (let i = 0; i < bytes.length; i += size) got.push(...capped.push(bytes.subarray(i, i + size)));
          got.push(...capped.end().events);
          const plain = new SseParser();
          const want = [...plain.push(text), ...plain.end().events].map((e) =>
            e.data.length > cap ? { ...e, data: e.data.slice(0, cap), truncated: true } : e,
          );
          expect(got).toEqual(want);
        },
      ),
      { numRuns: fuzzRuns(1000) },
    );
  });
});
