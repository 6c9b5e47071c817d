/**
 * @module intercept/proxy-limits
 * The HTTP edge limits of src/http/limits.ts at the recording proxy's client side, as on the
 * peer: 408 for a request that does not arrive in time, 503 past the connection cap (which counts
 * HTTP/1 connections and HTTP/2 sessions alike; a gRPC call on a session past it gets
 * UNAVAILABLE, src/intercept/grpc-forward.ts), 413 (that
 * the client reads) for a body over the limit, 400 for malformed HTTP, each in the request's
 * binding. A request turned away once its head arrived is recorded as an `error` entry; one that
 * passes reaches the handler with its body read whole.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type HttpLimits, answerAndClose, drainRequest, guardServer, readLimitedBodyThen } from '../http/limits.js';
import type { ExchangeRecorder } from './exchange-recorder.js';
import { limitBody, targetOf } from './proxy-answers.js';

/** Admits requests within the limits. */
export interface ProxyLimits {
  /**
   * Reads the request's body within the limits and hands it to `handle`, or answers the request
   * itself (503, 413) and records it; a request the client aborts is dropped.
   */
  admit(req: IncomingMessage, res: ServerResponse, handle: (body: Buffer) => void): void;
  /**
   * Counts an HTTP/2 (gRPC) session against the same connection cap: `refusal` says why its calls
   * are refused when it is past the cap; `close` when the session closes.
   */
  countSession(): { refusal: string | undefined; close(): void };
}

/** The limits of `server` (its options from `limitedServerOptions(limits)`), recorded on `recorder`. */
export function guardProxy(server: Server, limits: HttpLimits, recorder: ExchangeRecorder): ProxyLimits {
  const gate = guardServer(server, limits, limitBody);
  const maxBody = limits.bodyLimitBytes;
  const overCap = `the recorder serves at most ${limits.maxConnections} connections at once; try again later`;
  const refuse = (req: IncomingMessage, why: string): void => {
    recorder.request({ method: req.method ?? 'GET', path: targetOf(req), headers: req.headers }).fail(why);
  };
  return {
    countSession() {
      const counted = gate.count();
      return { refusal: counted.over ? overCap : undefined, close: () => counted.close() };
    },
    admit(req, res, handle) {
      gate.track(req, res);
      if (gate.overCapacity(req)) {
        refuse(req, overCap);
        void answerAndClose(res, 503, limitBody(503, overCap, req), drainRequest(req, limits), {
          'Retry-After': '1',
        });
        return;
      }
      readLimitedBodyThen(req, maxBody, limits, (result) => {
        switch (result.kind) {
          case 'ok':
            handle(result.bytes);
            return;
          case 'too-large': {
            const why =
              `request body over the recorder's limit of ${maxBody} bytes ` +
              `(${result.size} bytes declared or seen); not forwarded`;
            refuse(req, why);
            void answerAndClose(res, 413, limitBody(413, why, req), result.drained);
            return;
          }
          case 'aborted':
            return;
          default: {
            const never: never = result;
            return never;
          }
        }
      });
    },
  };
}
