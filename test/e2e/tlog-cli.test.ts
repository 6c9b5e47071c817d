/**
 * Receipt logs as transparency logs, as users and outside tools check them: the built CLI in its
 * own processes (`keygen --vkey`, `checkpoint`, `prove`, `verify-proof`, and `prove` refusing), what
 * the commands conclude as the library calls they make (`verifyLogSet` with `--since`,
 * `latestNote`, `proveReceipt`, `verifyReceiptProof`), and an independent verifier
 * (test/fixtures/tlog/independent_verify.py: Python's hashlib and the openssl command line, no
 * code of this project) over a log recorded (`startRecorder`) in front of the reference peer
 * (`startPeer`), both in this process.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { A2aReplayError } from '../../src/public/core.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import {
  type NoteVerifier,
  latestNote,
  loadKeyFile,
  noteVerifierOf,
  parseVerifierKey,
  proveReceipt,
  scanLogTree,
  verifyReceiptProof,
} from '../../src/public/receipts.js';
import { startRecorder } from '../../src/public/record.js';
import { Keyring } from '../../src/receipts/keys.js';
import { keyVerifierKey } from '../../src/receipts/log-tree.js';
import { runCli } from '../helpers/cli.js';
import { keyringOf, verifyVerdict } from '../helpers/verdicts.js';
import { PeerClient } from '../peer/peer-client.js';
import { buildLogLines, fixedKey } from '../receipts/fixtures.js';

const INDEPENDENT = join(import.meta.dirname, '../fixtures/tlog/independent_verify.py');
const canRunIndependent =
  spawnSync('python3', ['--version']).status === 0 && spawnSync('openssl', ['version']).status === 0;

let dir: string;
const keyA = fixedKey('tlog-a', 'tlog-a');
const keyB = fixedKey('tlog-b', 'tlog-b');
let keyFileA: string;
let vkeyA: string;
let vkeyB: string;

/**
 * What `verify-proof PROOF --receipt LINE` with these verifiers concludes: the entry it proves, or
 * why it is INVALID (exit 1).
 */
async function proofVerdict(
  proofFile: string,
  lineFile: string,
  verifiers: NoteVerifier[],
): Promise<{ code: number; error: string }> {
  const proof = await readFile(proofFile, 'utf8');
  const text = await readFile(lineFile, 'utf8');
  try {
    verifyReceiptProof(proof, text.endsWith('\n') ? text.slice(0, -1) : text, verifiers, null);
    return { code: 0, error: '' };
  } catch (error) {
    if (!(error instanceof A2aReplayError)) throw error;
    return { code: 1, error: `${proofFile}: INVALID: ${error.message}` };
  }
}

/** The verifier of `--vkey VKEY` (the key itself, or a file holding it). */
async function vkeyVerifier(vkey: string): Promise<NoteVerifier> {
  const given = /^[^\s+]+\+[0-9a-f]{8}\+\S+$/.test(vkey.trim());
  return parseVerifierKey(given ? vkey : await readFile(vkey, 'utf8'));
}

