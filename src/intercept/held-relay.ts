/**
 * @module intercept/held-relay
 * Durable before acknowledged (docs/design.md §5): the recording proxy passes an upstream answer
 * to its client as it arrives, but releases the bytes that make a pause or resume observable only
 * once that receipt is durable. Each chunk is recorded first ({@link Exchange.data}); the holds its
 * entries produced ({@link Exchange.takeHold}) decide when it may go out. An SSE chunk waits for
 * the hold its events produced; a unary answer keeps its last chunk back until `finish` has
 * recorded the whole body, since the client cannot read the answer without it. Holds and the
 * client's back-pressure both pause the upstream, and whichever lets go last resumes it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Exchange } from './exchange-recorder.js';
import { endToEndRawHeaders, mediaType } from './http-headers.js';

/**
 * Passes the answer `from` on to `to` with its status and end-to-end headers, recording it on
 * `exchange` and releasing each chunk once its hold settles; `settle` runs once the answer is written.
 */
export function relayHeld(from: IncomingMessage, to: ServerResponse, exchange: Exchange, settle: () => void): void {
  to.writeHead(from.statusCode ?? 502, from.statusMessage, endToEndRawHeaders(from.rawHeaders));
  const stream = mediaType(from.headers['content-type']) === 'text/event-stream';
  if (stream) to.flushHeaders();
  // The chain of released writes still waiting on a hold; undefined when nothing waits.
  let gate: Promise<void> | undefined;
  const release = (action: () => void, hold: Promise<void> | undefined): void => {
    if (gate === undefined && hold === undefined) {
      action();
      return;
    }
    from.pause();
    const next = (gate ?? Promise.resolve()).then(() => hold).then(action);
    gate = next;
    void next.then(() => {
      if (gate !== next) return;
      gate = undefined;
      if (!to.writableNeedDrain) from.resume();
    });
  };
  const write = (chunk: Buffer): void => {
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => {
        if (gate === undefined) from.resume();
      });
    }
  };
  let last: Buffer | undefined;
  from.on('data', (chunk: Buffer) => {
    exchange.data(chunk);
    const hold = exchange.takeHold();
    if (stream) {
      release(() => write(chunk), hold);
      return;
    }
    const previous = last;
    last = chunk;
    if (previous !== undefined) release(() => write(previous), hold);
  });
  from.on('end', () => {
    exchange.finish();
    const tail = last;
    release(() => to.end(tail ?? '', settle), exchange.takeHold());
  });
}
