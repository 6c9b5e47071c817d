/**
 * Not a benchmark: the recording proxy of a build (its `startRecordingProxy`) with a recorder that
 * records nothing, so that bench/relay-cpu.ts measures what forwarding alone costs (the edge limits,
 * the routing, the upstream request, the held relay) beside the bare proxy. Prints
 * `listening on URL` first, like `a2a-replay record`.
 * `node --import tsx bench/relay-proxy.ts --dist DIR/dist --upstream URL`
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Exchange, ExchangeRecorder } from '../src/intercept/exchange-recorder.js';
import type { startRecordingProxy } from '../src/intercept/recording-proxy.js';
import { ROOT, arg } from './_lib.js';

const dist = arg('dist', join(ROOT, 'dist'));
const module = (await import(pathToFileURL(join(dist, 'src/intercept/recording-proxy.js')).href)) as {
  startRecordingProxy: typeof startRecordingProxy;
};
// The calls the proxy makes on an exchange, each doing nothing.
const exchange = {
  xid: 'x',
  open: true,
  takeHold: () => undefined,
  head: () => undefined,
  data: () => undefined,
  finish: () => undefined,
  fail: () => undefined,
} as unknown as Exchange;
const recorder = {
  maxBodyBytes: 1024 * 1024,
  maxObservedBytes: 16 * 1024 * 1024,
  request: () => exchange,
  answerOf: () => exchange,
  report: () => undefined,
} as unknown as ExchangeRecorder;
const proxy = await module.startRecordingProxy({ upstream: arg('upstream', ''), recorder });
process.stdout.write(`listening on ${proxy.url}\n`);
const stop = (): void => {
  void proxy.close({ graceMs: 0 });
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
