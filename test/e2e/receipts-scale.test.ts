/**
 * audit, lost and report over a log of more pauses than a spread of one argument per row can take
 * (which overflows the call stack), through the built CLI: their tables and the report's timeline
 * are made without such a spread, and written as they are made. One log serves the three
 * commands. It is made by a line builder: one receipt sealed by the chain, copied with its seq,
 * prev and task id changed and the chain hashes recomputed, and real Ed25519 checkpoints; verified
 * with the public key, which checks the chain and the checkpoints (receipt HMACs are not checked,
 * so the copies need none).
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalJson, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { buildSuspensionDraft } from '../../src/receipts/drafts.js';
import { LogTree } from '../../src/receipts/log-tree.js';
import { Keyring, generateReceiptKey } from '../../src/receipts/keys.js';
import { signCheckpoint } from '../../src/receipts/signing.js';
import { runCli } from '../helpers/cli.js';

const key = generateReceiptKey({ kid: 'scale' });
let dir = '';
let publicFile = '';

/** A closed log of `count` open suspensions, one task each, a checkpoint every 256. */
function writeLog(file: string, count: number): void {
  const chain = new ReceiptChain({
    keyring: new Keyring([key]),
    recording: 'rec-scale',
    createdAt: '2026-01-01T00:00:00.000Z',
    tool: 't',
  });
  const template = chain.sealSuspension(
    buildSuspensionDraft({
      taskId: 'task-000000000',
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      via: 'PauseTask',
      pausedAt: '2026-01-01T00:00:01.000Z',
      observedAt: '2026-01-01T00:00:01.000Z',
      entries: [1],
      span: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) },
    }),
  ).receipt.text;
  const [beforePrev, afterPrev] = template.split(`"prev":"${chain.header.hash}"`) as [string, string];
  const [middle, afterSeq] = afterPrev.split('"seq":1,') as [string, string];
  const [tail, end] = afterSeq.split('task-000000000') as [string, string];
  const lines = [chain.header.text];
  // The Merkle tree of the lines, for each checkpoint's note (docs/design.md §6).
  const tree = new LogTree();
  tree.addLine(chain.header.text);
  let head = chain.header.hash;
  const checkpoint = (size: number, final: boolean): void => {
    const note = tree.note(chain.origin, key);
    const body = { type: 'Checkpoint' as const, size, root: head, final, recording: null, note };
    const text = canonicalJson({ ...body, sig: signCheckpoint(body, key) });
    lines.push(text);
    tree.addLine(text);
    head = sha256Prefixed(text);
  };
  for (let seq = 1; seq <= count; seq++) {
    const task = `task-${String(seq).padStart(9, '0')}`;
    const text = `${beforePrev}"prev":"${head}"${middle}"seq":${seq},${tail}${task}${end}`;
    lines.push(text);
    tree.addLine(text);
    head = sha256Prefixed(text);
    if (seq % 256 === 0) checkpoint(seq, false);
  }
  checkpoint(count, true);
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/**
 * The commands run with a V8 stack of 125 KiB instead of Node's ~984 KiB: a spread of one argument
 * per row overflowed the default stack above ~125,000 rows, so on this stack it overflows above
 * ~16,000, and a log of 25,000 pauses proves what one of 150,000 did on the default stack (the
 * commands themselves need well under half of this stack).
 */
const SMALL_STACK = ['--stack-size=125'];
const PAUSES = 25_000;
let log = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'receipts-scale-'));
  publicFile = join(dir, 'scale.pub.json');
  writeFileSync(publicFile, JSON.stringify(key.publicKeyFile()));
  log = join(dir, 'big.receipts.jsonl');
  writeLog(log, PAUSES);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('audits and lists the lost pauses of a log of more rows than a spread can take', async () => {
  const audit = await runCli(['audit', log, '--public-key', publicFile], { nodeOptions: SMALL_STACK });
  expect(audit.stderr).toContain('25000 suspensions');
  expect(audit.code).toBe(0);
  const rows = audit.stdout.split('\n');
  expect(rows).toHaveLength(PAUSES + 2);
  expect(rows[0]).toMatch(/^TASK {2,}INITIATED BY/);
  expect(rows[PAUSES]).toMatch(/^task-000025000 {2,}client/);
  const lost = await runCli(['lost', log, '--key', publicFile], { nodeOptions: SMALL_STACK });
  expect(lost.stderr).toBe('');
  expect(lost.code).toBe(1);
  const listed = lost.stdout.split('\n');
  expect(listed[0]).toBe(`25000 lost pauses in ${log} (receipt log, chain verified, signatures unchecked)`);
  expect(listed).toHaveLength(PAUSES + 3);
  expect(listed[PAUSES + 1]).toMatch(/^task-000025000 {2,}PAUSE_INITIATOR_CLIENT {2,}recording_ended/);
});

it('writes the report of a log of more pauses than a spread can take', async () => {
  const out = join(dir, 'report.html');
  const report = await runCli(['report', log, '--public-key', publicFile, '--out', out], { nodeOptions: SMALL_STACK });
  expect(report.stderr).toBe('');
  expect(report.stdout).toBe(`wrote ${out}: 1 files, 25000 pauses, 25000 lost\n`);
  expect(report.code).toBe(0);
  const html = await readFile(out, 'utf8');
  expect(html).toContain('25000 pauses, 25000 lost, verified</p>');
  expect(html.split('<tr class="lost-row"')).toHaveLength(PAUSES + 1);
  // Every lost pause is listed first, before the log's section, each once.
  const top = html.slice(html.indexOf('<main>'), html.indexOf('<section class="file"'));
  expect(top).toContain('<h2>25000 lost pauses</h2>');
  expect(top.split('<li class="lost-item"')).toHaveLength(PAUSES + 1);
});
