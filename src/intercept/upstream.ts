/**
 * @module intercept/upstream
 * The one peer the recording proxy forwards to: its URL checked once, a keep-alive agent, and a
 * request of a client sent on to it with the client's end-to-end headers, under its path prefix.
 * User-info in the URL is neither sent upstream nor ever printed: `label` is what 502s, 504s and
 * errors name. An `https://` upstream's certificate is checked against the system's CAs, or
 * against the `ca` given (a private CA).
 */
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { A2aReplayError } from '../errors.js';
import { IDLE_CONNECTION_MS } from '../http/keep-alive.js';
import { basePathOf, underBase } from '../http/request-target.js';
import { redactUrl } from '../recording/redaction.js';
import { endToEndRawHeaders } from './http-headers.js';

/** The peer behind the proxy. */
export interface Upstream {
  readonly url: URL;
  /** The URL without user-info or a trailing slash, for messages. */
  readonly label: string;
  /**
   * Sends `req` (its method and end-to-end headers) for `target` under the upstream's path; the
   * caller ends it with the body.
   */
  send(req: IncomingMessage, target: string, body: Buffer): ClientRequest;
  /** Closes the kept-alive connections. */
  destroy(): void;
}

/** How the recorder reaches an upstream over TLS (an `https://` one). */
export interface UpstreamTls {
  /** PEM certificates of the CAs trusted for the upstream's certificate, instead of the system's. */
  ca?: string | Buffer;
}

/** Methods whose empty body goes without a `Content-Length`, as their clients send them. */
const BODYLESS = ['GET', 'HEAD', 'DELETE', 'OPTIONS'];

/**
 * The upstream at `address`; an address that is not an http or https URL is an `INVALID_ARGUMENT`
 * error. `idleMs`: how long a kept-alive connection idles before it is closed.
 */
export function openUpstream(address: string, tls: UpstreamTls = {}, idleMs = IDLE_CONNECTION_MS): Upstream {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new A2aReplayError('INVALID_ARGUMENT', `upstream "${redactUrl(address)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new A2aReplayError('INVALID_ARGUMENT', `upstream "${redactUrl(url)}" is not an http or https URL`);
  }
  const label = redactUrl(url).replace(/\/$/, '');
  const basePath = basePathOf(url);
  const secure = url.protocol === 'https:';
  // `timeout` is the socket time-out of every connection, but the agent acts on it only for idle
  // ones; a request in flight (an SSE stream idle for hours) is not cut by it.
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, timeout: idleMs, ...(tls.ca === undefined ? {} : { ca: tls.ca }) })
    : new HttpAgent({ keepAlive: true, timeout: idleMs });
  const request = secure ? httpsRequest : httpRequest;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  return {
    url,
    label,
    send(req, target, body) {
      const headers = ['Host', url.host, ...endToEndRawHeaders(req.rawHeaders, ['host', 'content-length'])];
      if (body.byteLength > 0 || !BODYLESS.includes(req.method ?? 'GET')) {
        headers.push('Content-Length', String(body.byteLength));
      }
      return request({
        protocol: url.protocol,
        hostname,
        port: url.port,
        method: req.method,
        path: underBase(basePath, target),
        headers,
        agent,
      });
    },
    destroy() {
      agent.destroy();
    },
  };
}
