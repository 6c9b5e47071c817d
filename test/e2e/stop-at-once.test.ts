/**
 * A supervisor may stop a server command the moment it reads the `listening on` line: `peer` and
 * `record` listen for SIGTERM before they print it, so they still shut down cleanly — exit 0, and
 * `record --key` leaves a receipt log closed by its checkpoint, which verifies.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { runCli } from '../helpers/cli.js';
import { type CliProcess, startCliProcess, stopProcess } from '../helpers/cli-process.js';

let dir = '';
let keyFile = '';
let peer: CliProcess;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stop-at-once-'));
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'stop' }).keyFile()), { mode: 0o600 });
  peer = await startCliProcess(['peer', '--deterministic']);
});
afterAll(async () => {
  await stopProcess(peer);
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
    const verified = await runCli(['verify', out.replace(/\.jsonl$/, '.receipts.jsonl'), '--key', keyFile, '--json']);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, receipts: 0, closed: true });
  }
});
