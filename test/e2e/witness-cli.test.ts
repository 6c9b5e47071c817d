/**
 * Witnesses for receipt-log checkpoints: the recorder (`startRecorder` with `witnessUrl` and
 * `witnessVkey`, as `record --witness-url --witness-vkey` runs it, in this process) submits every
 * checkpoint to a C2SP tlog-witness (test/tlog/test-witness.ts, on 127.0.0.1) in the background
 * and keeps the cosignatures beside the log; what `verify --witness-vkey --witness-quorum` counts on
 * the checkpoint it relies on is the library call the command makes (test/helpers/verdicts.ts); a
 * fork the witness refuses is told by the recorder's warning and by that verification. The built
 * `verify` prints a witnessed log's line, and refuses witnesses for several logs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { keyVerifierKey, logOrigin, noteKeyName } from '../../src/receipts/log-tree.js';
import { runCli } from '../helpers/cli.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { Keyring, generateReceiptKey, witnessKeys } from '../../src/public/receipts.js';
import { type RecorderOptions, startRecorder } from '../../src/public/record.js';
import { verifyVerdict } from '../helpers/verdicts.js';
import { PeerClient } from '../peer/peer-client.js';
import { type TestWitness, startTestWitness } from '../tlog/test-witness.js';

let dir: string;
let peer: RunningPeer;
let witness: TestWitness;
let other: TestWitness;
let key: string;
const signer = generateReceiptKey({ kid: 'wit' });
const keyring = new Keyring([signer]);

/** A recorder with `options`, closed; what it warned, each line as `record` prints it on stderr. */
async function record(
  options: Omit<RecorderOptions, 'upstream' | 'key' | 'warn'>,
  pauses: number,
  before: () => Promise<void> | void = () => undefined,
) {
  const warned: string[] = [];
  const recorder = await startRecorder({
    upstream: peer.url,
    key: signer,
    env: {},
    warn: (line) => warned.push(`a2a-replay: ${line}`),
    ...options,
  });
  try {
    await before();
    await pauseAndResume(recorder.url, pauses);
  } finally {
    // Every line written and the log closed with its checkpoint: `record` exits 0.
    expect((await recorder.close()).complete).toBe(true);
  }
  return warned.join('\n');
}

/** What `verify LOG --key K --witness-vkey V... [--witness-quorum N]` concludes. */
async function verifyWitnessed(log: string, vkeys: string[], quorum = 1) {
  return verifyVerdict([log], keyring, { checks: { witnesses: { witnesses: await witnessKeys(vkeys), quorum } } });
}

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
  // The key and its verifier key as `keygen --kid wit --vkey` writes them (keygen itself: tlog-cli.test.ts).
  await writeFile(key, canonicalJson(signer.keyFile()), { mode: 0o600 });
  const vkey = keyVerifierKey(signer)!;
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
    stderr = await record({ out, checkpointEvery: 1, witnessUrl: [witness.url], witnessVkey: [witness.vkey] }, 2);
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
    const verdict = await verifyWitnessed(log, [witness.vkey], 1);
    expect(verdict.code).toBe(0);
    expect(verdict.lines.join('\n')).toMatch(
      /: witnessed: checkpoint of \d+ lines cosigned by witness\.test\/w1 \(1 of quorum 1\)/,
    );
    // The command prints that verdict, and nothing on stderr.
    const result = await runCli(['verify', log, '--key', key, '--witness-vkey', witness.vkey, '--witness-quorum', '1']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${verdict.lines.join('\n')}\n`);
  });

  it('fails a quorum the witnesses given did not reach', async () => {
    const result = await verifyWitnessed(log, [witness.vkey, other.vkey], 2);
    expect(result.code).toBe(1);
    expect(result.lines.join('\n')).toMatch(
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
    const result = await verifyWitnessed(log, [other.vkey]);
    expect(result.code).toBe(1);
    expect(result.lines.join('\n')).toMatch(
      /NOT WITNESSED: checkpoint of \d+ lines cosigned by no witness given \(0 of quorum 1\)/,
    );
  });
});

describe('a forked log', () => {
  it('is refused by the witness (409 at the same size), said by record and by verify', async () => {
    const out = join(dir, 'fork.jsonl');
    const log = join(dir, 'fork.receipts.jsonl');
    const warned = await record(
      {
        out,
        checkpointEvery: 0,
        witnessUrl: [witness.url, other.url],
        witnessVkey: [witness.vkey, other.vkey],
      },
      1,
      async () => {
        // The witness already cosigned another tree of this log's origin at the size its closing
        // checkpoint will have (the header and two receipts): what a key holder showing two logs gets.
        const headerText = (await readFile(log, 'utf8')).split('\n')[0]!;
        const header = JSON.parse(headerText) as { recording: string };
        const origin = logOrigin('wit', header.recording, sha256Prefixed(headerText));
        witness.state.set(origin, { size: 3, root: randomBytes(32) });
      },
    );
    expect(warned).toMatch(
      new RegExp(
        'a2a-replay: witness witness\\.test/w1 REFUSES the checkpoint of 3 lines: a FORK of the log: ' +
          'the witness cosigned another tree of size 3',
      ),
    );
    const result = await verifyWitnessed(log, [witness.vkey]);
    expect(result.code).toBe(1);
    // The other witness, which never saw the other tree, cosigned: a quorum it meets alone still
    // fails on the fork the first one reported.
    const both = await verifyWitnessed(log, [witness.vkey, other.vkey], 1);
    expect(both.code).toBe(1);
    expect(both.lines.join('\n')).toMatch(
      /NOT WITNESSED: checkpoint of 3 lines cosigned by witness\.test\/w2 \(1 of quorum 1\); FORK: /,
    );
    expect(result.lines.join('\n')).toMatch(
      /NOT WITNESSED: checkpoint of 3 lines cosigned by no witness given .*FORK: witness witness\.test\/w1 refused/,
    );
  });
});
