/**
 * First sessions of software nobody here wrote replay clean with no flags: the stock
 * `@a2a-js/sdk` server and client recorded through the real `record` and replayed against the
 * same server (`run --peer`), and a session of the reference peer in real-time mode replayed on
 * the embedded peer.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientFactory } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startRecordProcess, stopProcess } from '../intercept/record-process.js';
import { sdkSession, startSdkEchoServer } from '../intercept/sdk-echo-server.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'real-sessions-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('replays a session of the stock SDK server and client against that server with no --ignore', async () => {
  const upstream = await startSdkEchoServer();
  try {
    const out = join(dir, 'sdk.jsonl');
    const recorder = await startRecordProcess(['--upstream', upstream.url, '--out', out]);
    await sdkSession(await new ClientFactory().createFromUrl(recorder.url));
    expect(await stopProcess(recorder)).toBe(0);
    const recorded = await readFile(out, 'utf8');
    // The server names the live task in its error message (CancelTask of a completed task).
    expect(recorded).toMatch(/"message":"Task not cancelable: [0-9a-f-]{36}"/);

    const created = await runCli(['run', out, '--update', '--peer', upstream.url]);
    expect(created.code).toBe(0);
    expect(created.stdout).not.toContain('exchanges drifted');
    // Nothing drifted, so the recording is left as recorded.
    expect(await readFile(out, 'utf8')).toBe(recorded);

    const replayed = await runCli(['run', out, '--peer', upstream.url]);
    expect(replayed.stdout).toMatch(/^PASS /);
    expect(replayed.code).toBe(0);
  } finally {
    await upstream.close();
  }
});
