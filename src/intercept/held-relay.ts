/**
 * @module intercept/held-relay
 * Durable before acknowledged (docs/design.md §5): the recording proxy passes an upstream answer
 * to its client as it arrives, but releases the bytes that make a pause or resume observable only
 * once that receipt is durable. Each chunk is recorded first ({@link Exchange.data}); the holds its
 * entries produced ({@link Exchange.takeHold}) decide when it may go out. An SSE chunk waits for
 * the hold its events produced; a unary answer keeps its last chunk back until `finish` has
 * recorded the whole body, since the client cannot read the answer without it. Holds and the
 * client's back-pressure both pause the upstream, and whichever lets go last resumes it.
 *
 * A hold that settles to a refusal (a full disk) refuses the answer (`refuse`): what was held is
 * never sent, and the upstream is still read to its end and recorded. So that a refused unary
 * answer can still be a whole 503, its head and first {@link HELD_UNARY_BYTES} are kept back
 * until its end (a pause or resume answer is far smaller); a larger one streams as it comes, and
 * a refusal then cuts it before its last chunk.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Exchange } from './exchange-recorder.js';
import { endToEndRawHeaders, mediaType } from './http-headers.js';
import { holdGate } from './hold-gate.js';

/** The bytes of a unary answer kept back, with its head, until its end (see the module doc). */
export const HELD_UNARY_BYTES = 64 * 1024;

/**
 * Passes the answer `from` on to `to` with its status and end-to-end headers, recording it on
 * `exchange` and releasing each chunk once its hold settles; `settle` runs once the answer is
 * written, or refused. `refuse` answers instead, once, when a hold settles to a refusal, unless a
 * unary answer has started (it is then cut).
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
  /** Refuses the answer, once: whole while nothing of it was sent, else a unary one is cut. */
  const refuseOnce = (why: string): void => {
    if (refused) return;
    refused = true;
    if (to.headersSent && !stream) to.destroy();
    else refuse(why);
  };
  /** A unary answer's first bytes, kept back with its head (see the module doc). */
  let kept: Buffer[] | undefined = stream ? undefined : [];
  let keptBytes = 0;
  /** Writes `chunk` (after what was kept back) unless the answer is refused. */
  const pass =
    (chunk: Buffer) =>
    (refusal: string | undefined): void => {
      if (refusal !== undefined) {
        refuseOnce(refusal);
        return;
      }
      if (kept !== undefined) {
        kept.push(chunk);
        keptBytes += chunk.length;
        if (keptBytes <= HELD_UNARY_BYTES) return;
        chunk = Buffer.concat(kept);
        kept = undefined;
      }
      head();
      write(chunk);
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
        if (refusal !== undefined) {
          refuseOnce(refusal);
          settle();
          return;
        }
        const body = kept === undefined ? (tail ?? '') : Buffer.concat(tail === undefined ? kept : [...kept, tail]);
        kept = undefined;
        head();
        to.end(body, settle);
      },
      exchange.takeHold(),
      true,
    );
  });
}
