/**
 * SIGTERM or SIGINT during a long `run` stops it at once: the report it prints says the result is
 * partial and how far the replay came, and the run exits 130 (README "Commands"). The peer holds
 * one request unanswered, so the run is mid-way, waiting, when the signal comes, whatever the
 * machine's speed.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRecordingBinding } from '../../src/receipts/recording-binding.js';
import type { RecordingEntry, RecordingHeader } from '../../src/recording/format.js';
import { serializeLine } from '../../src/recording/recording-writer.js';
import { deriveReceiptLog, unsignedKeyring } from '../../src/replay/derive-receipts.js';
import { TOOL_NAME } from '../../src/version.js';
import { ROOT, builtCli, childEnv } from '../helpers/cli.js';
import { entry, result, rpc } from '../replay/fixtures.js';

const GETS = 200;
/** The GetTask the peer never answers: the run waits on it when it is stopped. */
const HELD = 120;

let dir = '';
let file = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-stop-'));
  file = join(dir, 'gets.jsonl');
  const header: RecordingHeader = {
    type: 'recording',
    version: 1,
    id: 'rec-run-stop',
    createdAt: '2026-01-01T00:00:00.000Z',
    target: { url: 'http://127.0.0.1:1' },
    tool: TOOL_NAME,
  };
  const entries: RecordingEntry[] = [];
  for (let i = 1; i <= GETS; i++) {
    entries.push(entry(2 * i - 1, `x-${i}`, 'request', rpc('GetTask', { id: 'task-1' }, i)));
    entries.push(
      entry(2 * i, `x-${i}`, 'response', result({ id: 'task-1', status: { state: 'TASK_STATE_WORKING' } }, i)),
    );
  }
  await writeFile(file, [header, ...entries].map((line) => serializeLine(line)).join(''), { mode: 0o600 });
  const golden = await deriveReceiptLog({
    header,
    entries: [],
    keyring: unsignedKeyring(),
    tool: TOOL_NAME,
    recording: await readRecordingBinding(file),
  });
  await writeFile(join(dir, 'gets.receipts.jsonl'), `${golden.lines.join('\n')}\n`, { mode: 0o600 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A peer answering GetTask as recorded but for call {@link HELD}, which it holds; `held` resolves when it came. */
async function holdingPeer(): Promise<{ server: Server; url: string; held: Promise<void> }> {
  let hold: () => void = () => {};
  const held = new Promise<void>((resolve) => (hold = resolve));
  const parked: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.setHeader('content-type', 'application/json');
        res.end('{"name":"holding peer"}');
        return;
      }
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number };
      if (call.id === HELD) {
        parked.push(res);
        hold();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(result({ id: 'task-1', status: { state: 'TASK_STATE_WORKING' } }, call.id)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, held };
}

/** Runs `run` against a holding peer and sends `signal` once the held request came. */
async function stopMidway(
  signal: NodeJS.Signals,
  extra: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const peer = await holdingPeer();
  try {
    const child = spawn(
      process.execPath,
      [builtCli(), 'run', file, '--peer', peer.url, '--pace', 'none', '--timeout-ms', '600000', ...extra],
      {
        cwd: ROOT,
        env: childEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await peer.held;
    child.kill(signal);
    return { code: await exited, stdout, stderr };
  } finally {
    peer.server.closeAllConnections();
    peer.server.close();
  }
}

it('SIGTERM stops a long run at once: exit 130 and a report that says it is partial and how far it came', async () => {
  const run = await stopMidway('SIGTERM', []);
  expect(run.code, run.stderr).toBe(130);
  // Requests 1..HELD were sent, answers 1..HELD-1 came: 2 × HELD − 1 entries settled.
  expect(run.stdout).toContain(
    `STOPPED ${file}: the run was stopped after ${2 * HELD - 1} of ${2 * GETS} entries: this result is partial`,
  );
  expect(run.stdout).toContain('1 recording: 1 stopped (exit 130)');
});

it('SIGINT stops it the same way, and the JSON and JUnit reports say stopped', async () => {
  const junit = join(dir, 'junit.xml');
  const run = await stopMidway('SIGINT', ['--json', '--junit', junit]);
  expect(run.code, run.stderr).toBe(130);
  const report = JSON.parse(run.stdout) as {
    exitCode: number;
    results: { outcome: string; error: { code: string } }[];
  };
  expect(report.exitCode).toBe(130);
  expect(report.results[0]).toMatchObject({ outcome: 'stopped', error: { code: 'STOPPED' } });
  expect(await readFile(junit, 'utf8')).toContain('<error type="stopped"');
});
