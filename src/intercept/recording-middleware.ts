/**
 * @module intercept/recording-middleware
 * Records the exchanges a `node:http` or express server answers. Mount it first (before body
 * parsers): it observes the request body as the application reads it and the response as the
 * application writes it, without changing either.
 *
 * ```ts
 * app.use(createRecordingMiddleware({ recorder }));                 // express
 * createServer(withRecording({ recorder }, handler));               // node:http
 * ```
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { type Exchange, type ExchangeRecorder, RESPONSE_CUT_MESSAGE } from './exchange-recorder.js';

export interface RecordingMiddlewareOptions {
  recorder: ExchangeRecorder;
}

/** A connect/express-style middleware; `next` is optional for plain `node:http` use. */
export type RecordingMiddleware = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

type HeadersArg = OutgoingHttpHeaders | readonly string[] | readonly (readonly string[])[] | undefined;

function toBytes(chunk: unknown, encoding: unknown): Uint8Array | undefined {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return undefined;
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return chunk;
  return undefined;
}

function mergeHeaders(stored: OutgoingHttpHeaders, arg: HeadersArg): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const put = (name: string, value: unknown): void => {
    if (value === undefined) return;
    out[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value as string | number);
  };
  for (const [name, value] of Object.entries(stored)) put(name, value);
  if (Array.isArray(arg)) {
    if (arg.length > 0 && Array.isArray(arg[0])) {
      for (const pair of arg as readonly (readonly string[])[]) put(pair[0] ?? '', pair[1]);
    } else {
      const flat = arg as readonly string[];
      for (let i = 0; i + 1 < flat.length; i += 2) put(flat[i] as string, flat[i + 1]);
    }
  } else if (arg !== undefined) {
    for (const [name, value] of Object.entries(arg as OutgoingHttpHeaders)) put(name, value);
  }
  return out;
}

/** Records every exchange passing through (see module doc). */
export function createRecordingMiddleware(options: RecordingMiddlewareOptions): RecordingMiddleware {
  const recorder = options.recorder;
  return (req, res, next) => {
    const path = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const chunks: Buffer[] = [];
    let exchange: Exchange | undefined;
    const ensureRequest = (): Exchange => {
      exchange ??= recorder.request({
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      return exchange;
    };

    const emit = req.emit.bind(req);
    req.emit = function tappedEmit(this: IncomingMessage, event: string | symbol, ...args: unknown[]): boolean {
      try {
        if (event === 'data' && exchange === undefined) {
          const bytes = toBytes(args[0], undefined);
          if (bytes !== undefined) chunks.push(Buffer.from(bytes));
        } else if (event === 'end') {
          ensureRequest();
        }
      } catch {
        // observing must never disturb the request
      }
      return emit(event, ...args);
    } as typeof req.emit;

    const writeHead = res.writeHead.bind(res);
    res.writeHead = function tappedWriteHead(this: ServerResponse, status: number, ...rest: unknown[]): ServerResponse {
      const arg = (typeof rest[0] === 'string' ? rest[1] : rest[0]) as HeadersArg;
      let headers: Record<string, string | string[]> | undefined;
      try {
        headers = mergeHeaders(this.getHeaders(), arg);
      } catch {
        headers = undefined;
      }
      const result = (writeHead as (...a: unknown[]) => ServerResponse)(status, ...rest);
      ensureRequest().head(status, headers ?? {});
      return result;
    } as typeof res.writeHead;

    const write = res.write.bind(res);
    res.write = function tappedWrite(this: ServerResponse, chunk: unknown, ...rest: unknown[]): boolean {
      const result = (write as (...a: unknown[]) => boolean)(chunk, ...rest);
      const bytes = toBytes(chunk, rest[0]);
      if (bytes !== undefined) exchange?.data(bytes);
      return result;
    } as typeof res.write;

    const end = res.end.bind(res);
    res.end = function tappedEnd(this: ServerResponse, chunk?: unknown, ...rest: unknown[]): ServerResponse {
      const result = (end as (...a: unknown[]) => ServerResponse)(chunk, ...rest);
      const bytes = toBytes(chunk, rest[0]);
      if (bytes !== undefined) exchange?.data(bytes);
      return result;
    } as typeof res.end;

    res.on('finish', () => ensureRequest().finish());
    res.on('close', () => {
      if (!res.writableFinished) ensureRequest().fail(RESPONSE_CUT_MESSAGE);
    });

    next?.();
  };
}

/** Wraps a `node:http` request handler with the recording middleware. */
export function withRecording(
  options: RecordingMiddlewareOptions,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const middleware = createRecordingMiddleware(options);
  return (req, res) => middleware(req, res, () => handler(req, res));
}
