/**
 * The baseline proxy of the proxy benchmarks: a bare node:http pass-through that forwards method,
 * path, headers and body to one upstream over keep-alive connections and streams the answer back
 * as it arrives. It records nothing. Prints `listening on URL` first, like `a2a-replay record`.
 * `node --import tsx bench/bare-proxy.ts --upstream URL [--port N]`
 */
import { Agent, type IncomingHttpHeaders, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { arg } from './_lib.js';

const upstream = new URL(arg('upstream', ''));
const agent = new Agent({ keepAlive: true });
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade'];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept = { ...headers };
  for (const name of HOP_BY_HOP) delete kept[name];
  return kept;
}

const server = createServer({ noDelay: true }, (req, res) => {
  const out = request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, agent },
    (answer) => {
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
