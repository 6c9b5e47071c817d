/**
 * `verify-proof --origin`: one key signs the notes of many logs, so a proof that is genuine for
 * one log must not pass for another; the origin names which (docs/design.md §6).
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Keyring } from '../../src/receipts/keys.js';
import { keyVerifierKey } from '../../src/receipts/log-tree.js';
import { runCli } from '../helpers/cli.js';
import { buildLogLines, fixedKey } from '../receipts/fixtures.js';

let dir: string;
const key = fixedKey('tlog-o', 'tlog-o');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-replay-origin-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('accepts a proof of the origin named and refuses one of another origin', async () => {
  const lines = buildLogLines({ count: 6, keyring: new Keyring([key]), checkpointEvery: 3 });
  const log = join(dir, 'o.receipts.jsonl');
  await writeFile(log, `${lines.join('\n')}\n`);
  await chmod(log, 0o600);
  const proofFile = join(dir, 'two.tlog-proof');
  expect((await runCli(['prove', log, '--seq', '2', '--out', proofFile])).code).toBe(0);
  const lineFile = join(dir, 'two.json');
  await writeFile(lineFile, `${lines.find((l) => l.includes('"seq":2,') && !l.includes('"type":"Checkpoint"'))}\n`);
  const vkey = keyVerifierKey(key)!;
  const origin = 'a2a-replay/tlog-o/rec-test';
  const ok = await runCli(['verify-proof', proofFile, '--receipt', lineFile, '--vkey', vkey, '--origin', origin]);
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  const other = await runCli([
    ...['verify-proof', proofFile, '--receipt', lineFile, '--vkey', vkey],
    ...['--origin', 'a2a-replay/tlog-o/another-recording'],
  ]);
  expect(other.code).toBe(1);
  expect(other.stderr).toContain(
    "the proof's checkpoint is of a2a-replay/tlog-o/rec-test, not of a2a-replay/tlog-o/another-recording",
  );
  expect(await readFile(proofFile, 'utf8')).toContain(origin);
});
