/**
 * An OTLP/HTTP receiver on 127.0.0.1 for tests: it keeps the protobuf bodies posted to
 * /v1/traces, as a collector receives them (decode them with otlp-proto.ts).
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpReceiver {
  server: Server;
  bodies: Buffer[];
  /** Its base URL, `http://127.0.0.1:PORT`. */
  url: string;
}

export async function otlpReceiver(): Promise<OtlpReceiver> {
  const bodies: Buffer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, bodies, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
