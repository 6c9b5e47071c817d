/**
 * The mock keeps the recorded order across connections (docs/design.md §13, "Order across
 * connections"): a control call's answer recorded after events of a stream open on another
 * connection reaches the client after those events, as the recorded peer wrote them — checked by
 * order of arrival at a client holding both connections over real sockets.
 */
import { type IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningMock, startMockServer } from '../../src/mock/mock-server.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { ROOT } from '../helpers/cli.js';

// Recorded: the stream's first two events (seq 5, 6), AdvanceClock asked (7), the artifact event
// it caused on the stream (8), then AdvanceClock's answer (9). The stream is held at seq 7.
const RECORDING = join(ROOT, 'golden', 'v03-caller-pause-finish-step', 'recording.jsonl');
const STREAM_BODY = {
  id: 1,
  jsonrpc: '2.0',
  method: 'message/stream',
  params: {
    message: {
      kind: 'message',
      messageId: 'finish-m1',
      parts: [{ kind: 'text', text: 'work:1 tool:4 work:1' }],
      role: 'user',
    },
  },
};
const ADVANCE_BODY = { id: 2, jsonrpc: '2.0', method: 'AdvanceClock', params: { ms: 2500 } };

let mock: RunningMock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

function post(url: string, path: string, body: unknown, accept: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('mock order across connections', () => {
  it('writes the stream events recorded before a control answer before that answer, as they arrive', async () => {
    mock = await startMockServer([{ source: 'v03-finish', recording: await readRecording(RECORDING) }]);
    const url = mock.url;
    /** What reached the client, in order: `event <kind>` per SSE frame, `answer` for AdvanceClock's. */
    const arrivals: string[] = [];
    const stream = await post(url, '/', STREAM_BODY, 'text/event-stream');
    expect(stream.statusCode).toBe(200);
    let buffered = '';
    let onFrame: (() => void) | undefined;
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = frame
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n');
        const result = (JSON.parse(data) as { result: { kind: string } }).result;
        arrivals.push(`event ${result.kind}`);
        onFrame?.();
      }
    });
    const framesSeen = (n: number): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (arrivals.filter((a) => a.startsWith('event')).length >= n) resolve();
        };
        onFrame = check;
        check();
      });
    // The stream stops where the recording asked AdvanceClock: the task and its WORKING update.
    await framesSeen(2);
    expect(arrivals).toEqual(['event task', 'event status-update']);
    const answer = await post(url, '/control', ADVANCE_BODY, 'application/json');
    const text = await new Promise<string>((resolve) => {
      let all = '';
      answer.setEncoding('utf8');
      answer.on('data', (c: string) => (all += c));
      answer.once('end', () => {
        arrivals.push('answer');
        resolve(all);
      });
    });
    expect(JSON.parse(text)).toMatchObject({ id: 2, result: { now: '2026-01-01T00:00:02.500Z' } });
    await framesSeen(3);
    // The artifact event (recorded at seq 8) reached the client before the answer (seq 9).
    expect(arrivals).toEqual(['event task', 'event status-update', 'event artifact-update', 'answer']);
    stream.destroy();
  });
});
