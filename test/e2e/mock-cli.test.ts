/**
 * `a2a-replay mock` as a process: at SIGTERM it lists the recorded exchanges never requested and
 * the requests nothing matched, `--report FILE` writes the same as JSON, `--expect-all` exits 1
 * when an exchange was never requested; bad input is a usage error naming what was wrong.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { startMockProcess, stopProcess } from '../helpers/cli-process.js';

const RECORDING = join(ROOT, 'golden', 'wrong-token-then-right', 'recording.jsonl');

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mock-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rpc(url: string, method: string, params: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return { status: response.status, body: await response.json() };
}

describe('a2a-replay mock', () => {
  it('with --expect-all exits 1 naming the exchanges never requested, and --report writes them as JSON', async () => {
    const report = join(dir, 'report.json');
    const mock = await startMockProcess([RECORDING, '--expect-all', '--report', report]);
    const sent = await rpc(mock.url, 'SendMessage', {
      configuration: { returnImmediately: true },
      message: { messageId: 'mine', parts: [{ text: 'work:2' }], role: 'ROLE_USER' },
    });
    expect(sent).toMatchObject({ status: 200, body: { id: 7, result: { task: { id: 'task-6e6ed95a-0001' } } } });
    const unmatched = await rpc(mock.url, 'GetTask', { id: 'task-unknown' });
    expect(unmatched).toMatchObject({
      status: 200,
      body: { id: 7, error: { code: -32603, data: [{ reason: 'NO_RECORDED_EXCHANGE' }] } },
    });

    expect(await stopProcess(mock)).toBe(1);
    expect(mock.stdout()).toContain('4 recorded exchanges were never requested:');
    expect(mock.stdout()).toContain(`${RECORDING} seq 3 (xid x-cb9ca1c0-0002) PauseTask`);
    expect(mock.stdout()).toContain('1 request matched no recorded exchange:');
    expect(mock.stderr()).toContain('--expect-all: 4 recorded exchanges were never requested');
    const json = JSON.parse(await readFile(report, 'utf8')) as {
      recordings: { recording: string; exchanges: number; requested: number; unrequested: { seq: number }[] }[];
      unmatched: { method: string; closest: { field: string | null } | null }[];
    };
    expect(json.recordings).toHaveLength(1);
    expect(json.recordings[0]).toMatchObject({ recording: RECORDING, exchanges: 5, requested: 1 });
    expect(json.recordings[0]?.unrequested.map((e) => e.seq)).toEqual([3, 5, 7, 9]);
    expect(json.unmatched).toHaveLength(1);
    expect(json.unmatched[0]).toMatchObject({ method: 'GetTask', closest: { field: '/method' } });
  });

  it('prints a client-sent method name with its control, separator and bidi characters escaped', async () => {
    const mock = await startMockProcess([RECORDING]);
    const forged = 'GetTask\n\u001b[2K\u001b[32mPASS all 12 checks\u001b[0m\u2028\u202ekcehc';
    expect((await rpc(mock.url, forged, {})).status).toBe(200);
    expect(await stopProcess(mock)).toBe(0);
    const out = mock.stdout();
    expect(out).toContain('  GetTask\\u000a\\u001b[2K\\u001b[32mPASS all 12 checks\\u001b[0m\\u2028\\u202ekcehc /: ');
    expect(out).not.toMatch(/^\S*PASS/m);
    for (const raw of ['\u001b', '\n  PASS', '\u2028', '\u202e'])
      expect(out.includes(raw), JSON.stringify(raw)).toBe(false);
  });

  it('without --expect-all exits 0 even when exchanges were never requested', async () => {
    const mock = await startMockProcess([RECORDING]);
    expect(await stopProcess(mock)).toBe(0);
    expect(mock.stdout()).toContain('5 recorded exchanges were never requested:');
  });

  it('refuses a bad --speed, a missing recording and a malformed one with exit 2', async () => {
    const speed = await runCli(['mock', RECORDING, '--speed', '0']);
    expect(speed.code).toBe(2);
    expect(speed.stderr).toContain('--speed: expected a positive number');
    const missing = await runCli(['mock', join(dir, 'nope.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.jsonl');
    const bad = join(dir, 'bad.jsonl');
    await import('node:fs/promises').then((fs) => fs.writeFile(bad, '{"type":"recording"}\n', { mode: 0o600 }));
    const malformed = await runCli(['mock', bad]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(`${bad}:1:`);
  });

  it('refuses a request without A2A-Version 1.0 with -32009, as the reference peer does', async () => {
    const mock = await startMockProcess([RECORDING]);
    try {
      const send = (headers: Record<string, string>, path = '/') =>
        fetch(new URL(path, mock.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'task-unknown' } }),
        }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { error?: { code: number; message: string } },
        }));
      const none = await send({});
      expect(none.status).toBe(200);
      expect(none.body.error?.code).toBe(-32009);
      expect(none.body.error?.message).toContain('A2A-Version none (which means 0.3) is not supported');
      expect((await send({ 'a2a-version': '0.3' })).body.error?.code).toBe(-32009);
      // The query parameter counts as the header does; with 1.0 the request is matched (here: nothing matches).
      expect((await send({}, '/?A2A-Version=1.0')).body.error?.code).toBe(-32603);
    } finally {
      await stopProcess(mock);
    }
  });

  it('names where an unmatched request differs, and says already requested only when it was', async () => {
    const recording = join(ROOT, 'golden', 'caller-pause-finish-step', 'recording.jsonl');
    const mock = await startMockProcess([recording]);
    try {
      const unmatched = await rpc(mock.url, 'GetTask', { id: 'no-such-task-xyz' });
      const error = (unmatched.body as { error: { message: string; data: { metadata: Record<string, string> }[] } })
        .error;
      expect(error.data[0]?.metadata).toMatchObject({ field: '/params/id', alreadyRequested: 'false' });
      expect(error.message).toBe(
        'no recorded exchange matches this GetTask request; closest: GetTask seq 16 (xid x-d763b60c-0006) in ' +
          `${recording}, which differs at /params/id, and is recorded after SendStreamingMessage seq 3 of ` +
          'its task, a call not made yet',
      );
    } finally {
      await stopProcess(mock);
    }
  });
});
