/**
 * @module intercept/held-relay
 * Durable before acknowledged (docs/design.md §5): the recording proxy passes an upstream answer
 * to its client as it arrives, but releases the bytes that make a pause or resume observable only
 * once that receipt is durable. Each chunk is recorded first ({@link Exchange.data}); the holds its
 * entries produced ({@link Exchange.takeHold}) decide when it may go out. An SSE chunk waits for
 * the hold its events produced; a unary answer keeps its last chunk back until `finish` has
 * recorded the whole body, since the client cannot read the answer without it, and its head back
 * until its first chunk goes out. Holds and the client's back-pressure both pause the upstream,
 * and whichever lets go last resumes it. A hold that settles to a refusal (a full disk) refuses
 * the answer (`refuse`): what was held is never sent, and the upstream is still read to its end
 * and recorded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Exchange } from './exchange-recorder.js';
import { endToEndRawHeaders, mediaType } from './http-headers.js';
import { holdGate } from './hold-gate.js';

/**
 * Passes the answer `from` on to `to` with its status and end-to-end headers, recording it on
 * `exchange` and releasing each chunk once its hold settles; `settle` runs once the answer is
 * written, or refused. `refuse` answers instead, once, when a hold settles to a refusal: while
 * the head is not sent it answers whole; after, it ends what was sent.
 */
export function relayHeld(
  from: IncomingMessage,
  to: ServerResponse,
  exchange: Exchange,
  settle: () => void,
  refuse: (why: string) => void,
): void {
  const head = (): void => {
    if (!to.headersSent) to.writeHead(from.statusCode ?? 502, from.statusMessage, endToEndRawHeaders(from.rawHeaders));
  };
  const stream = mediaType(from.headers['content-type']) === 'text/event-stream';
  if (stream) {
    head();
    to.flushHeaders();
  }
  const { release, write } = holdGate(from, to);
  let refused = false;
  /** Writes `chunk` unless the answer is refused; refuses it, once, at the first refusal. */
  const pass =
    (chunk: Buffer) =>
    (refusal: string | undefined): void => {
      if (refusal === undefined) {
        head();
        write(chunk);
      } else if (!refused) {
        refused = true;
        refuse(refusal);
      }
    };
  let last: Buffer | undefined;
  from.on('data', (chunk: Buffer) => {
    exchange.data(chunk);
    const hold = exchange.takeHold();
    if (stream) {
      release(pass(chunk), hold);
      return;
    }
    const previous = last;
    last = chunk;
    if (previous !== undefined) release(pass(previous), hold);
  });
  from.on('end', () => {
    exchange.finish();
    const tail = last;
    release(
      (refusal) => {
        if (refusal === undefined) {
          head();
          to.end(tail ?? '', settle);
          return;
        }
        pass(Buffer.alloc(0))(refusal);
        settle();
      },
      exchange.takeHold(),
      true,
    );
  });
}
