/**
 * @module mock/mock-server
 * The mock over `node:http` (docs/design.md §13): every request is read whole (within the HTTP
 * limits the peer and the proxy apply) and handed to the {@link MockEngine}; its outputs are written
 * as they are released — a whole JSON answer, or an SSE head, one frame per event and the close.
 * The same port serves gRPC (src/mock/mock-grpc.ts), told apart by the connection's first bytes
 * (src/http/transport-sniff.ts). A client that hangs up cancels its exchange. Binds 127.0.0.1
 * unless told otherwise.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../errors.js';
import { limitAnswerBody, sendJson } from '../http/json-answer.js';
import { originForm } from '../http/request-target.js';
import {
  DEFAULT_HTTP_LIMITS,
  answerAndClose,
  guardServer,
  limitedServerOptions,
  readLimitedBody,
} from '../http/limits.js';
import { lazyH2c } from '../http/lazy-h2c.js';
import { createSniffingServer } from '../http/transport-sniff.js';
import { incomingBody, requestVersion } from './match.js';
import { MockEngine, type MockOptions, type MockReport, type MockSource } from './mock-engine.js';
import { type OutputQueue, eventFrame } from './mock-output.js';

export interface MockServerOptions extends MockOptions {
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
}

export interface RunningMock {
  url: string;
  /** What was and was not requested so far. */
  report(): MockReport;
  /** Ends open streams, stops listening and closes every connection. */
  close(): Promise<void>;
}

/** Writes `frame`; resolves once it was handed to the socket, or the response closed. */
function written(res: ServerResponse, frame: string): Promise<void> {
  return new Promise((resolve) => {
    res.once('close', resolve);
    res.write(frame, () => {
      res.off('close', resolve);
      resolve();
    });
  });
}

async function write(queue: OutputQueue, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const hangUp = (): void => {
    if (!res.writableEnded) queue.cancel();
  };
  res.once('close', hangUp);
  for await (const output of queue) {
    if (res.destroyed) break;
    switch (output.kind) {
      case 'unary':
        res.writeHead(output.status, { ...output.headers, 'content-length': String(Buffer.byteLength(output.text)) });
        res.end(output.text);
        break;
      case 'head':
        res.writeHead(output.status, output.headers);
        res.flushHeaders();
        break;
      case 'event':
        // Taken from the queue once on the socket, not merely corked: the answers recorded after
        // this event on other connections wait for it (design §13, "Order across connections").
        await written(res, eventFrame(output));
        break;
      case 'end':
        res.end();
        break;
      case 'break':
        req.socket.destroy();
        break;
      default: {
        const never: never = output;
        throw new Error(`unknown output ${JSON.stringify(never)}`);
      }
    }
  }
  if (!res.writableEnded && !res.destroyed) res.end();
}

/** Starts the mock of `sources` on a socket. */
export async function startMockServer(
  sources: readonly MockSource[],
  options: MockServerOptions = {},
): Promise<RunningMock> {
  const engine = new MockEngine(sources, options);
  const limits = DEFAULT_HTTP_LIMITS;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const read = await readLimitedBody(req, limits.bodyLimitBytes, limits);
    if (read.kind === 'aborted') return;
    if (read.kind === 'too-large') {
      const message = `the request body is larger than ${limits.bodyLimitBytes} bytes`;
      await answerAndClose(res, 413, limitAnswerBody(413, message), read.drained);
      return;
    }
    const text = read.bytes.toString('utf8');
    const path = originForm(req.url ?? '/');
    const header = req.headers['a2a-version'];
    const queue = engine.handle({
      method: req.method ?? 'GET',
      path,
      ...incomingBody(text),
      text,
      version: requestVersion(Array.isArray(header) ? header[0] : header, path),
    });
    await write(queue, req, res);
  };
  const server: Server = createServer(limitedServerOptions(limits), (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!sendJson(res, 500, { error: errorMessage(error) }) && !res.writableEnded) res.end();
    });
  });
  guardServer(server, limits, (status, message) => limitAnswerBody(status, message));
  // Loaded for the first h2c connection, not at start (docs/design.md §2, "Start-up").
  const grpc = lazyH2c(
    async () => (await import('./mock-grpc.js')).createMockGrpc(engine, limits.bodyLimitBytes),
    (error) => process.stderr.write(`a2a-replay: mock: gRPC could not be served: ${errorMessage(error)}\n`),
  );
  // One port for HTTP/1 and gRPC, as the reference peer's (docs/design.md §16).
  const port = createSniffingServer(
    { http1: (socket) => server.emit('connection', socket), h2c: grpc.route },
    { silentMs: limits.headersTimeoutMs },
  );
  await new Promise<void>((resolve, reject) => {
    port.once('error', reject);
    port.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      port.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    grpc.close();
    throw error;
  });
  // node:http starts its time-out checks when its server listens; its connections come from `port`.
  server.emit('listening');
  const address = port.address() as AddressInfo;
  const shownHost = address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;
  engine.url = url;
  let closing: Promise<void> | undefined;
  return {
    url,
    report: () => engine.report(),
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        engine.close();
        grpc.close();
        port.close(() => resolve());
        server.close();
        server.closeIdleConnections();
        setImmediate(() => server.closeAllConnections());
      });
      return closing;
    },
  };
}
