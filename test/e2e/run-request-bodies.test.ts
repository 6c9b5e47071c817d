/**
 * A request recorded with a body its method usually lacks (a GET with a body) is replayed as the
 * client sent it, framed by its Content-Length, and the run report says so: through the real
 * `record` and `run` processes, against the reference peer.
 */
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRecording } from '../../src/recording/recording-reader.js';
import { runCli } from '../helpers/cli.js';
import { startCliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';
import { callerPauseSession } from '../replay/session.js';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-bodies-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Sends `GET path` with `body` framed by its Content-Length; resolves with the status. */
function getWithBody(url: string, path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: 'GET',
        path,
        headers: { 'content-length': String(Buffer.byteLength(body)), 'a2a-version': '1.0' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

it('replays a recorded GET body framed, to a pass, with a note naming the exchange', async () => {
  const recording = join(dir, 'get-body.jsonl');
  const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
  const peer = await startCliProcess(['peer', '--deterministic']);
  try {
    const recorder = await startRecordProcess(['--upstream', peer.url, '--out', recording], {
      A2A_REPLAY_KEY_FILE: '',
    });
    try {
      await getWithBody(recorder.url, '/rest/tasks/none', smuggled);
      await callerPauseSession(recorder.url);
    } finally {
      expect(await stopProcess(recorder)).toBe(0);
    }
  } finally {
    await stopProcess(peer);
  }
  const first = (await readRecording(recording)).entries[0];
  expect(first?.http.method).toBe('GET');
  expect(first?.bodyText).toBe(smuggled);
  const update = await runCli(['run', recording, '--update']);
  expect(update.code, update.stdout + update.stderr).toBe(0);
  // The live answers equal the recorded ones: nothing was rewritten.
  expect(update.stdout).not.toContain('rewritten from the live answers');
  const replay = await runCli(['run', recording]);
  expect(replay.stdout).toMatch(/^PASS /m);
  expect(replay.stdout).toContain(
    `note: seq 1: GET /rest/tasks/none was recorded with a ${smuggled.length}-byte body; ` +
      'sent as recorded, framed by Content-Length',
  );
  expect(replay.code).toBe(0);
});
