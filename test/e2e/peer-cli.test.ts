/**
 * `a2a-replay peer` as a process: first stdout line, a working endpoint, clean exit on signals,
 * and the limit and ground-truth flags.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { readPeerTransitions } from '../../src/peer/read-transitions.js';
import { runCli } from '../helpers/cli.js';
import { type CliProcess, startCliProcess } from '../helpers/cli-process.js';

let child: CliProcess | undefined;

afterEach(async () => {
  await child?.stop('SIGKILL');
  child = undefined;
});

async function startCli(args: string[]): Promise<CliProcess> {
  child = await startCliProcess(['peer', ...args]);
  return child;
}

async function rpc(url: string, path: string, method: string, params: unknown): Promise<unknown> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.json();
}

it.each(['SIGTERM', 'SIGINT'] as const)(
  'prints the listening line, serves the deterministic peer and exits 0 on %s',
  async (signal) => {
    const { url, exited } = await startCli(['--deterministic', '--seed', '7', '--step-ms', '500']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string }[];
    };
    expect(card.supportedInterfaces[0]?.url).toBe(url);
    const sent = (await rpc(url, '/', 'SendMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:1' }] },
      configuration: { returnImmediately: true },
    })) as { result: { task: { id: string } } };
    expect(sent.result.task.id).toMatch(/^task-[0-9a-f]{8}-0001$/);
    expect(await rpc(url, '/control', 'AdvanceClock', { ms: 500 })).toMatchObject({
      result: { now: '2026-01-01T00:00:00.500Z' },
    });
    child?.child.kill(signal);
    expect(await exited).toBe(0);
  },
);

it('closes open streams on SIGTERM and exits 0', async () => {
  const { url, exited } = await startCli(['--step-ms', '60000']);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:1' }] } },
    }),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  child?.child.kill('SIGTERM');
  for (;;) {
    const { done } = await reader.read().catch(() => ({ done: true }));
    if (done) break;
  }
  expect(await exited).toBe(0);
});

it('exits 2 with a one-line reason on a bad option', async () => {
  const r = await runCli(['peer', '--port', 'abc']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--port: expected an integer/);
});

it('applies --max-tasks and --request-timeout-ms, and flushes --transitions on SIGTERM', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'peer-cli-'));
  try {
    const file = join(dir, 'transitions.jsonl');
    const { url, exited } = await startCli([
      '--deterministic',
      '--max-tasks',
      '1',
      '--request-timeout-ms',
      '300',
      '--transitions',
      file,
    ]);
    const start = async (): Promise<string> =>
      (
        (await rpc(url, '/', 'SendMessage', {
          message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'work:0' }] },
          configuration: { returnImmediately: true },
        })) as { result: { task: { id: string } } }
      ).result.task.id;
    const first = await start();
    await start();
    expect(await rpc(url, '/', 'GetTask', { id: first })).toMatchObject({ error: { code: -32001 } });
    const port = Number(new URL(url).port);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write('POST / HTTP/1.1\r\nHost: peer\r\nContent-Length: 10\r\n\r\n{'),
      );
      let got = '';
      socket.setEncoding('utf8').on('data', (d: string) => (got += d));
      socket.on('error', reject);
      socket.on('close', () => resolve(got));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    child?.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const log = await readPeerTransitions(file);
    expect(log.header.peer.maxTasks).toBe(1);
    expect(log.lines.map((l) => l.event)).toEqual([
      'transition',
      'transition',
      'transition',
      'transition',
      'transition',
      'transition',
      'evicted',
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it.each([
  [['--max-tasks', '0'], /--max-tasks: expected an integer from 1 to/],
  [['--request-timeout-ms', '-5'], /--request-timeout-ms: expected an integer/],
  [['--max-connections', 'lots'], /--max-connections: expected an integer/],
  [['--bypass-ask-after', '0'], /--bypass-ask-after: expected an integer from 1 to/],
  [['--transitions', '/nonexistent-dir/t.jsonl'], /cannot write the transitions log \/nonexistent-dir\/t\.jsonl/],
])('exits 2 naming the problem for %j', async (args, why) => {
  const r = await runCli(['peer', ...args]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(why);
});
