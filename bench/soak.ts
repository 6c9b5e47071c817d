/**
 * Soak of `a2a-replay record`, bounded and never part of the tests: how the recorder's cost grows
 * with what it is fed.
 *
 * - Large SSE events: one event of 1 MB and one of 16 MB (`data:` of a JSON string), served by an
 *   upstream in this process and read to the end through a fresh `record` process; 3 rounds each,
 *   the best kept, with `--max-body-bytes` of 32 MiB so that both are recorded whole. Parsing is
 *   linear, so 16× the size should cost at most ~20× the time. The 16 MB event again under the
 *   default cap (1 MiB): the recorder keeps its first 1 MiB of characters, and its peak RSS.
 * - Long recordings: pause/resume pairs through `record --key` are measured by
 *   `bench/recorder-scale.ts` (`--small 10000 --large 100000` for the 10k/100k soak; time ratio and
 *   peak RSS of the record process).
 *
 * `npx tsx bench/soak.ts [--rounds 3]`. Needs `npm run build` first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { arg, emitFigures, memoryOf, round, startCli } from './_lib.js';

const ROUNDS = Number(arg('rounds', '3'));
const MB = 1024 * 1024;

/** An upstream answering every request with one SSE event whose data is `size` bytes of JSON. */
async function sseUpstream(size: number): Promise<{ url: string; server: Server }> {
  const event = Buffer.from(`data: "${'x'.repeat(size - 2)}"\n\n`);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(event);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server };
}

/** Best time (ms) to read one event of `size` bytes through a fresh recorder, and its peak RSS. */
async function throughRecorder(
  size: number,
  dir: string,
  cap: string[] = ['--max-body-bytes', String(32 * MB)],
): Promise<{ ms: number; peakMiB: number }> {
  const upstream = await sseUpstream(size);
  const out = join(dir, `sse-${size}-${cap.length}.jsonl`);
  const recorder = await startCli(['record', '--upstream', upstream.url, '--out', out, ...cap]);
  let best = Number.POSITIVE_INFINITY;
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const started = performance.now();
      const res = await fetch(recorder.url, { method: 'POST', body: '{}' });
      const bytes = (await res.arrayBuffer()).byteLength;
      if (bytes < size) throw new Error(`read ${bytes} bytes, expected ${size}`);
      best = Math.min(best, performance.now() - started);
    }
    return { ms: best, peakMiB: memoryOf(recorder.pid).peakMiB };
  } finally {
    await recorder.stop();
    await new Promise<void>((resolve) => upstream.server.close(() => resolve()));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'bench-soak-'));
try {
  const small = await throughRecorder(MB, dir);
  const large = await throughRecorder(16 * MB, dir);
  const capped = await throughRecorder(16 * MB, dir, []);
  const ratio = large.ms / small.ms;
  process.stdout.write(
    [
      `SSE event of 1 MB through record:  ${small.ms.toFixed(1)} ms (peak RSS ${small.peakMiB.toFixed(0)} MiB)`,
      `SSE event of 16 MB through record: ${large.ms.toFixed(1)} ms (peak RSS ${large.peakMiB.toFixed(0)} MiB)`,
      `time 16 MB / 1 MB: ${ratio.toFixed(2)}x (goal <= 20x for 16x the size)`,
      `SSE event of 16 MB, default cap: ${capped.ms.toFixed(1)} ms (peak RSS ${capped.peakMiB.toFixed(0)} MiB)`,
      'pause/resume soak: npx tsx bench/recorder-scale.ts --small 10000 --large 100000',
    ].join('\n') + '\n',
  );
  emitFigures({
    'soak.sse16mbOver1mb': round(ratio, 2),
    'soak.sse16mbPeakMiB': round(large.peakMiB, 1),
    'soak.sse16mbCappedPeakMiB': round(capped.peakMiB, 1),
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
