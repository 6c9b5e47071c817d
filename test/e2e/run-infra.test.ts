/**
 * `a2a-replay run` against real-time peers and broken infrastructure: ids and tokens remapped
 * with volatile fields ignored (exit 0), an unreachable peer and a crashing `--peer-cmd` (exit 3,
 * quoting the peer's stderr), a malformed recording (exit 2 naming the line). The session is
 * recorded in-process (`startPeer`, `startRecorder`) and replayed as `run` replays it
 * (`replayRecordings` with `peer` or `peerCmd`, test/helpers/run-report.ts); the replay against a
 * `--peer-cmd` peer that works, and the unreachable peer, run the built CLI, which prints the
 * report and exits 0 and 3.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { ROOT, builtCli, runCli } from '../helpers/cli.js';
import { replayReport } from '../helpers/run-report.js';
import { selfParkSession } from '../replay/session.js';

let dir = '';
let recording = '';

/** A fresh real-time peer with `/control` and 5 ms steps (`peer --control --step-ms 5`), one per replay. */
async function withRealTimePeer<T>(use: (peer: RunningPeer) => Promise<T>): Promise<T> {
  const peer = await startPeer({ control: true, stepMs: 5 });
  try {
    return await use(peer);
  } finally {
    await peer.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-infra-'));
  recording = join(dir, 'park.jsonl');
  const peer = await startPeer({ control: true, stepMs: 5 });
  const recorder = await startRecorder({ upstream: peer.url, out: recording, warn: () => undefined });
  try {
    await selfParkSession(recorder.url);
  } finally {
    await recorder.close();
    await peer.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('run against a real-time peer', () => {
  it('maps the live ids and tokens to the recorded ones and ignores volatile fields', async () => {
    const update = await withRealTimePeer((peer) => replayReport([recording], { update: true, peer: peer.url }));
    expect(update.code).toBe(0);
    const golden = await readFile(join(dir, 'park.receipts.jsonl'), 'utf8');
    const recorded = await readFile(recording, 'utf8');
    const taskId = /"id":"(task-[^"]+)"/.exec(recorded)?.[1];
    expect(taskId).toBeDefined();
    expect(golden).toContain(`"taskId":"${taskId}"`);

    // Once as users run it: the built CLI starting the built peer with --peer-cmd.
    const realTimePeer = `"${process.execPath}" "${builtCli()}" peer --port $PORT --control --step-ms 5`;
    const r = await runCli(['run', recording, '--peer-cmd', realTimePeer]);
    expect(r.stdout).toMatch(/^PASS +.*park\.jsonl/m);
    expect(r.stdout).toMatch(/ignored volatile fields: .*pausedAt/);
    expect(r.stdout).toMatch(/ids and tokens minted by the live peer were mapped to the recorded ones/);
    expect(r.code).toBe(0);
  });
});

describe('run when the infrastructure fails', () => {
  it('exits 3 when the peer is unreachable', async () => {
    const r = await runCli(['run', recording, '--peer', 'http://127.0.0.1:9']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/ERROR .*cannot reach the peer at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/);
  });

  it('exits 3 with the peer’s stderr when a --peer-cmd peer crashes mid-run', async () => {
    const script = join(dir, 'crashing-peer.cjs');
    await writeFile(
      script,
      [
        "const http = require('node:http');",
        'http.createServer((req, res) => {',
        "  if (req.method === 'GET') { res.writeHead(200, { 'content-type': 'application/json' }); " +
          "res.end('{}'); return; }",
        "  process.stderr.write('boom: the agent ran out of memory\\n');",
        '  process.exit(70);',
        "}).listen(Number(process.env.PORT), '127.0.0.1');",
      ].join('\n'),
    );
    const r = await replayReport([recording], { peerCmd: `"${process.execPath}" "${script}"` });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/exited with code 70; its stderr:\n {4}boom: the agent ran out of memory/);
  });

  it('names the whole peer command and its exit code when it ends before its agent card answers', async () => {
    const golden = join(ROOT, 'golden', 'timeout-fail', 'recording.jsonl');
    const r = await replayReport([golden], { peerCmd: 'echo boom >&2; exit 7' });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(
      new RegExp(
        'the peer command "echo boom >&2; exit 7" exited with code 7 before its agent card answered at ' +
          'http://127\\.0\\.0\\.1:\\d+; its stderr:\n {4}boom',
      ),
    );
  });

  it('exits 3 when a --peer-cmd peer never answers its agent card', async () => {
    const r = await replayReport([recording], {
      peerCmd: `"${process.execPath}" -e "console.error('not listening'); setTimeout(() => {}, 60000)"`,
      // Long enough for the child to have started and said its line on a loaded machine: its
      // stderr is what the message quotes.
      readyTimeoutMs: 2000,
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(
      /did not answer \/\.well-known\/agent-card\.json .* within 2000 ms .*; its stderr:\n {4}not listening/s,
    );
  });

  it('exits 2 naming the line of a malformed recording', async () => {
    const broken = join(dir, 'broken.jsonl');
    const lines = (await readFile(recording, 'utf8')).split('\n');
    lines[2] = '{"seq": "three"}';
    await writeFile(broken, lines.join('\n'));
    const r = await replayReport([broken]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`${broken}:3: entry "seq" is "three", expected 2`);
  });
});
