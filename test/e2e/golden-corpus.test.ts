/**
 * The CLI over the golden corpus (golden/<scenario>/), where the process is the point: `run` over
 * the whole corpus replays to zero drift on the embedded reference peer, byte for byte with
 * --strict; one `run` over a copy of every scenario with one field changed exits 1 naming each
 * copy's field; `verify` and `lost` say and exit what each binding and dialect's logs hold (one
 * process of each, the rest the library calls the commands make: test/helpers/verdicts.ts). What
 * the library finds in every scenario (each log verified, each lost pause and interruption, each
 * mutation caught, the traces) is tested in-process in test/golden/golden-corpus.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN, GOLDEN_KEY, goldenScenarioDirs, mutateGolden } from '../golden/golden-receipts.js';
import { type Keyring, loadKeyring } from '../../src/public/receipts.js';
import { runCli } from '../helpers/cli.js';
import { lostVerdict, verifyVerdict } from '../helpers/verdicts.js';

const KEY = GOLDEN_KEY;

const scenarioDirs = await goldenScenarioDirs();

/** One lost-pause scenario per binding and dialect: JSON-RPC, HTTP+JSON, gRPC, v0.3. */
const LOST_PAUSE_BY_BINDING = ['lost-pause', 'rest-lost-pause', 'grpc-lost-pause', 'v03-lost-pause'];

let scratch = '';
let keyring: Keyring;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'golden-'));
  keyring = (await loadKeyring({ keys: [KEY], env: {} })).keyring;
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('a2a-replay over the golden corpus', () => {
  it('replays to zero drift on the embedded peer, and byte for byte with --strict', async () => {
    expect(scenarioDirs.length).toBeGreaterThan(0);
    const recordings = scenarioDirs.map((name) => join(GOLDEN, name, 'recording.jsonl'));
    const plain = await runCli(['run', ...recordings, '--concurrency', '2']);
    expect(plain.stdout + plain.stderr).not.toMatch(/DRIFT|FAIL/);
    expect(plain.code).toBe(0);
    const strict = await runCli(['run', ...recordings, '--key', KEY, '--strict', '--concurrency', '2']);
    expect(strict.code, strict.stdout + strict.stderr).toBe(0);
  });

  it('run over a copy of every scenario with one changed field exits 1 naming each copy and its field', async () => {
    const expected = new Map<string, string>();
    for (const name of scenarioDirs)
      expected.set(join(scratch, name, 'recording.jsonl'), await mutateGolden(name, join(scratch, name)));
    const r = await runCli(['run', ...expected.keys(), '--concurrency', '2']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    // One block per recording: its status line, then its indented lines.
    const blocks = new Map<string, string>();
    let current: string | undefined;
    for (const line of r.stdout.split('\n')) {
      const status = /^(\S+) +(\S+)/.exec(line);
      if (status && expected.has(status[2] as string)) {
        current = status[2] as string;
        expect(status[1], line).toBe('DRIFT');
        blocks.set(current, `${line}\n`);
      } else if (current !== undefined && line.startsWith(' ')) blocks.set(current, `${blocks.get(current)}${line}\n`);
      else current = undefined;
    }
    expect([...blocks.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [recording, path] of expected) expect(blocks.get(recording)).toContain(`\n    ${path}: expected`);
    expect(r.stdout).toContain(`${expected.size} recordings: ${expected.size} drift (exit 1)`);
  });

  it.each(LOST_PAUSE_BY_BINDING)('verify exits 0 on the golden log of %s with the test key', async (name) => {
    const log = join(GOLDEN, name, 'recording.receipts.jsonl');
    const verdict = await verifyVerdict([log], keyring);
    expect(verdict.code, verdict.lines.join('\n')).toBe(0);
    expect(verdict.lines.join('\n')).toMatch(
      new RegExp(`^${log.replace(/[.]/g, '\\.')}: ok: \\d+ receipts?, .*closed by a checkpoint`),
    );
    if (name !== LOST_PAUSE_BY_BINDING[0]) return;
    // The command prints that verdict and exits with it (one binding is enough to show it).
    const r = await runCli(['verify', log, '--key', KEY]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toBe(`${verdict.lines.join('\n')}\n`);
  });

  it.each(LOST_PAUSE_BY_BINDING)('lost --json exits 1 listing the one lost pause of %s', async (name) => {
    const recording = join(GOLDEN, name, 'recording.jsonl');
    const verdict = await lostVerdict([recording]);
    expect(verdict.code, JSON.stringify(verdict.json)).toBe(1);
    const found = verdict.json as { lost: unknown[]; lostInterruptions: unknown[] };
    expect(found.lost).toHaveLength(1);
    expect(found.lostInterruptions).toEqual([]);
    if (name !== LOST_PAUSE_BY_BINDING[0]) return;
    // The command prints that listing and exits with it (one binding is enough to show it).
    const r = await runCli(['lost', recording, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual(verdict.json);
  });

  it('lost exits 1 listing the open gate of input-never-answered, and 0 on a session that lost nothing', async () => {
    const gate = await lostVerdict([join(GOLDEN, 'input-never-answered', 'recording.jsonl')]);
    expect(gate.code, JSON.stringify(gate.json)).toBe(1);
    expect(gate.json).toMatchObject({
      lost: [],
      lostInterruptions: [{ reason: 'never_continued', state: 'TASK_STATE_INPUT_REQUIRED' }],
    });
    const none = await lostVerdict([join(GOLDEN, 'caller-pause-finish-step', 'recording.jsonl')]);
    expect(none.code).toBe(0);
  });
});

describe('a corpus recording replayed against another response shape', () => {
  it('budget-interrupt against --legacy-pause drifts in via only: tokens map from resumeToken to handle', async () => {
    const r = await runCli(['run', join(GOLDEN, 'budget-interrupt', 'recording.jsonl'), '--legacy-pause']);
    expect(r.code).toBe(1);
    const receiptLines = r.stdout.split('\n').filter((l) => /^ {4}receipts\[/.test(l));
    expect(receiptLines.length).toBeGreaterThan(0);
    expect(
      receiptLines.every((l) => /^ {4}receipts\[\d+\]\.via: expected "PauseTask", actual "legacy-metadata"$/.test(l)),
    ).toBe(true);
  });
});
