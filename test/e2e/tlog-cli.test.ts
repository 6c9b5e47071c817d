/**
 * Receipt logs as transparency logs, as users and outside tools check them: the built CLI in its
 * own processes (`record`, `verify`, `checkpoint`, `prove`, `verify-proof`, `keygen --vkey`), and
 * an independent verifier (test/fixtures/tlog/independent_verify.py: Python's hashlib and the
 * openssl command line, no code of this project) over a log recorded in front of the reference peer.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { Keyring } from '../../src/receipts/keys.js';
import { keyVerifierKey } from '../../src/receipts/log-tree.js';
import { runCli } from '../helpers/cli.js';
import { type CliProcess, startCliProcess, startRecordProcess, stopProcess } from '../helpers/cli-process.js';
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
  let peer: CliProcess;
  let log: string;
  let vkey: string;

  beforeAll(async () => {
    const key = join(dir, 'rec.key.json');
    vkey = join(dir, 'rec.vkey');
    const made = await runCli(['keygen', '--out', key, '--kid', 'rec', '--vkey', vkey]);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`wrote verifier key a2a-replay/rec+`);
    peer = await startCliProcess(['peer', '--deterministic']);
    const out = join(dir, 'session.jsonl');
    log = join(dir, 'session.receipts.jsonl');
    const recorder = await startRecordProcess([
      '--upstream',
      peer.url,
      '--out',
      out,
      '--key',
      key,
      '--checkpoint-every',
      '2',
    ]);
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
    expect(await stopProcess(recorder)).toBe(0);
  });

  afterAll(async () => {
    await stopProcess(peer);
  });

  it('verifies with every checkpoint note matching the Merkle tree of its lines', async () => {
    const result = await runCli(['verify', log, '--key', join(dir, 'rec.key.json'), '--json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as { notes: number; checkpoints: number; origin: string; version: number };
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
    // The vkey string itself, and the a2a-replay key file, serve as well.
    const byString = await runCli(['verify-proof', proofFile, '--receipt', line, '--vkey', keyVerifierKey(keyA)!]);
    expect(byString.code).toBe(0);
    expect((await runCli(['verify-proof', proofFile, '--receipt', line, '--public-key', keyFileA])).code).toBe(0);

    const changedLine = join(dir, 'changed-line.json');
    await writeFile(changedLine, (await readFile(line, 'utf8')).replace('"seq":7', '"seq":8'));
    const changed = await runCli(['verify-proof', proofFile, '--receipt', changedLine, '--vkey', vkeyA]);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('the inclusion proof does not lead to the checkpoint root');

    const proof = await readFile(proofFile, 'utf8');
    const index = Number(/^index (\d+)$/m.exec(proof)![1]);
    const movedFile = join(dir, 'moved.tlog-proof');
    await writeFile(movedFile, proof.replace(`index ${index}`, `index ${index + 1}`));
    expect((await runCli(['verify-proof', movedFile, '--receipt', line, '--vkey', vkeyA])).code).toBe(1);

    const otherNote = (await runCli(['checkpoint', other])).stdout;
    const foreignFile = join(dir, 'foreign.tlog-proof');
    await writeFile(foreignFile, proof.slice(0, proof.indexOf('\n\n') + 2) + otherNote);
    const foreign = await runCli(['verify-proof', foreignFile, '--receipt', line, '--vkey', vkeyA]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('does not lead to the checkpoint root');

    const wrongKey = await runCli(['verify-proof', proofFile, '--receipt', line, '--vkey', vkeyB]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('signed by no key given');
  });

  it('says why it cannot prove a receipt no checkpoint note covers, or one that is not there', async () => {
    const missing = await runCli(['prove', log, '--seq', '99']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no receipt with seq 99');
    const hmacOnly = await writeLog(
      'hmac.receipts.jsonl',
      buildLogLines({ count: 3, keyring: new Keyring([fixedKey('tlog-h', 'tlog-h', false)]) }),
    );
    const none = await runCli(['prove', hmacOnly, '--seq', '1']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('holds no checkpoint note');
  });
});

describe('verify --since', () => {
  it('accepts a log that grew from an earlier checkpoint, and refuses one rewritten under it', async () => {
    const keyring = new Keyring([keyA]);
    const full = buildLogLines({ count: 12, keyring, checkpointEvery: 5 });
    // The checkpoint note of the log when it held its first checkpoint.
    const firstCheckpoint = full.findIndex((l) => l.includes('"type":"Checkpoint"'));
    const early = await writeLog('early.receipts.jsonl', full.slice(0, firstCheckpoint + 1));
    const oldNote = join(dir, 'early.note');
    expect((await runCli(['checkpoint', early, '--out', oldNote])).code).toBe(0);
    const grown = await writeLog('grown.receipts.jsonl', full);
    const ok = await runCli(['verify', grown, '--key', keyFileA, '--since', oldNote]);
    expect(ok.stdout).toMatch(/extends .*early\.note: a2a-replay\/tlog-a\/rec-test grew from \d+ to \d+ lines/);
    expect(ok.code).toBe(0);

    // The same key and header, another history under the old checkpoint (its checkpoints fall
    // elsewhere): a log rewritten and signed again, which verifies on its own.
    const forkedLog = await writeLog(
      'forked.receipts.jsonl',
      buildLogLines({ count: 12, keyring, checkpointEvery: 4 }),
    );
    expect((await runCli(['verify', forkedLog, '--key', keyFileA])).code).toBe(0);
    const refused = await runCli(['verify', forkedLog, '--key', keyFileA, '--since', oldNote]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('INVALID since');
  });
});
