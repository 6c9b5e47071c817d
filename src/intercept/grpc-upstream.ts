/**
 * @module intercept/grpc-upstream
 * The gRPC server the recording proxy forwards gRPC calls to (docs/design.md §16): a `HOST:PORT`
 * target (or `http://HOST:PORT`) reached over HTTP/2 cleartext, or `https://HOST:PORT` reached
 * over TLS (ALPN `h2`, the certificate checked against the system's CAs or the `ca` given); one
 * session to it kept open and opened again when it closes or fails, each call one stream of it.
 */
import { type ClientHttp2Session, type ClientHttp2Stream, type OutgoingHttpHeaders, connect } from 'node:http2';
import { A2aReplayError, describeError } from '../errors.js';
import { certificateFailure } from '../http/tls-failure.js';
import { redactUrl } from '../recording/redaction.js';
import type { UpstreamTls } from './upstream.js';

/** The gRPC server behind the proxy. */
export interface GrpcUpstream {
  /** `HOST:PORT`, for the `:authority` of forwarded calls. */
  readonly authority: string;
  /** `HOST:PORT`, or `https://HOST:PORT` when it is reached over TLS: what messages name. */
  readonly label: string;
  readonly hostname: string;
  readonly port: string;
  /** Reached over TLS. */
  readonly secure: boolean;
  /** Why a call could not reach it, in user words (a certificate failure says so). */
  why(error: unknown): string;
  /** Opens a call's stream (the caller writes its messages and ends it); throws when no session can open. */
  request(headers: OutgoingHttpHeaders): ClientHttp2Stream;
  /** Closes the session. */
  destroy(): void;
}

/** A gRPC target's parts: `secure` when it is reached over TLS. */
export interface GrpcTarget {
  hostname: string;
  port: string;
  secure: boolean;
}

/**
 * A `HOST:PORT` or `http://HOST:PORT` gRPC target (cleartext), or `https://HOST:PORT` (TLS);
 * anything else is an `INVALID_ARGUMENT` error.
 */
export function parseGrpcTarget(text: string): GrpcTarget {
  const trimmed = text.trim();
  const secure = /^https:\/\//i.test(trimmed);
  const bare = trimmed.replace(/^https?:\/\//i, '').replace(/\/$/, '');
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(bare);
  const port = Number(m?.[2]);
  if (!m || port < 1 || port > 65535) {
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      `gRPC upstream "${redactUrl(text)}" is not HOST:PORT, http://HOST:PORT or https://HOST:PORT (TLS)`,
    );
  }
  return { hostname: (m[1] as string).toLowerCase(), port: String(port), secure };
}

/** The gRPC upstream at `target` (see {@link parseGrpcTarget}); no connection is made until a call. */
export function openGrpcUpstream(target: string, tls: UpstreamTls = {}): GrpcUpstream {
  const { hostname, port, secure } = parseGrpcTarget(target);
  const authority = `${hostname}:${port}`;
  const label = secure ? `https://${authority}` : authority;
  let session: ClientHttp2Session | undefined;
  const sessionOf = (): ClientHttp2Session => {
    if (session !== undefined && !session.closed && !session.destroyed) return session;
    const opened = secure
      ? connect(`https://${authority}`, tls.ca === undefined ? {} : { ca: tls.ca })
      : connect(`http://${authority}`);
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
    authority,
    label,
    hostname,
    port,
    secure,
    why: (error) => certificateFailure(error) ?? describeError(error),
    request(headers) {
      return sessionOf().request({ ...headers, ':authority': authority, ':scheme': secure ? 'https' : 'http' });
    },
    destroy() {
      session?.close();
      session = undefined;
    },
  };
}
