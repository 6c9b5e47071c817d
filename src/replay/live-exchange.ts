/**
 * @module replay/live-exchange
 * Sends one recorded request to the live peer and reports what comes back as recording entries.
 * The answer goes through the recorder's own {@link ExchangeRecorder}, so a live answer is turned
 * into `response` / `event` / `end` / `error` entries by exactly the rules that recorded the
 * golden one (unary vs SSE, JSON vs text bodies, recorded headers, redaction).
 *
 * Request headers are the recorded ones minus redacted values (a `[redacted sha256:…]` secret is
 * useless to the peer) and the headers the HTTP stack writes itself. A body that is sent is always
 * framed by `Content-Length` (docs/design.md §8): Node frames none for a GET, HEAD, DELETE or
 * OPTIONS, so the peer would read a recorded body of one as the requests that follow. A failure
 * before any response head (connection refused, reset) is an infrastructure failure
 * ({@link LiveCall.failure}), not an exchange entry: the peer could not be asked. A reset before
 * the head is first sent again, on a new connection, where that is safe ({@link RESENDS} times):
 * on a kept-alive connection (the peer closed it as it went idle, so it never read the request),
 * or for a request that only reads (`idempotent`), wherever the reset came. A failure after
 * the head is an `error` entry, as recording would have written it. A live answer nested deeper
 * than replay compares is kept as its text, as the recorder keeps one (docs/design.md §5).
 */
import { type Agent, type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type JsonValue, replaceNonFinite } from '../canonical/canonical-json.js';
import { A2aReplayError } from '../errors.js';
import { basePathOf, serverOptions, underBase } from '../http/request-target.js';
import { DEFAULT_MAX_OBSERVED_BYTES, ExchangeRecorder } from '../intercept/exchange-recorder.js';
import type { RecordingEntry } from '../recording/format.js';
import type { EntryDraft } from '../recording/recording-writer.js';

/** Live answers are compared, never written: nothing is redacted beyond the secret-looking headers. */
const NO_REDACTION: readonly string[] = [];

/** Headers never replayed as recorded. */
const NOT_REPLAYED = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'accept-encoding',
]);

export interface LiveCallOptions {
  /**
   * URL of the live peer (`http://127.0.0.1:PORT`, or with a base path): every target goes to its
   * host, under its path (src/http/request-target.ts).
   */
  base: URL;
  /** The recorded request being replayed (method, path, headers). */
  request: RecordingEntry;
  /** The target to send (the recorded path with live ids); default the recorded path. */
  path?: string;
  /** The body to send (recorded body with live ids), already serialized; undefined for none. */
  body: string | undefined;
  agent: Agent;
  /**
   * True for a request that only reads (GetTask, a GET): sending it twice does what sending it once
   * does, so it is sent again after a reset even on a new connection.
   */
  idempotent?: boolean;
  /** Every answer entry (not the request), in order. */
  onEntry: (draft: EntryDraft) => void;
}

/** An exchange in flight. */
export interface LiveCall {
  /** Settles when the exchange is over (answered, broken, or aborted); never rejects. */
  done: Promise<void>;
  /** Set when the peer could not be reached. */
  failure: A2aReplayError | undefined;
  /** Stops the exchange; later data is dropped. */
  abort(): void;
}

/**
 * `draft` as the recorder writes it: a number `JSON.parse` made infinite (`1e400`) is null in a
 * recording (recording-writer.ts), so it is null in the live answer compared with one too.
 */
function asRecorded(draft: EntryDraft, body: JsonValue): EntryDraft {
  const finite = replaceNonFinite(body);
  return finite.repaired ? { ...draft, body: finite.value } : draft;
}

/**
 * Methods whose body has no meaning HTTP defines (RFC 9110 §9.3): a recorded body of one is still
 * sent, framed, and the run report says so (see {@link bodyOfBodilessMethod}).
 */
const BODILESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * The size in bytes of a body replay sends with a method that usually carries none (a GET with a
 * body), or undefined when the request is not one.
 */
export function bodyOfBodilessMethod(method: string, body: string | undefined): number | undefined {
  if (body === undefined || !BODILESS_METHODS.has(method.toUpperCase())) return undefined;
  return Buffer.byteLength(body, 'utf8');
}

/**
 * The headers to send for a recorded request; `bodyBytes` is the length of the body sent, which
 * always goes with its `Content-Length`.
 */
