/**
 * One shape for the three recorders (proxy, fetch wrapper, middleware) so the behaviour suite in
 * common.case.ts runs unchanged against each.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../src/clock.js';
import { CounterIdSource } from '../../src/ids.js';
import { ExchangeRecorder, type ExchangeRecorderOptions } from '../../src/intercept/exchange-recorder.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { MemoryLineSink } from '../../src/recording/line-sink.js';
import { RecordingWriter } from '../../src/recording/recording-writer.js';
import { RedactionMarks } from '../../src/recording/redaction-mark.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Harness {
  /** Sends a request through the recorder under test to the upstream. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Resolves once every recorded exchange has its last entry. */
  settled(): Promise<RecordingEntry[]>;
  /** The recording as JSONL text (after `settled`). */
  text(): Promise<string>;
  close(): Promise<void>;
}

export type HarnessFactory = (handler: Handler) => Promise<Harness>;

/** The mark key of every recorder the harness makes, so tests can name the marks they expect. */
export const TEST_MARK_KEY = Buffer.alloc(32, 0x5a);
const testMarks = new RedactionMarks(TEST_MARK_KEY);
/** The mark of `value` under {@link TEST_MARK_KEY}. */
export const testMark = (value: string): string => testMarks.mark(value);

export const START_MS = Date.UTC(2026, 0, 2, 3, 4, 5);

export async function listen(handler: Handler): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A recorder over an in-memory writer, plus a way to wait for exchanges to complete. */
export function memoryRecorder(
  target: string,
  options: Pick<ExchangeRecorderOptions, 'redact' | 'redactQuery' | 'principal' | 'markKey'> = {},
): {
  recorder: ExchangeRecorder;
  writer: RecordingWriter;
  sink: MemoryLineSink;
  entries: RecordingEntry[];
  settled: () => Promise<RecordingEntry[]>;
  errors: unknown[];
} {
  const sink = new MemoryLineSink();
  const writer = new RecordingWriter({ sink, clock: new ManualClock(START_MS), ids: new CounterIdSource(7), target });
  const entries: RecordingEntry[] = [];
  const errors: unknown[] = [];
  let wake: (() => void) | undefined;
  const complete = (): boolean => {
    const open = new Set<string>();
    for (const e of entries) {
      if (e.kind === 'request') open.add(e.xid);
      else if (e.kind === 'end' || e.kind === 'error') open.delete(e.xid);
      else if (e.kind === 'response' && e.http.headers?.['content-type']?.startsWith('text/event-stream') !== true) {
        open.delete(e.xid);
      }
    }
    return entries.length > 0 && open.size === 0;
  };
  const recorder = new ExchangeRecorder({
    markKey: TEST_MARK_KEY,
    ...options,
    writer,
    ids: new CounterIdSource(7),
    onEntry: (entry) => {
      entries.push(entry);
      wake?.();
    },
    onError: (error) => errors.push(error),
  });
  return {
    recorder,
    writer,
    sink,
    entries,
    errors,
    settled: async () => {
      while (!complete()) await new Promise<void>((resolve) => (wake = resolve));
      await writer.flush();
      return entries;
    },
  };
}
