/**
 * A request recorded with a body its method usually lacks (a GET with a body) is replayed as the
 * client sent it, framed by its Content-Length, and the run report says so: recorded through
 * `startRecorder` (what `record` runs) in front of the reference peer (`startPeer`), and replayed
 * as `run` replays it (`replayReport`, its printed report), all in this process.
 */
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRecording } from '../../src/recording/recording-reader.js';
import { startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { replayReport } from '../helpers/run-report.js';
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
  const peer = await startPeer({ deterministic: true });
  try {
    const recorder = await startRecorder({ upstream: peer.url, out: recording, warn: () => undefined });
    try {
      await getWithBody(recorder.url, '/rest/tasks/none', smuggled);
      await callerPauseSession(recorder.url);
    } finally {
      expect((await recorder.close()).complete).toBe(true);
    }
  } finally {
    await peer.close();
  }
  const first = (await readRecording(recording)).entries[0];
  expect(first?.http.method).toBe('GET');
  expect(first?.bodyText).toBe(smuggled);
  const update = await replayReport([recording], { update: true });
  expect(update.code, update.stdout + update.warnings.join('\n')).toBe(0);
  // The live answers equal the recorded ones: nothing was rewritten.
  expect(update.stdout).not.toContain('rewritten from the live answers');
  const replay = await replayReport([recording]);
  expect(replay.stdout).toMatch(/^PASS /m);
  expect(replay.stdout).toContain(
    `note: seq 1: GET /rest/tasks/none was recorded with a ${smuggled.length}-byte body; ` +
      'sent as recorded, framed by Content-Length',
  );
  expect(replay.code).toBe(0);
});