async function writeLog(name: string, lines: string[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-replay-tlog-'));
  keyFileA = join(dir, 'a.key.json');
  await writeFile(keyFileA, `${canonicalJson(keyA.keyFile())}\n`);
  await chmod(keyFileA, 0o600);
  vkeyA = join(dir, 'a.vkey');
  vkeyB = join(dir, 'b.vkey');
  await writeFile(vkeyA, `${keyVerifierKey(keyA)}\n`);
  await writeFile(vkeyB, `${keyVerifierKey(keyB)}\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a recorded log', () => {
  let peer: RunningPeer;
  let log: string;
  let vkey: string;

  beforeAll(async () => {
    const key = join(dir, 'rec.key.json');
    vkey = join(dir, 'rec.vkey');
    const made = await runCli(['keygen', '--out', key, '--kid', 'rec', '--vkey', vkey]);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`wrote verifier key a2a-replay/rec+`);
    peer = await startPeer({ deterministic: true });
    const out = join(dir, 'session.jsonl');
    log = join(dir, 'session.receipts.jsonl');
    const recorder = await startRecorder({ upstream: peer.url, out, key, checkpointEvery: 2, env: {} });
    const client = new PeerClient(recorder.url);
    for (let i = 0; i < 3; i++) {
      const task = await client.start('work:2');
      const paused = await client.result<{ pause: { resumeToken: string } }>('PauseTask', {
        taskId: task.id,
        reason: `approval ${i}`,
        mode: 'interrupt_immediate',
      });
      await client.result('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
    }
    // Every line written and the log closed with its checkpoint: `record` exits 0.
    expect((await recorder.close()).complete).toBe(true);
  });

  afterAll(async () => {
    await peer?.close();
  });

  it('verifies with every checkpoint note matching the Merkle tree of its lines', async () => {
    const result = await verifyVerdict([log], await keyringOf([join(dir, 'rec.key.json')]));
    expect(result.code).toBe(0);
    const json = result.json as { notes: number; checkpoints: number; origin: string; version: number };
    expect(json.version).toBe(5);
    expect(json.notes).toBe(json.checkpoints);
    expect(json.notes).toBeGreaterThanOrEqual(3);
    expect(json.origin).toMatch(/^a2a-replay\/rec\//);
  });

  it.skipIf(!canRunIndependent)('is checked by an independent verifier: roots, key hash and signatures', async () => {
    const run = spawnSync('python3', [INDEPENDENT, log, vkey], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toMatch(/^ok [3-9]$/);
    // The same verifier refuses the log once one receipt line before a note is changed.
    const lines = (await readFile(log, 'utf8')).split('\n');
    lines[1] = lines[1]!.replace('approval 0', 'approval X');
    const changed = join(dir, 'changed.receipts.jsonl');
    await writeFile(changed, lines.join('\n'));
    const refused = spawnSync('python3', [INDEPENDENT, changed, vkey], { encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/FAIL line \d+: the note's root is not the root of the lines before it/);
  });

  it("writes the latest note with `checkpoint`, the one the log's closing checkpoint carries", async () => {
    const result = await runCli(['checkpoint', log]);
    expect(result.code).toBe(0);
    const lines = (await readFile(log, 'utf8')).trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1)!) as { note: string; final: boolean };
    expect(last.final).toBe(true);
    expect(result.stdout).toBe(last.note);
    expect(result.stdout.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^a2a-replay\/rec\//),
      `${lines.length - 1}`,
    ]);
  });
});

describe('inclusion proofs', () => {
  let log: string;
  let other: string;

  beforeAll(async () => {
    log = await writeLog(
      'a.receipts.jsonl',
      buildLogLines({ count: 12, keyring: new Keyring([keyA]), checkpointEvery: 5 }),
    );
    other = await writeLog(
      'other.receipts.jsonl',
      buildLogLines({ count: 13, keyring: new Keyring([keyA]), checkpointEvery: 5 }),
    );
  });

  async function lineOf(path: string, seq: number): Promise<string> {
    const line = (await readFile(path, 'utf8'))
      .split('\n')
      .find((l) => l.includes(`"seq":${seq},`) && !l.includes('"type":"Checkpoint"'));
    const file = join(dir, `line-${seq}-${Math.abs(path.length)}.json`);
    await writeFile(file, `${line}\n`);
    return file;
  }

  it('proves a genuine line, and refuses a changed line, index, another log and another key', async () => {
    const proofFile = join(dir, 'seven.tlog-proof');
    const made = await runCli(['prove', log, '--seq', '7', '--out', proofFile]);
    expect(made.code).toBe(0);
    const line = await lineOf(log, 7);
    const ok = await runCli(['verify-proof', proofFile, '--receipt', line, '--vkey', vkeyA]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toMatch(/: ok: entry \d+ of a2a-replay\/tlog-a\/rec-test \(tree size \d+\)/);
    expect(ok.code).toBe(0);
    // What the command concluded is the library's, with the vkey file's verifier.
    const fromFile = [await vkeyVerifier(vkeyA)];
    expect(await proofVerdict(proofFile, line, fromFile)).toEqual({ code: 0, error: '' });
    // The vkey string itself, and the a2a-replay key file (`--public-key`), serve as well.
    expect((await proofVerdict(proofFile, line, [await vkeyVerifier(keyVerifierKey(keyA)!)])).code).toBe(0);
    const fromKeyFile = noteVerifierOf((await loadKeyFile(keyFileA)).key);
    expect((await proofVerdict(proofFile, line, [fromKeyFile])).code).toBe(0);

    const changedLine = join(dir, 'changed-line.json');
    await writeFile(changedLine, (await readFile(line, 'utf8')).replace('"seq":7', '"seq":8'));
    const changed = await proofVerdict(proofFile, changedLine, fromFile);
    expect(changed.code).toBe(1);
    expect(changed.error).toContain('the inclusion proof does not lead to the checkpoint root');

    const proof = await readFile(proofFile, 'utf8');
    const index = Number(/^index (\d+)$/m.exec(proof)![1]);
    const movedFile = join(dir, 'moved.tlog-proof');
    await writeFile(movedFile, proof.replace(`index ${index}`, `index ${index + 1}`));
    expect((await proofVerdict(movedFile, line, fromFile)).code).toBe(1);

    // The note `checkpoint OTHER` prints.
    const otherNote = latestNote(await scanLogTree(other)).note;
    const foreignFile = join(dir, 'foreign.tlog-proof');
    await writeFile(foreignFile, proof.slice(0, proof.indexOf('\n\n') + 2) + otherNote);
    const foreign = await proofVerdict(foreignFile, line, fromFile);
    expect(foreign.code).toBe(1);
    expect(foreign.error).toContain('does not lead to the checkpoint root');

    const wrongKey = await proofVerdict(proofFile, line, [await vkeyVerifier(vkeyB)]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.error).toContain('signed by no key given');
  });

  it('says why it cannot prove a receipt no checkpoint note covers, or one that is not there', async () => {
    const missing = await runCli(['prove', log, '--seq', '99']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no receipt with seq 99');
    const hmacOnly = await writeLog(
      'hmac.receipts.jsonl',
      buildLogLines({ count: 3, keyring: new Keyring([fixedKey('tlog-h', 'tlog-h', false)]) }),
    );
    // What `prove` calls refuses it, as bad input (exit 2).
    const none = await scanLogTree(hmacOnly)
      .then((scan) => proveReceipt(scan, 1))
      .catch((error: unknown) => error);
    expect(none).toBeInstanceOf(A2aReplayError);
    expect((none as A2aReplayError).message).toContain('holds no checkpoint note');
  });
});

describe('verify --since', () => {
  it('accepts a log that grew from an earlier checkpoint, and refuses one rewritten under it', async () => {
    const keyring = new Keyring([keyA]);
    const full = buildLogLines({ count: 12, keyring, checkpointEvery: 5 });
    // The checkpoint note of the log when it held its first checkpoint.
    const firstCheckpoint = full.findIndex((l) => l.includes('"type":"Checkpoint"'));
    const early = await writeLog('early.receipts.jsonl', full.slice(0, firstCheckpoint + 1));
    // What `checkpoint EARLY --out early.note` writes, and `verify --since early.note` reads.
    const oldNote = join(dir, 'early.note');
    const note = latestNote(await scanLogTree(early)).note;
    await writeFile(oldNote, note);
    const since = { since: { note, name: oldNote } };
    const keys = await keyringOf([keyFileA]);
    const grown = await writeLog('grown.receipts.jsonl', full);
    const ok = await verifyVerdict([grown], keys, { checks: since });
    expect(ok.lines.join('\n')).toMatch(
      /extends .*early\.note: a2a-replay\/tlog-a\/rec-test grew from \d+ to \d+ lines/,
    );
    expect(ok.code).toBe(0);

    // The same key and header, another history under the old checkpoint (its checkpoints fall
    // elsewhere): a log rewritten and signed again, which verifies on its own.
    const forkedLog = await writeLog(
      'forked.receipts.jsonl',
      buildLogLines({ count: 12, keyring, checkpointEvery: 4 }),
    );
    expect((await verifyVerdict([forkedLog], keys)).code).toBe(0);
    const refused = await verifyVerdict([forkedLog], keys, { checks: since });
    expect(refused.code).toBe(1);
    expect(refused.lines.join('\n')).toContain('INVALID since');
  });
});
