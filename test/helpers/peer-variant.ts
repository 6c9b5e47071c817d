/**
 * A peer variant for replay tests: a server in front of a real peer that forwards every request
 * to it, except those `answer` chooses to answer itself (an error, a missing channel, an odd body).
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

export interface PeerVariant {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a variant of the peer at `upstream`. `answer` sees each request's path and JSON-RPC
 * method (undefined when the body is not JSON) and its body, and returns true when it has answered
 * `res` itself.
 */
export async function startPeerVariant(
  upstream: string,
  answer: (path: string, method: string | undefined, res: ServerResponse, body: Buffer) => boolean,
): Promise<PeerVariant> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let method: string | undefined;
      try {
        method = (JSON.parse(body.toString('utf8')) as { method?: string }).method;
      } catch {
        method = undefined;
      }
      if (answer(req.url ?? '/', method, res, body)) return;
      void fetch(new URL(req.url ?? '/', upstream), {
        method: req.method ?? 'GET',
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
        ) as Record<string, string>,
        ...(body.length > 0 ? { body } : {}),
      }).then(async (reply) => {
        res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
        if (!reply.body) {
          res.end();
          return;
        }
        for await (const chunk of reply.body) res.write(chunk);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers `res` with a JSON body; true, for use as an `answer` result. */
export function answerJson(res: ServerResponse, status: number, body: string | object): true {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
  return true;
}
