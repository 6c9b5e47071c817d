/**
 * The mock (`startMockServer`, what `a2a-replay mock` starts) stands in for the recorded peer of
 * every golden scenario, in-process through the public entries: `replayRecordings` against it
 * (what `run --peer` calls) passes, plainly and byte for byte with `strict`, and every recorded
 * exchange was requested (its report lists none unrequested: `mock --expect-all` exits 0). The
 * scenarios' own client, through `startRecorder` with the test key in front of the mock, yields
 * the golden receipts (`diffReceiptLogs` as `a2a-replay diff --other-session` calls it). The CLI
 * processes over the same corpus: test/e2e/mock-golden.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { SCENARIOS } from '../../scripts/golden/scenarios.js';
import { EXIT_CODES } from '../../src/public/core.js';
import { type Keyring, diffReceiptLogs, loadKeyring, readReceiptLogLines } from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { renderRecordingText, replayRecordings } from '../../src/public/replay.js';
import { startMock, stopMock } from '../helpers/mock-in-process.js';
import { GOLDEN, GOLDEN_KEY, goldenScenarioDirs } from './golden-receipts.js';

const KEY = GOLDEN_KEY;
const scenarioDirs = await goldenScenarioDirs();

let scratch = '';
let keyring: Keyring;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mock-golden-'));
  keyring = (await loadKeyring({ keys: [KEY], env: {} })).keyring;
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the mock over the golden corpus', () => {
  it('holds every golden scenario', () => {
    expect(scenarioDirs).toEqual(SCENARIOS.map((s) => s.name).sort());
  });

  it.each(scenarioDirs)('serves %s so that the replay against it passes, also strict', async (name) => {
    const recording = join(GOLDEN, name, 'recording.jsonl');
    // Two copies of the recording: one session for the plain replay, one for the strict one.
    const mock = await startMock([recording, recording]);
    let passed = false;
    try {
      const plain = await replayRecordings([recording], { peer: mock.url });
      const plainText = plain.results.map((r) => renderRecordingText(r)).join('\n');
      expect(plain.exitCode, plainText).toBe(EXIT_CODES.ok);
      expect(plain.results.map((r) => r.outcome)).toEqual(['match']);
      expect(plainText).toContain('PASS');
      const strict = await replayRecordings([recording], { peer: mock.url, keyring, strict: true });
      expect(strict.exitCode, strict.results.map((r) => renderRecordingText(r)).join('\n')).toBe(EXIT_CODES.ok);
      expect(strict.results.map((r) => r.outcome)).toEqual(['match']);
      passed = true;
    } finally {
      // Stopped either way; what it left unrequested is checked only after both replays passed, so
      // a failing replay is reported as itself rather than as the exchanges it left unrequested.
      const unrequested = (await stopMock(mock)).unrequested;
      if (passed) expect(unrequested).toEqual([]);
    }
  });

  it.each(SCENARIOS.map((s) => [s.name, s] as const))(
    'gives the scenario client of %s, recorded with the key in front of the mock, the golden receipts',
    async (name, scenario) => {
      const recording = join(GOLDEN, name, 'recording.jsonl');
      const mock = await startMock([recording]);
      const out = join(scratch, `${name}.jsonl`);
      const warnings: string[] = [];
      const recorder = await startRecorder({ upstream: mock.url, out, key: keyring, warn: (l) => warnings.push(l) });
      const client = new A2aTestClient(recorder.url, 'operator', scenario.binding ?? 'JSONRPC', scenario.dialect);
      try {
        await scenario.run(client);
      } finally {
        client.close();
        // `record` exits 0 when every line was written, 3 when not.
        expect((await recorder.close()).complete, warnings.join('\n')).toBe(true);
        expect((await stopMock(mock)).unrequested).toEqual([]);
      }
      const golden = await readReceiptLogLines(join(GOLDEN, name, 'recording.receipts.jsonl'));
      const live = await readReceiptLogLines(join(scratch, `${name}.receipts.jsonl`));
      const diff = diffReceiptLogs(golden, live, { strict: false, signed: true, otherSession: true });
      expect(diff.differences).toEqual([]);
      expect(diff.expectedReceipts).toBe(diff.actualReceipts);
    },
  );
});
