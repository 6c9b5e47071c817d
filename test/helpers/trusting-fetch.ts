/**
 * A `fetch` for TLS tests that trusts one test CA (Node's global fetch takes no CA): the request
 * goes over `node:https` with `ca`, and the whole answer comes back as a `Response`. Enough for a
 * JSON-RPC call or an agent card; it does not stream.
 */
import { type RequestOptions, request } from 'node:https';
import type { ConnectionOptions } from 'node:tls';

export function trustingFetch(ca: Buffer): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const body = typeof init?.body === 'string' ? init.body : undefined;
    return new Promise<Response>((resolve, reject) => {
      // ALPN http/1.1, as curl and browsers offer it (node:https offers none by default).
      const options: RequestOptions & ConnectionOptions = {
        method: init?.method ?? 'GET',
        headers: Object.fromEntries(headers.entries()),
        ca,
        ALPNProtocols: ['http/1.1'],
      };
      const req = request(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const answer = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            if (typeof value === 'string') answer.set(name, value);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: answer }));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  };
}
