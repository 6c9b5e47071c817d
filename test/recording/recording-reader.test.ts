/**
 * The recording reader is the same whatever the chunking of its input: lines split across any
 * number of chunks (multi-byte characters and CRLF included) read as when the file comes whole,
 * a torn last line is still reported, and a line of megabytes in small chunks reads intact.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RecordingLineRead, readRecordingStream } from '../../src/recording/recording-reader.js';
import { ROOT } from '../helpers/cli.js';

async function readAll(chunks: Iterable<Uint8Array | string>, allowTornTail = false): Promise<RecordingLineRead[]> {
  const out: RecordingLineRead[] = [];
  async function* input(): AsyncGenerator<Uint8Array | string> {
    yield* chunks;
  }
  for await (const line of readRecordingStream(input(), { allowTornTail })) out.push(line);
  return out;
}

function chunked(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** A request entry line with `extra` members. */
function requestLine(extra: Record<string, unknown>): string {
  const base = { at: '2026-01-01T00:00:00.000Z', http: { method: 'POST', path: '/' }, kind: 'request', seq: 1 };
  return JSON.stringify({ ...base, xid: 'x-1', ...extra });
}

const golden = readFileSync(join(ROOT, 'golden/wrong-token-then-right/recording.jsonl'));

describe('readRecordingStream', () => {
  it('reads the same lines whatever the chunk size, byte by byte included', async () => {
    const whole = await readAll([golden]);
    expect(whole.length).toBeGreaterThan(5);
    for (const size of [1, 7, 64, 4096]) expect(await readAll(chunked(golden, size))).toEqual(whole);
  });

  it('keeps multi-byte characters and CRLF line ends split across chunks', async () => {
    const header = golden.toString('utf8').split('\n')[0] as string;
    const entry = requestLine({ body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'tâche-€-𝄞' } } });
    const bytes = Buffer.from(`${header}\r\n${entry}\r\n`, 'utf8');
    const lines = await readAll(chunked(bytes, 1));
    expect(lines).toHaveLength(2);
    const read = lines[1];
    expect(read?.kind === 'entry' ? JSON.stringify(read.entry) : '').toContain('tâche-€-𝄞');
  });

  it('reports a torn last line split across chunks, and reads a 4 MB line in 64 KiB chunks', async () => {
    const text = golden.toString('utf8');
    const torn = Buffer.from(`${text}{"at":"2026-01-01T00:00:00.000Z","ki`, 'utf8');
    await expect(readAll(chunked(torn, 5))).rejects.toThrow(/torn last line/);
    expect((await readAll(chunked(torn, 5), true)).length).toBe((await readAll([golden])).length);

    const header = text.split('\n')[0] as string;
    const big = 'x'.repeat(4 * 1024 * 1024);
    const entry = requestLine({ bodyText: big });
    const lines = await readAll(chunked(Buffer.from(`${header}\n${entry}\n`, 'utf8'), 64 * 1024));
    const read = lines[1];
    expect(read?.kind === 'entry' ? (read.entry as { bodyText?: string }).bodyText?.length : 0).toBe(big.length);
  });
});
