/**
 * @module intercept/recording-fetch
 * A `fetch` that records what it carries: wrap any WHATWG fetch and hand the result to
 * `@a2a-js/sdk`'s `JsonRpcTransportFactory({fetchImpl})` and `DefaultAgentCardResolver({fetchImpl})`
 * (the SDK's `ClientFactoryOptions` take them there). SSE bodies are recorded event by event as
 * the caller reads them; a caller that cancels a stream gets an `error` entry. Other bodies are
 * read whole before the response is returned (A2A answers are small JSON documents), so the
 * recording never depends on whether the caller reads them.
 */
import { describeError } from '../errors.js';
import { type ExchangeRecorder, RESPONSE_CUT_MESSAGE } from './exchange-recorder.js';
import { mediaType } from './http-headers.js';

export interface RecordingFetchOptions {
  recorder: ExchangeRecorder;
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function keepIdentity(wrapped: Response, original: Response): Response {
  Object.defineProperty(wrapped, 'url', { value: original.url });
  Object.defineProperty(wrapped, 'redirected', { value: original.redirected });
  return wrapped;
}

/** Wraps `inner` so every exchange through it is recorded (see module doc). */
export function createRecordingFetch(inner: typeof fetch, options: RecordingFetchOptions): typeof fetch {
  const recorder = options.recorder;
  return async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.body === null ? undefined : new Uint8Array(await request.clone().arrayBuffer());
    const url = new URL(request.url);
    const exchange = recorder.request({
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers: request.headers,
      body,
    });

    let response: Response;
    try {
      response = await inner(request);
    } catch (error) {
      exchange.fail(`fetch ${url.origin} failed: ${describeError(error)}`);
      throw error;
    }
    exchange.head(response.status, response.headers, { decoded: true });

    if (response.body === null || NULL_BODY_STATUSES.has(response.status)) {
      exchange.finish();
      return response;
    }

    if (mediaType(response.headers.get('content-type') ?? undefined) !== 'text/event-stream') {
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        exchange.fail(RESPONSE_CUT_MESSAGE);
        throw error;
      }
      exchange.data(bytes);
      exchange.finish();
      return keepIdentity(
        new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers }),
        response,
      );
    }

    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const tapped = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          let result: Awaited<ReturnType<typeof reader.read>>;
          try {
            result = await reader.read();
          } catch (error) {
            exchange.fail(RESPONSE_CUT_MESSAGE);
            controller.error(error);
            return;
          }
          if (result.done) {
            exchange.finish();
            controller.close();
            return;
          }
          controller.enqueue(result.value);
          exchange.data(result.value);
        },
        cancel(reason) {
          exchange.fail('the client canceled the event stream');
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    return keepIdentity(
      new Response(tapped, { status: response.status, statusText: response.statusText, headers: response.headers }),
      response,
    );
  };
}
