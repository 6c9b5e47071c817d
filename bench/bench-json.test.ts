/**
 * `npm run bench -- --json FILE --size tiny` runs every benchmark with tiny counts and writes one
 * JSON object holding every headline figure: a finite number, or null with a note saying why.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT, childEnv } from '../test/helpers/cli.js';

const KEYS = [
  'proxy.unary.recorderOverBare',
  'proxy.unary.addedP50OverBareMs',
  'proxy.sse.recorderOverBare',
  'proxy.pauseResume.recorderOverDirect',
  'proxy.unary.recorderCpuOverBare',
  'proxy.sse.recorderCpuOverBare',
  'proxy.pauseResume.recorderCpuOverBare',
  'proxy.pauseResume.recorderUserUsPerCall',
  'proxy.pauseResume.recorderSystemUsPerCall',
  'proxy.pauseResume.floorCpuOverBare',
  'receipts.pipelineOverRaw',
  'verify.overRaw',
  'verify.jobs2OverRaw',
  'replay.overPlain',
  'scale.time20kOver5k',
  'scale.rss100kOver10k',
  'fleetMemory.lost.rss20Over2Logs',
  'fleetMemory.audit.rss20Over2Logs',
  'fleetMemory.lost.cpu2NOverN',
  'fleetMemory.audit.cpu2NOverN',
  'replayScale.largeExit',
  'replayScale.rssLargeOverSmall',
  'replayScale.msPerEntryLargeOverSmall',
  'replayScale.reportRssMiB',
  'replayScale.reportRssLargeOverSmall',
  'replayScale.pacedRssLargeOverSmall',
];

const dir = mkdtempSync(join(tmpdir(), 'bench-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('writes every figure, a finite number or null with a note', { timeout: 240_000 }, async () => {
  const file = join(dir, 'bench.json');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(npm, ['run', 'bench', '--', '--json', file, '--size', 'tiny'], {
      cwd: ROOT,
      // The global setup built dist/; other tests may be running it, so no rebuild.
      env: childEnv({ BENCH_BUILT: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (exit) => resolve({ code: exit, output }));
  });
  expect(code, output.slice(-4000)).toBe(0);
  expect(output).toContain('== figures (tiny) ==');

  const report = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & {
    notes: Record<string, string>;
    meta: { size: string };
  };
  expect(report.meta.size).toBe('tiny');
  for (const key of KEYS) {
    expect(report, key).toHaveProperty([key]);
    const value = report[key];
    if (value === null) expect(report.notes[key], `note for ${key}`).toMatch(/\S/);
    else {
      expect(typeof value, key).toBe('number');
      expect(Number.isFinite(value), key).toBe(true);
    }
  }
});
