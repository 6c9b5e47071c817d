/**
 * A supervisor may stop a server command the moment it reads the `listening on` line: `peer` and
 * `record` listen for SIGTERM before they print it, so they still shut down cleanly — exit 0, and
 * `record --key` leaves a receipt log closed by its checkpoint, which verifies. The `peer` and
 * `record` stopped are processes; the peer the recorders forward to runs in the test's process, and
 * what `verify --json` says is its library calls' (test/helpers/verdicts.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { verifyVerdict } from '../helpers/verdicts.js';
import { startCliProcess, stopProcess } from '../helpers/cli-process.js';

let dir = '';
let keyFile = '';
let peer: RunningPeer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stop-at-once-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'stop' }).keyFile()), { mode: 0o600 });
  peer = await startPeer({ deterministic: true });
});
afterAll(async () => {
  await peer.close();
  await rm(dir, { recursive: true, force: true });
});

it('peer exits 0 when stopped as soon as it says where it listens', async () => {
  for (let i = 0; i < 3; i++) {
    const started = await startCliProcess(['peer', '--deterministic']);
    expect(await stopProcess(started)).toBe(0);
  }
});

it('record --key exits 0 and leaves a closed, verifying receipt log when stopped at once', async () => {
  for (let i = 0; i < 3; i++) {
    const out = join(dir, `at-once-${i}.jsonl`);
    const recorder = await startCliProcess(['record', '--upstream', peer.url, '--out', out, '--key', keyFile]);
    expect(await stopProcess(recorder), recorder.stderr()).toBe(0);
    const verified = await verifyVerdict([out.replace(/\.jsonl$/, '.receipts.jsonl')], keyFile);
    expect(verified.code, verified.lines.join('\n')).toBe(0);
    expect(verified.json).toMatchObject({ ok: true, receipts: 0, closed: true });
  }
});
