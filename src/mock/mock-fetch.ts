/**
 * @module mock/mock-fetch
 * The mock in process (docs/design.md §13): a `fetch` that answers from recordings with no socket,
 * for unit tests of a client — `@a2a-js/sdk`'s `JsonRpcTransportFactory` and
 * `DefaultAgentCardResolver` take it as their `fetchImpl`. The same {@link MockEngine} as the
 * server decides every answer; only the URL's path and query are looked at, so any base URL works
 * (the agent card points at `options.url`). An aborted request cancels its exchange.
 */
import { requestVersion } from './match.js';
import type { Recording } from '../recording/recording-reader.js';
import { incomingBody } from './match.js';
import { MockEngine, type MockOptions, type MockReport } from './mock-engine.js';
import { type MockOutput, eventFrame } from './mock-output.js';

/** Where the in-process mock says it lives, unless `url` is given. */
export const DEFAULT_MOCK_URL = 'http://mock.a2a-replay.invalid';

export interface MockFetchOptions extends MockOptions {
  /** The URL the agent card points at (default {@link DEFAULT_MOCK_URL}); pass it to `createFromUrl`. */
  url?: string;
  /** Names the recordings in reports and errors (default `recording-1`, ...). */
  sources?: readonly string[];
}

/** A `fetch` answering from recordings, with what was and was not requested so far. */
export type MockFetch = typeof fetch & { url: string; report(): MockReport };

/** Creates the in-process mock of `recording` (or several). */
export function createMockFetch(
  recording: Recording | readonly Recording[],
  options: MockFetchOptions = {},
): MockFetch {
  const recordings: readonly Recording[] = Array.isArray(recording) ? recording : [recording as Recording];
  const engine = new MockEngine(
    recordings.map((r, i) => ({ recording: r, source: options.sources?.[i] ?? `recording-${i + 1}` })),
    options,
  );
  const url = options.url ?? DEFAULT_MOCK_URL;
  engine.url = url;
  const mockFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const text = await request.text();
    const target = new URL(request.url);
    const queue = engine.handle({
      method: request.method,
      path: `${target.pathname}${target.search}`,
      ...incomingBody(text),
      text,
      version: requestVersion(request.headers.get('a2a-version'), `${target.pathname}${target.search}`),
    });
    const signal = request.signal;
    if (signal.aborted) queue.cancel();
    else signal.addEventListener('abort', () => queue.cancel(), { once: true });
    const outputs = queue[Symbol.asyncIterator]();
    const first = await outputs.next();
    if (first.done) throw new TypeError('the mock is closing');
    const head: MockOutput = first.value;
    switch (head.kind) {
      case 'unary':
        // Taken whole: the answer counts as written (design §13, "Order across connections").
        void outputs.return?.(undefined);
        return new Response(head.text, { status: head.status, headers: head.headers });
      case 'break':
        void outputs.return?.(undefined);
        throw new TypeError(`fetch failed: ${head.reason}`);
      case 'head': {
        const encoder = new TextEncoder();
        let cancelled = false;
        // Written as released, as a socket is, whether or not the client reads yet: the answers
        // recorded after an event wait for it to be written, not for the client to read it.
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            void (async () => {
              for (;;) {
                const next = await outputs.next();
                if (cancelled) return;
                if (next.done || next.value.kind === 'end' || next.value.kind === 'break') {
                  void outputs.return?.(undefined);
                  if (!next.done && next.value.kind === 'break') controller.error(new TypeError(next.value.reason));
                  else controller.close();
                  return;
                }
                if (next.value.kind === 'event') controller.enqueue(encoder.encode(eventFrame(next.value)));
              }
            })();
          },
          cancel() {
            cancelled = true;
            queue.cancel();
          },
        });
        return new Response(body, { status: head.status, headers: head.headers });
      }
      case 'event':
      case 'end':
        throw new TypeError(`the mock answered with ${head.kind} before a head`);
      default: {
        const never: never = head;
        throw new TypeError(`unknown output ${JSON.stringify(never)}`);
      }
    }
  };
  return Object.assign(mockFetch as typeof fetch, { url, report: () => engine.report() });
}
