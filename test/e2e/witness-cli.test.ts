/**
 * Witnesses for receipt-log checkpoints, as users run them: the built `record` in its own process
 * submits every checkpoint to a C2SP tlog-witness (test/tlog/test-witness.ts, on 127.0.0.1) in
 * the background and keeps the cosignatures beside the log; `verify --witness-vkey
 * --witness-quorum` counts them on the checkpoint it relies on; a fork the witness refuses is
 * told by `record` and by `verify`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { logOrigin, noteKeyName } from '../../src/receipts/log-tree.js';
import { runCli } from '../helpers/cli.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { startRecordProcess, stopProcess } from '../helpers/cli-process.js';
import { PeerClient } from '../peer/peer-client.js';
import { type TestWitness, startTestWitness } from '../tlog/test-witness.js';

let dir: string;
let peer: RunningPeer;
let witness: TestWitness;
let other: TestWitness;
let key: string;

async function pauseAndResume(url: string, times: number): Promise<void> {
  const client = new PeerClient(url);
  for (let i = 0; i < times; i++) {
    const task = await client.start('work:2');
    const paused = await client.result<{ pause: { resumeToken: string } }>('PauseTask', {
      taskId: task.id,
      reason: `approval ${i}`,
      mode: 'interrupt_immediate',
    });
    await client.result('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-replay-witness-'));
  key = join(dir, 'wit.key.json');
  const vkeyFile = join(dir, 'wit.vkey');
  expect((await runCli(['keygen', '--out', key, '--kid', 'wit', '--vkey', vkeyFile])).code).toBe(0);
  const vkey = (await readFile(vkeyFile, 'utf8')).trim();
  // name+hash+base64(0x01 ‖ key): the base64 may itself hold a '+'.
  const publicKey = Buffer.from(vkey.slice(vkey.indexOf('+', vkey.indexOf('+') + 1) + 1), 'base64').subarray(1);
  const trusted = [{ originPrefix: `${noteKeyName('wit')}/`, name: noteKeyName('wit'), publicKey }];
  witness = await startTestWitness('witness.test/w1', trusted);
  other = await startTestWitness('witness.test/w2', trusted);
  peer = await startPeer({ deterministic: true }); // an upstream only: in this process
});

afterAll(async () => {
  await peer.close();
  await witness.close();
  await other.close();
  await rm(dir, { recursive: true, force: true });
});

describe('record --witness-url', () => {
  let log: string;
  let stderr: string;

  beforeAll(async () => {
    const out = join(dir, 'ok.jsonl');
    log = join(dir, 'ok.receipts.jsonl');
    const recorder = await startRecordProcess([
      ...['--upstream', peer.url, '--out', out, '--key', key, '--checkpoint-every', '1'],
      ...['--witness-url', witness.url, '--witness-vkey', witness.vkey],
    ]);
    await pauseAndResume(recorder.url, 2);
    expect(await stopProcess(recorder)).toBe(0);
    stderr = recorder.stderr();
  });

  it('keeps a cosigned note per checkpoint beside the log, the closing one last', async () => {
    const lines = (await readFile(log, 'utf8')).trimEnd().split('\n');
    const records = (await readFile(join(dir, 'ok.receipts.cosignatures.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; size: number; witness: string; note: string });
    expect(records.every((r) => r.type === 'Cosigned' && r.witness === 'witness.test/w1')).toBe(true);
    const closing = records.at(-1)!;
    expect(closing.size).toBe(lines.length - 1);
    const note = (JSON.parse(lines.at(-1)!) as { note: string }).note;
    expect(closing.note.startsWith(note)).toBe(true);
    expect(closing.note.slice(note.length)).toMatch(/^\u2014 witness\.test\/w1 [A-Za-z0-9+/=]+\n$/);
    expect(stderr).not.toMatch(/a2a-replay: witness/);
  });

  it('verifies with --witness-quorum 1 and names the witness that signed', async () => {
    const result = await runCli(['verify', log, '--key', key, '--witness-vkey', witness.vkey, '--witness-quorum', '1']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /: witnessed: checkpoint of \d+ lines cosigned by witness\.test\/w1 \(1 of quorum 1\)/,
    );
  });

  it('fails a quorum the witnesses given did not reach', async () => {
    const result = await runCli([
      ...['verify', log, '--key', key, '--witness-vkey', witness.vkey, '--witness-vkey', other.vkey],
      ...['--witness-quorum', '2'],
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /NOT WITNESSED: checkpoint of \d+ lines cosigned by witness\.test\/w1 \(1 of quorum 2\)/,
    );
  });

  it('refuses witnesses for several logs (exit 2), where they would be checked of none', async () => {
    const result = await runCli(['verify', log, log, '--key', key, '--witness-vkey', witness.vkey]);
    expect(result.stderr).toBe('a2a-replay: --witness-vkey applies to one log, not to several\n');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('fails when the cosignature kept is not one of the key given', async () => {
    const result = await runCli(['verify', log, '--key', key, '--witness-vkey', other.vkey]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /NOT WITNESSED: checkpoint of \d+ lines cosigned by no witness given \(0 of quorum 1\)/,
    );
  });
});

describe('a forked log', () => {
  it('is refused by the witness (409 at the same size), said by record and by verify', async () => {
    const out = join(dir, 'fork.jsonl');
    const log = join(dir, 'fork.receipts.jsonl');
    const recorder = await startRecordProcess([
      ...['--upstream', peer.url, '--out', out, '--key', key, '--checkpoint-every', '0'],
      ...['--witness-url', witness.url, '--witness-vkey', witness.vkey],
      ...['--witness-url', other.url, '--witness-vkey', other.vkey],
    ]);
    // The witness already cosigned another tree of this log's origin at the size its closing
    // checkpoint will have (the header and two receipts): what a key holder showing two logs gets.
    const headerText = (await readFile(log, 'utf8')).split('\n')[0]!;
    const header = JSON.parse(headerText) as { recording: string };
    const origin = logOrigin('wit', header.recording, sha256Prefixed(headerText));
    witness.state.set(origin, { size: 3, root: randomBytes(32) });
    await pauseAndResume(recorder.url, 1);
    expect(await stopProcess(recorder)).toBe(0);
    expect(recorder.stderr()).toMatch(
      new RegExp(
        'a2a-replay: witness witness\\.test/w1 REFUSES the checkpoint of 3 lines: a FORK of the log: ' +
          'the witness cosigned another tree of size 3',
      ),
    );
    const result = await runCli(['verify', log, '--key', key, '--witness-vkey', witness.vkey]);
    expect(result.code).toBe(1);
    // The other witness, which never saw the other tree, cosigned: a quorum it meets alone still
    // fails on the fork the first one reported.
    const both = await runCli([
      ...['verify', log, '--key', key, '--witness-vkey', witness.vkey, '--witness-vkey', other.vkey],
      ...['--witness-quorum', '1'],
    ]);
    expect(both.code).toBe(1);
    expect(both.stdout).toMatch(
      /NOT WITNESSED: checkpoint of 3 lines cosigned by witness\.test\/w2 \(1 of quorum 1\); FORK: /,
    );
    expect(result.stdout).toMatch(
      /NOT WITNESSED: checkpoint of 3 lines cosigned by no witness given .*FORK: witness witness\.test\/w1 refused/,
    );
  });
});
