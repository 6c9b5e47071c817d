/**
 * Recording proxy overhead: the same peer called directly and through the proxy (recording to a
 * real file), in the same run, for unary JSON-RPC calls and for SSE streams. Prints p50/p99
 * latency per exchange, throughput, and proxy/direct ratios. `npx tsx bench/proxy-latency.ts`.
 *
 * The peer runs in this process; the proxy runs as `a2a-replay record` in its own process
 * (BENCH_IN_PROCESS=1 runs it in this process instead, sharing one event loop with client and
 * peer). Needs `npm run build` first for the CLI.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { Agent, type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  ExchangeRecorder,
  RecordingWriter,
  fileLineSink,
  randomIdSource,
  startRecordingProxy,
  systemClock,
} from '../src/internal.js';

const UNARY_CALLS = Number(process.env.BENCH_UNARY ?? 4000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 600);
const EVENTS_PER_STREAM = 10;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

const RESULT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
});
const WORKING_EVENT = { statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING' } } };
const EVENT = `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: WORKING_EVENT })}\n\n`;

function peer(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const streaming = Buffer.concat(chunks).includes('SendStreamingMessage');
    if (!streaming) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(RESULT) });
      res.end(RESULT);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let n = 0;
    const next = (): void => {
      if (++n > EVENTS_PER_STREAM) {
        res.end();
        return;
      }
      res.write(EVENT);
      setImmediate(next);
    };
    next();
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function call(base: string, method: string): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'a2a-version': '1.0',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve());
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Stats {
  p50: number;
  p99: number;
  perSecond: number;
}

async function measure(base: string, method: string, count: number): Promise<Stats> {
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (issued < count) {
        issued++;
        const t0 = performance.now();
        await call(base, method);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), perSecond: count / elapsed };
}

interface BenchProxy {
  url: string;
  label: string;
  close(): Promise<void>;
}

async function inProcessProxy(upstream: string, out: string): Promise<BenchProxy> {
  const writer = new RecordingWriter({
    sink: fileLineSink(out),
    clock: systemClock,
    ids: randomIdSource,
    target: upstream,
  });
  const proxy = await startRecordingProxy({
    upstream,
    recorder: new ExchangeRecorder({ writer, ids: randomIdSource }),
  });
  return {
    url: proxy.url,
    label: 'proxy in the bench process',
    close: async () => {
      await proxy.close({ graceMs: 0 });
      await writer.close();
    },
  };
}

async function cliProxy(upstream: string, out: string): Promise<BenchProxy> {
  const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
  const child = spawn(process.execPath, [cli, 'record', '--upstream', upstream, '--out', out], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      text += d;
      const m = /^listening on (\S+)\n/.exec(text);
      if (m?.[1]) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`a2a-replay record exited with ${code}`)));
  });
  return {
    url,
    label: 'a2a-replay record as its own process',
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const ms = (n: number): string => `${n.toFixed(3)} ms`;

async function main(): Promise<void> {
  const server = createServer(peer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const direct = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = await mkdtemp(join(tmpdir(), 'bench-proxy-'));
  const out = join(dir, 'bench.jsonl');
  const proxy = process.env.BENCH_IN_PROCESS === '1' ? await inProcessProxy(direct, out) : await cliProxy(direct, out);

  console.log(
    `unary: ${UNARY_CALLS} calls, SSE: ${STREAMS} streams x ${EVENTS_PER_STREAM} events, concurrency ${CONCURRENCY}`,
  );
  // warm-up both paths
  await measure(direct, 'GetTask', 200);
  await measure(proxy.url, 'GetTask', 200);
  for (const [label, method, count] of [
    ['unary', 'GetTask', UNARY_CALLS],
    ['sse', 'SendStreamingMessage', STREAMS],
  ] as const) {
    // alternate direct and proxied halves so drift on a shared machine hits both
    const d1 = await measure(direct, method, count / 2);
    const p1 = await measure(proxy.url, method, count / 2);
    const d2 = await measure(direct, method, count / 2);
    const p2 = await measure(proxy.url, method, count / 2);
    const d = { p50: (d1.p50 + d2.p50) / 2, p99: (d1.p99 + d2.p99) / 2, perSecond: (d1.perSecond + d2.perSecond) / 2 };
    const p = { p50: (p1.p50 + p2.p50) / 2, p99: (p1.p99 + p2.p99) / 2, perSecond: (p1.perSecond + p2.perSecond) / 2 };
    console.log(
      `${label.padEnd(5)} direct  p50 ${ms(d.p50)}  p99 ${ms(d.p99)}  ${d.perSecond.toFixed(0)}/s\n` +
        `${label.padEnd(5)} proxied p50 ${ms(p.p50)}  p99 ${ms(p.p99)}  ${p.perSecond.toFixed(0)}/s\n` +
        `${label.padEnd(5)} added   p50 +${ms(p.p50 - d.p50)}  p99 +${ms(p.p99 - d.p99)}\n` +
        `${label.padEnd(5)} ratio   p50 x${(p.p50 / d.p50).toFixed(2)}  p99 ` +
        `x${(p.p99 / d.p99).toFixed(2)}  throughput x${(p.perSecond / d.perSecond).toFixed(2)}`,
    );
  }
  await proxy.close();
  const lines = (await readFile(out, 'utf8')).split('\n').length - 2;
  console.log(`recorded ${lines} entries, ${((await stat(out)).size / 1024 / 1024).toFixed(1)} MiB (${proxy.label})`);
  agent.destroy();
  server.closeAllConnections();
  server.close();
  await rm(dir, { recursive: true, force: true });
}

await main();
