/**
 * `a2a-replay mock` as a process standing in for the recorded peer of golden scenarios: the replay
 * against it passes, plainly and byte for byte with the key and `strict`, for one scenario of each
 * binding and dialect (`replayRecordings`, what `run --peer` calls, in the test's process through
 * test/helpers/run-report.ts), and `run --peer <mock> --key --strict` as a process passes over the
 * whole corpus at once; at each stop the mock says every recorded exchange was requested and
 * `--expect-all` exits 0. The scenarios' own client, through the recorder with the key file
 * (`startRecorder`, what `record --key` starts) in front of a mock process, yields the golden
 * receipts: `diffReceiptLogs` as `diff --other-session` calls it for each, and `a2a-replay diff
 * --other-session` as a process printing the same for one. Every scenario is tested in-process
 * through the library in test/golden/mock-golden.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { SCENARIOS } from '../../scripts/golden/scenarios.js';
import { EXIT_CODES } from '../../src/public/core.js';
import { diffReceiptLogs, readReceiptLogLines } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { runCli } from '../helpers/cli.js';
import { stopProcess, startMockProcess } from '../helpers/cli-process.js';
import { replayReport } from '../helpers/run-report.js';
import { GOLDEN, GOLDEN_KEY, goldenScenarioDirs } from '../golden/golden-receipts.js';

const KEY = GOLDEN_KEY;
const scenarioDirs = await goldenScenarioDirs();

/** One scenario per binding and dialect: JSON-RPC, HTTP+JSON, gRPC, v0.3. */
const BY_BINDING = [
  'caller-pause-finish-step',
  'rest-caller-pause-finish-step',
  'grpc-caller-pause-finish-step',
  'v03-caller-pause-finish-step',
];

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mock-golden-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('a2a-replay mock over the golden corpus', () => {
  it('holds every golden scenario, and one of each binding and dialect among them', () => {
    expect(scenarioDirs).toEqual(SCENARIOS.map((s) => s.name).sort());
    for (const name of BY_BINDING) expect(scenarioDirs).toContain(name);
  });

  it.each(BY_BINDING)('serves %s so that run --peer passes, also with --strict', async (name) => {
    const recording = join(GOLDEN, name, 'recording.jsonl');
    // Two copies of the recording: one session for the plain replay, one for the strict one.
    const mock = await startMockProcess([recording, recording, '--expect-all']);
    let replays = false;
    try {
      const plain = await replayReport([recording], { peer: mock.url });
      expect(plain.code, plain.stdout).toBe(EXIT_CODES.ok);
      expect(plain.stdout).toContain('PASS');
      const strict = await replayReport([recording], { peer: mock.url, key: KEY, strict: true });
      expect(strict.code, strict.stdout).toBe(EXIT_CODES.ok);
      expect(strict.stdout).toContain('PASS');
      replays = true;
    } finally {
      // Stopped either way; its verdict is checked only after both replays passed, so a failing
      // replay is reported as itself rather than as the exchanges it left unrequested.
      const code = await stopProcess(mock);
      if (replays) {
        expect(mock.stdout()).toContain('every recorded exchange was requested');
        expect(code, mock.stdout() + mock.stderr()).toBe(0);
      }
    }
  });

  it(
    'serves every golden scenario at once so that run over the corpus passes with --strict',
    { timeout: 120_000 },
    async () => {
      const recordings = scenarioDirs.map((name) => join(GOLDEN, name, 'recording.jsonl'));
      const mock = await startMockProcess([...recordings, '--expect-all']);
      try {
        const strict = await runCli(['run', ...recordings, '--peer', mock.url, '--key', KEY, '--strict']);
        expect(strict.code, strict.stdout + strict.stderr).toBe(0);
        expect(strict.stdout).toContain(`${recordings.length} recordings: ${recordings.length} match`);
      } finally {
        expect(await stopProcess(mock), mock.stdout() + mock.stderr()).toBe(0);
        expect(mock.stdout()).toContain('every recorded exchange was requested');
      }
    },
  );

  it('gives the client of each binding and dialect, recorded with --key, the golden receipts', async () => {
    const mock = await startMockProcess([
      ...BY_BINDING.map((name) => join(GOLDEN, name, 'recording.jsonl')),
      '--expect-all',
    ]);
    try {
      for (const name of BY_BINDING) {
        const scenario = SCENARIOS.find((s) => s.name === name)!;
        const out = join(scratch, `${name}.jsonl`);
        const warnings: string[] = [];
        const recorder = await startRecorder({ upstream: mock.url, out, key: KEY, warn: (l) => warnings.push(l) });
        const client = new A2aTestClient(recorder.url, 'operator', scenario.binding ?? 'JSONRPC', scenario.dialect);
        try {
          await scenario.run(client);
        } finally {
          client.close();
          // `record` exits 0 when every line was written.
          expect((await recorder.close()).complete, warnings.join('\n')).toBe(true);
        }
        const golden = join(GOLDEN, name, 'recording.receipts.jsonl');
        const live = join(scratch, `${name}.receipts.jsonl`);
        const diff = diffReceiptLogs(await readReceiptLogLines(golden), await readReceiptLogLines(live), {
          strict: false,
          signed: true,
          otherSession: true,
        });
        expect(diff.differences, name).toEqual([]);
        expect(diff.expectedReceipts, name).toBeGreaterThan(0);
        if (name === BY_BINDING[0]) {
          // The command prints and exits with what the library said.
          const printed = await runCli(['diff', golden, live, '--other-session']);
          expect(printed.code, `${name}: ${printed.stdout}${printed.stderr}`).toBe(0);
          expect(printed.stdout).toMatch(new RegExp(`^same: ${diff.expectedReceipts} receipts`));
        }
      }
    } finally {
      expect(await stopProcess(mock), mock.stdout() + mock.stderr()).toBe(0);
    }
  });
});
