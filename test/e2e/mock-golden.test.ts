/**
 * `a2a-replay mock` as a process standing in for the recorded peer of golden scenarios: `run
 * --peer <mock>` passes, plainly and byte for byte with `--strict`, over the whole corpus at once
 * and over one scenario of each binding and dialect, and the mock says every recorded exchange was
 * requested. The scenarios' own client, through a `record --key` process in front of the mock,
 * yields the golden receipts (`a2a-replay diff`). Every scenario is tested in-process through the
 * library in test/golden/mock-golden.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { SCENARIOS } from '../../scripts/golden/scenarios.js';
import { runCli } from '../helpers/cli.js';
import { startRecordProcess, stopProcess, startMockProcess } from '../helpers/cli-process.js';
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
    // Two copies of the recording: one session for the plain run, one for the strict run.
    const mock = await startMockProcess([recording, recording, '--expect-all']);
    let runs = false;
    try {
      const plain = await runCli(['run', recording, '--peer', mock.url]);
      expect(plain.code, plain.stdout + plain.stderr).toBe(0);
      expect(plain.stdout).toContain('PASS');
      const strict = await runCli(['run', recording, '--peer', mock.url, '--key', KEY, '--strict']);
      expect(strict.code, strict.stdout + strict.stderr).toBe(0);
      expect(strict.stdout).toContain('PASS');
      runs = true;
    } finally {
      // Stopped either way; its verdict is checked only after both runs passed, so a failing run
      // is reported as itself rather than as the exchanges it left unrequested.
      const code = await stopProcess(mock);
      if (runs) {
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
        const recorder = await startRecordProcess(['--upstream', mock.url, '--out', out, '--key', KEY]);
        const client = new A2aTestClient(recorder.url, 'operator', scenario.binding ?? 'JSONRPC', scenario.dialect);
        try {
          await scenario.run(client);
        } finally {
          client.close();
          expect(await stopProcess(recorder), recorder.stderr()).toBe(0);
        }
        const golden = join(GOLDEN, name, 'recording.receipts.jsonl');
        const diff = await runCli(['diff', golden, join(scratch, `${name}.receipts.jsonl`), '--other-session']);
        expect(diff.code, `${name}: ${diff.stdout}${diff.stderr}`).toBe(0);
        expect(diff.stdout).toMatch(/^same: \d+ receipts/);
      }
    } finally {
      expect(await stopProcess(mock), mock.stdout() + mock.stderr()).toBe(0);
    }
  });
});
