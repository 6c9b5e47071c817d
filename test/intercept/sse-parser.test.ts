import { describe, expect, it } from 'vitest';
import { SseParser } from '../../src/internal.js';

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
});
