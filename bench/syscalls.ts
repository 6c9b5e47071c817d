/**
 * Not in `run.ts`: system calls per call of `a2a-replay record --key K --fsync batch` beside the
 * bare proxy, counted by `strace -c -f` attached to each process while it takes `--calls N` calls
 * of each case (`proxyCase`: unary, sse, pause) at concurrency 1. Counts, not times, so a loaded
 * machine does not move them: where the recorder makes more writes or reads per exchange than the
 * bare proxy, that is node:http work the bare proxy does not pay.
 * `npx tsx bench/syscalls.ts [--calls 500] [--cases unary,sse,pause]` (needs strace)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rpc, type ServerProcess, arg, closedLoop, keygen, proxyCase, startBareProxy, startCli } from './_lib.js';

const CALLS = Number(arg('calls', '500'));
const CASES = arg('cases', 'unary,sse,pause').split(',');
const dir = mkdtempSync(join(tmpdir(), 'bench-syscalls-'));
const key = keygen(join(dir, 'key.json'));
const rpc = new Rpc(4);

/** `strace -c -f -p PID` writing its summary to `out`; resolves once attached. */
async function attach(pid: number, out: string): Promise<ChildProcess> {
  const child = spawn('strace', ['-c', '-f', '-o', out, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      if (c.toString().includes('attached')) resolve();
    });
    child.on('error', reject);
    setTimeout(resolve, 1000);
  });
  return child;
}

/** The summary's calls per syscall. */
function counts(file: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const cells = line.trim().split(/\s+/);
    if (cells.length < 5 || !/^\d/.test(cells[0]!)) continue;
    const name = cells[cells.length - 1]!;
    if (name === 'total') continue;
    found.set(name, Number(cells[3]));
  }
  return found;
}

const peer = await startCli(['peer', '--deterministic']);
const procs: Record<string, ServerProcess> = {};
try {
  procs.record = await startCli([
    'record',
    '--upstream',
    peer.url,
    '--out',
    join(dir, 'r.jsonl'),
    '--key',
    key,
    '--fsync',
    'batch',
  ]);
  procs.bare = await startBareProxy(peer.url);
  const urls = Object.fromEntries(Object.entries(procs).map(([n, p]) => [n, p.url]));
  for (const kind of CASES) {
    const once = await proxyCase(kind, urls, rpc, 1);
    const per: Record<string, Map<string, number>> = {};
    for (const [name, p] of Object.entries(procs)) {
      await closedLoop(100, 1, () => once(name, 0));
      const out = join(dir, `${kind}-${name}.strace`);
      const tracer = await attach(p.pid, out);
      await closedLoop(CALLS, 1, () => once(name, 0));
      tracer.kill('SIGINT');
      await new Promise((resolve) => tracer.on('exit', resolve));
      per[name] = counts(out);
    }
    const names = [...new Set(Object.values(per).flatMap((m) => [...m.keys()]))].sort();
    console.log(`${kind}: system calls per call (${CALLS} calls, concurrency 1)`);
    for (const sc of names) {
      const cells = Object.entries(per).map(([n, m]) => `${n} ${((m.get(sc) ?? 0) / CALLS).toFixed(2)}`);
      console.log(`  ${sc.padEnd(16)} ${cells.join('   ')}`);
    }
  }
} finally {
  for (const p of Object.values(procs)) await p.stop();
  await peer.stop();
  rpc.close();
  rmSync(dir, { recursive: true, force: true });
}
