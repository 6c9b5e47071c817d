/**
 * @module peer/sse-reply
 * The stream half of a {@link Reply}, the same for both adapters (docs/design.md §4): each
 * StreamResponse framed as the binding frames it, a last `event: error` frame when an event
 * cannot be serialised or the call fails after the stream opened.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../errors.js';
import type { HttpLimits } from '../http/limits.js';
import { openSse, sseFrame } from '../http/sse-writer.js';
import type { StreamResponse } from '../protocol/types.js';
import type { RequestHandler, StreamSink } from './request-handler.js';
import type { Caller } from './task-engine.js';
import { type A2aVersionSetting, endsV03Stream } from './v03-dialect.js';

/**
 * A request's target as the peer routes it: the path as src/http/request-target.ts reads it
 * (docs/design.md §5) and the query.
 */
export interface PeerTarget {
  path: string;
  query: URLSearchParams;
}

/** What both adapters are built from. */
export interface AdapterOptions {
  handler: RequestHandler;
  limits: HttpLimits;
  /** Which dialects the peer serves (`peer --a2a-version`). */
  a2aVersion: A2aVersionSetting;
  /** The request's A2A-Version ('' for none). */
  versionOf: (req: IncomingMessage, target: PeerTarget) => string;
  /** The request's caller, named as the recorder names it. */
  callerOf: (req: IncomingMessage, method: string) => Caller;
  log: (line: string) => void;
}

/**
 * Opens the SSE stream of one call: `body(event)` is the binding's data for an event, and
 * `unserialisable()` its error body when an event cannot be serialised.
 */
export function openSseStream(
  res: ServerResponse,
  log: (line: string) => void,
  body: (event: StreamResponse) => unknown,
  unserialisable: () => unknown,
): StreamSink {
  const sse = openSse(res);
  return {
    send(event: StreamResponse): Promise<void> {
      let data: string;
      try {
        data = JSON.stringify(body(event));
      } catch (error) {
        log(`peer: cannot serialise a stream event: ${errorMessage(error)}`);
        return sse.write(JSON.stringify(unserialisable()), 'error');
      }
      return sse.write(data);
    },
    close: () => sse.end(),
    onClose: (listener) => sse.onClose(listener),
  };
}

/** Ends an open stream with an error frame; false when nothing was sent yet (answer it whole). */
export function failOpenStream(res: ServerResponse, body: unknown): boolean {
  if (!res.headersSent) return false;
  if (!res.writableEnded) res.end(sseFrame(JSON.stringify(body), 'error'));
  return true;
}

/** `sink` ending after its `final` event, as a v0.3 stream does (an interrupted state included). */
export function endingAtFinal(sink: StreamSink): StreamSink {
  return {
    send: (event) => {
      const sent = sink.send(event);
      return endsV03Stream(event) ? sent.then(() => sink.close()) : sent;
    },
    close: () => sink.close(),
    onClose: (listener) => sink.onClose(listener),
  };
}
