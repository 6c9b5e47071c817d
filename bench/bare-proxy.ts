/**
 * The baseline proxy of the proxy benchmarks: a bare node:http pass-through that forwards method,
 * path, headers and body to one upstream over keep-alive connections and streams the answer back
 * as it arrives. It records nothing. Prints `listening on URL` first, like `a2a-replay record`.
 * `node --import tsx bench/bare-proxy.ts --upstream URL [--port N] [--durable DIR]`
 *
 * With `--durable DIR` it is the floor of durable-before-acknowledged instead: what the rule costs
 * by itself, with no parsing, no observer and no receipt. Every answer is read whole; the request
 * and the answer are written as one line (their texts, `JSON.stringify`d) to DIR/recording.jsonl;
 * the answer to a JSON-RPC PauseTask or ResumeTask also appends a line to DIR/receipts.jsonl and
 * is held until both files are synced, by group commit as the recorder syncs them (one
 * `fdatasync` per file at the end of the event-loop turn, callers arriving while it runs sharing
 * the next one); other answers go out once their line is written.
 */
import { fdatasync, openSync, writeSync } from 'node:fs';
import {
  Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
  createServer,
  request,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { arg } from './_lib.js';

const upstream = new URL(arg('upstream', ''));
const durableDir = arg('durable', '');
const agent = new Agent({ keepAlive: true });
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade'];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept = { ...headers };
  for (const name of HOP_BY_HOP) delete kept[name];
  return kept;
}

/** Group commit on one file: a sync starts at the end of the turn a caller waits in, or once the running one ends. */
class GroupSync {
  readonly fd: number;
  #running = false;
  #scheduled = false;
  #waiting: (() => void)[] = [];

  constructor(path: string) {
    this.fd = openSync(path, 'w', 0o600);
  }

  append(line: string): void {
    writeSync(this.fd, line);
  }

  whenSynced(done: () => void): void {
    this.#waiting.push(done);
    if (this.#running || this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#start();
    });
  }

  #start(): void {
    if (this.#running || this.#waiting.length === 0) return;
    const covered = this.#waiting;
    this.#waiting = [];
    this.#running = true;
    fdatasync(this.fd, (error) => {
      if (error) throw error;
      this.#running = false;
      for (const done of covered) done();
      this.#start();
    });
  }
}

const files = durableDir
  ? {
      recording: new GroupSync(join(durableDir, 'recording.jsonl')),
      receipts: new GroupSync(join(durableDir, 'receipts.jsonl')),
    }
  : undefined;

/** The durable floor's answer: read whole, written down, held for its syncs when it answers a pause or resume. */
function relayDurably(
  req: IncomingMessage,
  requestChunks: Buffer[],
  answer: IncomingMessage,
  res: ServerResponse,
): void {
  const chunks: Buffer[] = [];
  answer.on('data', (chunk: Buffer) => chunks.push(chunk));
  answer.on('end', () => {
    const sent = Buffer.concat(requestChunks).toString();
    const body = Buffer.concat(chunks);
    files!.recording.append(`${JSON.stringify({ path: req.url, request: sent, answer: body.toString() })}\n`);
    const relay = (): void => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      res.end(body);
    };
    if (!/"method"\s*:\s*"(PauseTask|ResumeTask)"/.test(sent)) return relay();
    files!.receipts.append(`${JSON.stringify({ request: sent.length, answer: body.length })}\n`);
    let pending = 2;
    const synced = (): void => {
      if (--pending === 0) relay();
    };
    files!.recording.whenSynced(synced);
    files!.receipts.whenSynced(synced);
  });
}

const server = createServer({ noDelay: true }, (req, res) => {
  const requestChunks: Buffer[] = [];
  if (files) req.on('data', (chunk: Buffer) => requestChunks.push(chunk));
  const out = request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, agent },
    (answer) => {
      if (files) return relayDurably(req, requestChunks, answer, res);
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      if (answer.headers['content-type']?.startsWith('text/event-stream')) res.flushHeaders();
      answer.pipe(res);
    },
  );
  for (const [name, value] of Object.entries(endToEnd(req.headers)))
    if (value !== undefined) out.setHeader(name, value);
  out.setHeader('host', upstream.host);
  out.on('error', () => res.destroy());
  req.pipe(out);
});
server.listen(Number(arg('port', '0')), '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
const stop = (): void => {
  server.close();
  server.closeAllConnections();
  agent.destroy();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
