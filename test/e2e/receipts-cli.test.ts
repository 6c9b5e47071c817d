/**
 * keygen, verify and audit as users run them: the built CLI in a separate process where the
 * process is the point (keygen's files, the printed summary and table, the key from the
 * environment, usage errors, a refused audit), and what verify and audit conclude of each log as
 * the library calls the commands make (test/helpers/verdicts.ts).
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadKeyFile } from '../../src/receipts/key-file.js';
import { Keyring } from '../../src/receipts/keys.js';
import { ReceiptLogWriter } from '../../src/receipts/log-writer.js';
import { type ReceiptKey, generateReceiptKey, loadKeyring } from '../../src/public/receipts.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { auditVerdict, verifyVerdict } from '../helpers/verdicts.js';
import { CREATED_AT, resumptionDraftFor, suspensionDraftFor, taskFor } from '../receipts/fixtures.js';

let dir: string;
let keyA: string;
let keyB: string;
let pubA: string;
let log: string;
let rotated: string;
let ka: ReceiptKey;
let kb: ReceiptKey;
/** Key A alone, as `--key A` loads it. */
let keyringA: Keyring;
const secrets: string[] = [];

async function writeLog(path: string, keyring: Keyring, count: number, rotateTo?: string): Promise<void> {
  const writer = await ReceiptLogWriter.open(path, {
    keyring,
    checkpointEvery: 10,
    recording: 'rec-e2e',
    clock: new ManualClock(Date.parse(CREATED_AT)),
    tool: 'a2a-replay@test',
  });
  const open: { hash: string; task: string }[] = [];
  for (let n = 0; writer.chain.size < count; n++) {
    if (rotateTo && writer.chain.size === Math.floor(count / 2)) writer.rotate(rotateTo);
    const first = open[0];
    if (n % 4 === 3 && first) {
      open.shift();
      await writer.appendResumption(resumptionDraftFor(n, 'resumed', first.task), first.hash);
    } else if (n % 4 === 2 && first)
      await writer.appendResumption(resumptionDraftFor(n, 'rejected', first.task), first.hash);
    else open.push({ hash: (await writer.appendSuspension(suspensionDraftFor(n))).hash, task: taskFor(n) });
  }
  await writer.close();
}

function expectNoSecrets(...outputs: string[]): void {
  for (const out of outputs) for (const secret of secrets) expect(out).not.toContain(secret);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'receipts-cli-'));
  keyA = join(dir, 'a.key');
  keyB = join(dir, 'b.key');
  pubA = join(dir, 'a.pub');
  const a = await runCli(['keygen', '--out', keyA, '--kid', 'key-a', '--public', pubA]);
  expect(a.code).toBe(0);
  // Key B is only read in this process: the library's key, in a key file as keygen writes it.
  await writeFile(keyB, JSON.stringify(generateReceiptKey({ kid: 'key-b' }).keyFile()), { mode: 0o600 });
  for (const file of [keyA, keyB]) {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { hmac: string; ed25519: { secretKey: string } };
    secrets.push(parsed.hmac, parsed.ed25519.secretKey);
  }
  ka = (await loadKeyFile(keyA)).key;
  kb = (await loadKeyFile(keyB)).key;
  keyringA = new Keyring([ka]);
  log = join(dir, 'run.receipts.jsonl');
  await writeLog(log, new Keyring([ka]), 60);
  rotated = join(dir, 'rotated.receipts.jsonl');
  await writeLog(rotated, new Keyring([ka, kb]), 20, 'key-b');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a2a-replay keygen', () => {
  it('writes a 0600 key file and a public half, and refuses to overwrite without --force', async () => {
    expect((await stat(keyA)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(pubA, 'utf8'))).toMatchObject({
      type: 'a2a-replay.public-key',
      version: 1,
      kid: 'key-a',
    });
    const again = await runCli(['keygen', '--out', keyA]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists');
    const forced = await runCli(['keygen', '--out', join(dir, 'c.key'), '--kid', 'key-c', '--force']);
    expect(forced.stdout).toBe(`wrote key key-c to ${join(dir, 'c.key')} (mode 0600)\n`);
    expectNoSecrets(forced.stdout, forced.stderr, again.stderr);
  });
});

