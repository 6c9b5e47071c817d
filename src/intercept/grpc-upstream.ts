/**
 * @module intercept/grpc-upstream
 * The gRPC server the recording proxy forwards gRPC calls to (docs/design.md §16): a `HOST:PORT`
 * target (or `http://HOST:PORT`), one HTTP/2 cleartext session to it kept open and opened again
 * when it closes or fails, each call one stream of it.
 */
import { type ClientHttp2Session, type ClientHttp2Stream, type OutgoingHttpHeaders, connect } from 'node:http2';
import { A2aReplayError } from '../errors.js';
import { redactUrl } from '../recording/redaction.js';

/** The gRPC server behind the proxy. */
export interface GrpcUpstream {
  /** `HOST:PORT`, for messages and for the `:authority` of forwarded calls. */
  readonly label: string;
  readonly hostname: string;
  readonly port: string;
  /** Opens a call's stream (the caller writes its messages and ends it); throws when no session can open. */
  request(headers: OutgoingHttpHeaders): ClientHttp2Stream;
  /** Closes the session. */
  destroy(): void;
}

/** A `HOST:PORT` (or `http://HOST:PORT`) gRPC target; anything else is an `INVALID_ARGUMENT` error. */
export function parseGrpcTarget(text: string): { hostname: string; port: string } {
  const bare = text
    .trim()
    .replace(/^http:\/\//i, '')
    .replace(/\/$/, '');
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(bare);
  const port = Number(m?.[2]);
  if (!m || port < 1 || port > 65535) {
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      `gRPC upstream "${redactUrl(text)}" is not HOST:PORT (or http://HOST:PORT; TLS is not carried)`,
    );
  }
  return { hostname: (m[1] as string).toLowerCase(), port: String(port) };
}

/** The gRPC upstream at `target` (see {@link parseGrpcTarget}); no connection is made until a call. */
export function openGrpcUpstream(target: string): GrpcUpstream {
  const { hostname, port } = parseGrpcTarget(target);
  const label = `${hostname}:${port}`;
  let session: ClientHttp2Session | undefined;
  const sessionOf = (): ClientHttp2Session => {
    if (session !== undefined && !session.closed && !session.destroyed) return session;
    const opened = connect(`http://${label}`);
    opened.on('error', () => {
      // each stream of it reports the failure
    });
    const forget = (): void => {
      if (session === opened) session = undefined;
    };
    opened.once('close', forget);
    opened.once('goaway', forget);
    opened.once('error', forget);
    session = opened;
    return opened;
  };
  return {
    label,
    hostname,
    port,
    request(headers) {
      return sessionOf().request({ ...headers, ':authority': label, ':scheme': 'http' });
    },
    destroy() {
      session?.close();
      session = undefined;
    },
  };
}
