/**
 * Raw HTTP for tests of the HTTP edge (peer and recorder): bytes written on a fresh socket, and
 * large uploads, so that time-outs, caps and limits are seen as a client sees them.
 */
import { request } from 'node:http';
import { connect } from 'node:net';

/** Writes raw bytes on a fresh connection and resolves with everything the peer sent until it closed. */
export function raw(url: URL, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let got = '';
    socket.setEncoding('utf8').on('data', (d: string) => (got += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs `size` bytes in 64 KiB chunks (chunked, or with a Content-Length) and resolves with the answer. */
export function postBig(url: URL, size: number, chunked: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
    if (!chunked) headers['Content-Length'] = String(size);
    const req = request(
      { host: url.hostname, port: url.port, method: 'POST', path: '/', headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    // The peer closes once it answered and drained enough: the rest of the upload fails, as it should.
    req.on('error', () => undefined);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = (): void => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

/** What a client that sent its whole body before reading got: the bytes it read, and how its upload ended. */
export interface UploadThenRead {
  /** Everything the server sent, read only once the upload was over. */
  got: string;
  /** The code of the error that ended the upload early (EPIPE, ECONNRESET), or undefined. */
  uploadError: string | undefined;
}

/**
 * POSTs `size` bytes chunked on a fresh connection, reading nothing until all of it was written
 * (as a client that sends its request before it looks at the answer does), then reads until the
 * server closes.
 */
export function uploadThenRead(url: URL, size: number): Promise<UploadThenRead> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    // Paused: nothing is read until the upload is over (the kernel keeps what arrives).
    socket.pause();
    let uploadError: string | undefined;
    let got = '';
    const read = (): void => {
      socket.setEncoding('utf8').on('data', (d: string) => (got += d));
      socket.resume();
    };
    socket.on('error', (error: NodeJS.ErrnoException) => {
      uploadError ??= error.code ?? error.message;
    });
    socket.on('close', () => resolve({ got, uploadError }));
    const head =
      `POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n` +
      'Transfer-Encoding: chunked\r\n\r\n';
    const piece = 64 * 1024;
    const chunk = Buffer.concat([
      Buffer.from(`${piece.toString(16)}\r\n`),
      Buffer.alloc(piece, 0x20),
      Buffer.from('\r\n'),
    ]);
    let sent = 0;
    const pump = (): void => {
      while (sent < size) {
        sent += piece;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
      socket.write('0\r\n\r\n', () => read());
    };
    socket.once('connect', () => {
      socket.write(head);
      pump();
    });
    // An upload cut short: what the server sent before the reset is all there is to read.
    socket.once('error', read);
  });
}

/**
 * Sends one request whose target goes out exactly as written (fetch would resolve dot segments,
 * turn `\` into `/` and drop a fragment) and resolves with the answer.
 */
export function sendTarget(
  base: string,
  method: string,
  target: string,
  body: string | Buffer | undefined,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: target,
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