describe('a2a-replay verify', () => {
  it('exits 0 with a one-line summary for an untouched log', async () => {
    const r = await runCli(['verify', log, '--key', keyA]);
    expect(r.code).toBe(0);
    // Six checkpoints every 10 receipts, then the closing one (written without a recording to bind),
    // each with its note over the Merkle tree of the lines before it.
    expect(r.stdout).toMatch(
      new RegExp(
        ': ok: 60 receipts, 7 checkpoints, 68 lines; kids key-a; closed by a checkpoint; not bound to a ' +
          'recording; 7 checkpoint notes of a2a-replay/key-a/rec-e2e match the Merkle tree of the lines\\n$',
      ),
    );
    expectNoSecrets(r.stdout, r.stderr);
  });

  it('exits 1 naming the first bad line and the reason, as text and as JSON', async () => {
    const lines = (await readFile(log, 'utf8')).split('\n');
    const tampered = join(dir, 'tampered.receipts.jsonl');
    lines[9] = (lines[9] as string).replace('waiting for approval', 'waiting for Approval');
    await writeFile(tampered, lines.join('\n'));
    const verified = await verifyVerdict([tampered], keyringA);
    expect(verified.code).toBe(1);
    expect(verified.lines.join('\n')).toMatch(/INVALID at line 10: bad_signature: /);
    expect(verified.json).toMatchObject({ ok: false, firstError: { line: 10, reason: 'bad_signature' } });
    // The command prints that verdict and exits 1.
    const text = await runCli(['verify', tampered, '--key', keyA]);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe(`${verified.lines.join('\n')}\n`);
    const dropped = join(dir, 'dropped.receipts.jsonl');
    const original = (await readFile(log, 'utf8')).split('\n');
    await writeFile(dropped, [...original.slice(0, 20), ...original.slice(21)].join('\n'));
    expect((await verifyVerdict([dropped], keyringA)).lines.join('\n')).toMatch(/INVALID at line 21: sequence_gap: /);
  });

  it('detects a truncated tail with a checkpoint kept outside the log', async () => {
    const lines = (await readFile(log, 'utf8')).split('\n');
    const anchor = join(dir, 'anchor.json');
    await writeFile(anchor, `${lines.at(-2) as string}\n`);
    expect((await verifyVerdict([log], keyringA, { head: anchor })).lines.join('\n')).toContain(
      'matches the outside checkpoint',
    );
    const cut = join(dir, 'cut.receipts.jsonl');
    await writeFile(cut, `${lines.slice(0, 50).join('\n')}\n`);
    const open = await verifyVerdict([cut], keyringA);
    expect(open.code).toBe(1);
    expect(open.lines.join('\n')).toMatch(
      /INVALID at line 51: not_closed: not closed: .* receipts? after the last checkpoint/,
    );
    const allowed = await verifyVerdict([cut], keyringA, { allowOpen: true });
    expect(allowed.code).toBe(0);
    expect(allowed.lines.join('\n')).toMatch(/OPEN: 40 of 4\d receipts vouched for by a checkpoint/);
    const audited = await auditVerdict([cut], keyringA, { allowOpen: true });
    expect(audited.code).toBe(0);
    // The FLAG column's `! not-vouched-for-by-a-checkpoint` (cli/audit-tables.ts): a row no checkpoint vouches for.
    expect(audited.rows.some((row) => row.vouched === false)).toBe(true);
    expect((await auditVerdict([cut], keyringA)).code).toBe(1);
    const r = await verifyVerdict([cut], keyringA, { head: anchor });
    expect(r.code).toBe(1);
    expect(r.lines.join('\n')).toMatch(/INVALID at line 51: truncated: /);
  });

  it('verifies a rotated log with both keys and names the unknown kid with one', async () => {
    expect((await verifyVerdict([rotated], new Keyring([ka, kb]))).lines.join('\n')).toContain('kids key-a, key-b');
    const one = await verifyVerdict([rotated], keyringA);
    expect(one.code).toBe(1);
    expect(one.lines.join('\n')).toMatch(/unknown_kid: .*key-b/);
  });

  it('takes the key from A2A_REPLAY_KEY_FILE, and checks checkpoints with only the public key', async () => {
    expect((await runCli(['verify', log], { env: { A2A_REPLAY_KEY_FILE: keyA } })).code).toBe(0);
    // `--public-key FILE` loads the keyring so.
    const { keyring } = await loadKeyring({ publicKeys: [pubA], env: {} });
    const pub = await verifyVerdict([log], keyring);
    expect(pub.code).toBe(0);
    expect(pub.lines.join('\n')).toContain('receipt HMACs NOT checked');
  });

  it('names the binding of each pause in audit --json, JSON-RPC and HTTP+JSON', async () => {
    const bindings = [];
    const { keyring } = await loadKeyring({ keys: [join(ROOT, 'golden/test-key.json')], env: {} });
    for (const scenario of ['caller-pause-finish-step', 'rest-caller-pause-finish-step']) {
      const audited = await auditVerdict([join(ROOT, `golden/${scenario}/recording.receipts.jsonl`)], keyring);
      expect(audited.code, audited.why ?? '').toBe(0);
      bindings.push((audited.rows as { binding: string }[]).map((row) => row.binding));
    }
    expect(bindings).toEqual([['JSONRPC'], ['HTTP+JSON']]);
  });

  it('exits 2 for a missing log or no key', async () => {
    const missing = await runCli(['verify', join(dir, 'nope.jsonl'), '--key', keyA]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.jsonl: cannot read (ENOENT)');
    const noKey = await runCli(['verify', log], { env: { A2A_REPLAY_KEY_FILE: '' } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('no key');
  });
});

describe('a2a-replay audit', () => {
  it('prints one row per suspension with how it ended, filtered by task and initiator', async () => {
    const table = await runCli(['audit', log, '--key', keyA]);
    expect(table.code).toBe(0);
    const rows = table.stdout.trim().split('\n');
    expect(rows[0]).toMatch(
      /^TASK +INITIATED BY +PRINCIPAL +REASON +CONDITIONS +PAUSED AT +ENDED +REJECTED +FLAG +TRACE$/,
    );
    expect(table.stdout).toMatch(/resumed \(explicit_resume\) at \S+ by jwt:sub=bob/);
    expect(table.stdout).toContain('still open');
    type Rows = { taskId: string; initiatedBy: string; rejectedAttempts: number }[];
    const json = (await auditVerdict([log], keyringA)).rows as Rows;
    expect(json.length).toBe(rows.length - 1);
    expect(json.some((r) => r.rejectedAttempts > 0)).toBe(true);
    // `--initiator agent` and `--task task-3` ask the audit so.
    const agent = (await auditVerdict([log], keyringA, { filter: { initiatedBy: 'PAUSE_INITIATOR_AGENT' } }))
      .rows as Rows;
    expect(agent.length).toBeGreaterThan(0);
    expect(agent.every((r) => r.initiatedBy === 'PAUSE_INITIATOR_AGENT')).toBe(true);
    const task = (await auditVerdict([log], keyringA, { filter: { taskId: 'task-3' } })).rows as Rows;
    expect(task.length).toBeGreaterThan(0);
    expect(task.every((r) => r.taskId === 'task-3')).toBe(true);
    expect((await runCli(['audit', log, '--key', keyA, '--initiator', 'bot'])).code).toBe(2);
  });

  it('reports a tampered log instead of auditing it', async () => {
    const lines = (await readFile(log, 'utf8')).split('\n');
    const at = lines.findIndex((l, i) => i > 3 && l.includes('jwt:sub=alice'));
    lines[at] = (lines[at] as string).replace('jwt:sub=alice', 'jwt:sub=mallory');
    const tampered = join(dir, 'audit-tampered.receipts.jsonl');
    await writeFile(tampered, lines.join('\n'));
    const verdict = await auditVerdict([tampered], keyringA);
    expect([verdict.code, verdict.rows]).toEqual([1, []]);
    expect(verdict.why).toContain(`${tampered}: INVALID at line ${at + 1}: bad_signature`);
    // The command says so on stderr, and prints no row.
    const r = await runCli(['audit', tampered, '--key', keyA]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`not audited: ${tampered}: INVALID at line ${at + 1}: bad_signature`);
  });
});
