/**
 * Fail closed on traffic no dialect reads (docs/design.md §14.10): requests on the A2A path that
 * are neither A2A v0.3 nor v1.0 (a JSON-RPC method neither has, an `A2A-Version` this tool does not
 * speak), sent through the real `record --key` process to a stock 0.3.14 server, are recorded,
 * named at once on stderr and in the stop line, and make `lost` say NOT UNDERSTOOD (exit 2) and
 * `verify --recording` fail: never a clean verdict. `lost --json` and `verify` are the library calls
 * the commands make; the record and `lost` processes show what is printed.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/public/receipts.js';
import { runCli } from '../helpers/cli.js';
import { type CliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { type SdkV03InputPeer, V03_RPC_PATH, startSdkV03InputPeer } from '../fixtures/sdk-v03-input-peer.js';

let dir = '';
const procs: CliProcess[] = [];
let peer: SdkV03InputPeer | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'not-understood-'));
});
afterEach(async () => {
  for (const p of procs.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await peer?.close();
  peer = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function rpc(url: string, method: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { id: 'task-1' } }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('a dialect the recorder does not read', () => {
  it('is named on stderr and in the stop line, by lost (exit 2) and by verify --recording', async () => {
    peer = await startSdkV03InputPeer();
    const key = join(dir, 'key.json');
    const receiptKey = generateReceiptKey({ kid: 'nu' });
    await writeFile(key, canonicalJson(receiptKey.keyFile()), { mode: 0o600 });
    const out = join(dir, 'session.jsonl');
    const recorder = await startRecordProcess(['--upstream', peer.url, '--out', out, '--key', key]);
    procs.push(recorder);
    const url = `${recorder.url}${V03_RPC_PATH}`;
    // A v0.3 call the observer reads, then two it cannot: a method of no version, a version it does not speak.
    await rpc(url, 'tasks/get');
    await rpc(url, 'tasks/frobnicate');
    await rpc(url, 'GetTask', { 'a2a-version': '2.0' });
    expect(await stopProcess(recorder)).toBe(0);

    const stderr = recorder.stderr();
    expect(stderr).toContain(
      'a2a-replay: not understood (seq 3): JSON-RPC method "tasks/frobnicate" is no method of A2A 0.3 or 1.0',
    );
    expect(stderr).toContain(
      'not understood (seq 5): GetTask asks for A2A-Version 2.0, a version this observer does not read',
    );
    expect(stderr).toMatch(/a2a-replay: stopped: 3 exchanges, .*, 2 NOT UNDERSTOOD; wrote /);
    // Recorded all the same: the three requests are in the recording.
    const recorded = (await readFile(out, 'utf8')).split('\n').filter((l) => l.includes('"kind":"request"'));
    expect(recorded).toHaveLength(3);
    // The version each asked for is on its entry: v0.3 read, none for a method of no version, 2.0 unread.
    expect(recorded.map((l) => (JSON.parse(l) as { a2aVersion?: string }).a2aVersion)).toEqual([
      '0.3',
      undefined,
      '2.0',
    ]);

    const lost = await runCli(['lost', out]);
    expect(lost.code, lost.stderr + lost.stdout).toBe(2);
    expect(lost.stdout).toContain(`no lost pauses seen in ${out} (recording, INCOMPLETE)`);
    expect(lost.stdout).toContain(`NOT UNDERSTOOD: 2 requests of ${out} are in no A2A dialect this tool reads`);
    expect(lost.stdout).toMatch(/:\d+: seq 3: JSON-RPC method "tasks\/frobnicate" is no method of A2A 0\.3 or 1\.0/);
    const json = await lostVerdict([out]);
    expect(json.code).toBe(2);
    expect(json.json).toMatchObject({ understood: false, notUnderstood: [{ seq: 3 }, { seq: 5 }] });

    const log = join(dir, 'session.receipts.jsonl');
    const verified = await verifyVerdict([log], receiptKey, { checks: { recording: out } });
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain('NOT UNDERSTOOD: 2 requests are in no A2A dialect this tool reads');
  });
});