export function replayHeaders(
  recorded: Record<string, string> | undefined,
  bodyBytes: number | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in recorded) {
    if (!Object.hasOwn(recorded, name)) continue;
    const value = recorded[name] as string;
    if (NOT_REPLAYED.has(name) || value.startsWith('[redacted')) continue;
    out[name] = value;
  }
  if (bodyBytes !== undefined) {
    if (out['content-type'] === undefined) out['content-type'] = 'application/json';
    out['content-length'] = String(bodyBytes);
  }
  return out;
}

/** The `node:http` options and base path of a peer URL, worked out once per URL object. */
const PEERS = new WeakMap<URL, { server: ReturnType<typeof serverOptions>; basePath: string }>();

function peerOf(base: URL): { server: ReturnType<typeof serverOptions>; basePath: string } {
  let peer = PEERS.get(base);
  if (peer === undefined) {
    peer = { server: serverOptions(base), basePath: basePathOf(base) };
    PEERS.set(base, peer);
  }
  return peer;
}

/** How often a request reset before its answer's head is sent again (see the module doc). */
export const RESENDS = 2;

/** Errors of a connection the peer reset or closed under a request (`socket hang up` is ECONNRESET). */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/** Sends a recorded request to the live peer. */
export function sendLive(options: LiveCallOptions): LiveCall {
  const { request } = options;
  let aborted = false;
  let headArrived = false;
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const recorder = new ExchangeRecorder({
    ids: { next: () => request.xid },
    writer: {
      append(draft: EntryDraft): RecordingEntry {
        if (!aborted) options.onEntry(draft.body === undefined ? draft : asRecorded(draft, draft.body));
        return { ...draft, seq: 0, at: '' };
      },
    },
    redact: NO_REDACTION,
    // A live answer is compared and observed whole, as the recorder observed the recorded one
    // (a recorded body may be cut at the recording cap; docs/design.md §8).
    maxBodyBytes: DEFAULT_MAX_OBSERVED_BYTES,
    // Replay must learn the live peer's real tokens to send them back; nothing here is written.
    tokens: 'keep',
    bodies: 'keep',
  });
  const target = options.path ?? request.http.path;
  const { server, basePath } = peerOf(options.base);
  const path = underBase(basePath, target);
  const body = options.body;
  const headers = replayHeaders(request.http.headers, body === undefined ? undefined : Buffer.byteLength(body, 'utf8'));
  // The request is the recorded one (its path with live ids): only the answer is turned into entries.
  const exchange = recorder.answerOf({ method: request.http.method, path: target }, request.xid);
  const send = server.protocol === 'https:' ? httpsRequest : httpRequest;
  const call: LiveCall = {
    done,
    failure: undefined,
    abort: () => {
      aborted = true;
      req.destroy();
      resolveDone();
    },
  };
  let req: ClientRequest;
  const attempt = (resends: number): void => {
    // A request sent again goes on a new connection: a kept-alive one may be as stale as the first.
    const agent = resends === RESENDS ? options.agent : false;
    req = send({ ...server, path, method: request.http.method, headers, agent }, (res) => {
      headArrived = true;
      exchange.head(res.statusCode ?? 0, res.headers);
      res.on('data', (chunk: Buffer) => exchange.data(chunk));
      res.on('end', () => {
        exchange.finish();
        resolveDone();
      });
      res.on('error', (error) => {
        exchange.fail(`the live response broke: ${error.message}`);
        resolveDone();
      });
      res.on('close', () => {
        if (!res.complete) exchange.fail('the live peer closed the connection mid-response');
        resolveDone();
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (aborted) return resolveDone();
      const reset = !headArrived && RESET_CODES.has(error.code ?? '');
      // A kept-alive socket the peer closed as it went idle never delivered the request; a read
      // may be sent twice wherever the reset came.
      if (reset && resends > 0 && (req.reusedSocket || options.idempotent === true)) return attempt(resends - 1);
      if (!headArrived) {
        const unsafe =
          reset && !req.reusedSocket && options.idempotent !== true
            ? '; not sent again: the peer may have acted on it, and the request does more than read'
            : '';
        call.failure = new A2aReplayError(
          'PEER_UNREACHABLE',
          `cannot reach the peer at ${options.base.origin} (${error.code ?? error.message}) sending ` +
            `${request.http.method} ${request.http.path} (recorded seq ${request.seq})${unsafe}`,
          { cause: error },
        );
      } else {
        exchange.fail(`the live exchange broke: ${error.code ?? error.message}`);
      }
      resolveDone();
    });
    // The body as text: node:http writes a text body given to `end` with the head in one write
    // (a Buffer goes as a second chunk of a `writev`).
    if (body === undefined) req.end();
    else req.end(body, 'utf8');
  };
  attempt(RESENDS);
  return call;
}
