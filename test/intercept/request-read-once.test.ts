/**
 * The recorder reads each request in its dialect for its `a2aVersion`; the observer takes that
 * reading instead of reading the entry again, but only when the entry as written holds exactly what
 * was read: a request whose body redaction marked anything, or whose body the writer repaired, is
 * read again from the entry as written (docs/design.md §14.11).
 */
import { describe, expect, it } from 'vitest';
import { CounterIdSource } from '../../src/ids.js';
import { ExchangeRecorder } from '../../src/intercept/exchange-recorder.js';
import { readObservedRequest, rememberedRequestRead } from '../../src/observe/dialect-view.js';
import { EntryMethods } from '../../src/observe/entry-methods.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { type EntryDraft, writtenLine } from '../../src/recording/recording-writer.js';

/** Records one request as the recorder does and returns the entry the observer is handed, and its line. */
function recordRequest(body: string, headers: Record<string, string> = {}): { entry: RecordingEntry; line: string } {
  let line = '';
  const writer = {
    append(draft: EntryDraft): RecordingEntry {
      const written = writtenLine({ seq: 1, at: '2026-12-07T00:00:00.000Z', ...draft });
      line = written.line;
      return written.entry;
    },
  };
  const seen: RecordingEntry[] = [];
  const recorder = new ExchangeRecorder({ writer, ids: new CounterIdSource(), onEntry: (e) => void seen.push(e) });
  recorder.request({
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/json', ...headers },
    body: Buffer.from(body),
  });
  expect(seen).toHaveLength(1);
  return { entry: seen[0]!, line };
}

const v03Send = (text: string): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: { message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text }] } },
  });

describe('a request read once', () => {
  it('hands the observer the recorder’s reading when the entry holds what was read', () => {
    for (const body of [
      '{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"t-1"}}',
      v03Send('hello'),
      '{"jsonrpc":"2.0","id":8,"method":"no/such"}',
      '{"jsonrpc":"1.0"}',
    ]) {
      const { entry } = recordRequest(body, { 'a2a-version': '1.0' });
      const remembered = rememberedRequestRead(entry);
      expect(remembered, body).toBeDefined();
      expect(remembered, body).toEqual(readObservedRequest(entry));
      expect(new EntryMethods().requestOf(entry), body).toBe(remembered);
    }
    const { entry, line } = recordRequest(v03Send('hello'));
    expect(entry.a2aVersion).toBe('0.3');
    expect(line).toContain('"a2aVersion":"0.3"');
  });

  it('reads the entry as written again when redaction marked anything in its body', () => {
    const { entry, line } = recordRequest(v03Send('see https://alice:pw@example.com/x'));
    expect(line).not.toContain('alice');
    expect(rememberedRequestRead(entry)).toBeUndefined();
    const view = new EntryMethods().requestOf(entry);
    expect(view).toEqual(readObservedRequest(entry));
    expect(view?.kind).toBe('call');
    // The v0.3 parts are copied into v1.0 shapes: a reading taken before redaction would hold the user-info.
    expect(JSON.stringify(view)).not.toContain('alice');
    expect(entry.a2aVersion).toBe('0.3');
  });

  it('reads the entry as written again when the writer repaired its body', () => {
    const { entry, line } = recordRequest('{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","n":1e400}}');
    expect(line).toContain('"n":null');
    expect(rememberedRequestRead(entry)).toBeUndefined();
    expect(new EntryMethods().requestOf(entry)).toEqual(readObservedRequest(entry));
  });
});
