import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const GOLDEN = join(ROOT, 'golden', 'wrong-token-then-right', 'recording.receipts.jsonl');
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'diff-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a2a-replay diff', () => {
  it('finds a log identical to itself, byte for byte with --strict', async () => {
    const r = await runCli(['diff', GOLDEN, GOLDEN, '--strict']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^same: 3 receipts, byte for byte\n$/);
  });

  it('names the field that differs and exits 1', async () => {
    const changed = join(dir, 'changed.receipts.jsonl');
    const text = await readFile(GOLDEN, 'utf8');
    await writeFile(changed, text.replace('"outcome":"rejected"', '"outcome":"resumed"'));
    const r = await runCli(['diff', GOLDEN, changed, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      same: boolean;
      differences: { path: string; expected: unknown; actual: unknown }[];
    };
    expect(report.same).toBe(false);
    expect(report.differences).toEqual([{ path: 'receipts[1].outcome', expected: 'rejected', actual: 'resumed' }]);
  });

  it('ignores a volatile field unless --strict', async () => {
    const shifted = join(dir, 'shifted.receipts.jsonl');
    const text = await readFile(GOLDEN, 'utf8');
    await writeFile(shifted, text.replace(/"pausedAt":"[^"]+"/, '"pausedAt":"2030-01-01T00:00:00.000Z"'));
    const loose = await runCli(['diff', GOLDEN, shifted]);
    expect(loose.code).toBe(0);
    expect(loose.stdout).toContain('ignored pausedAt (1)');
    const strict = await runCli(['diff', GOLDEN, shifted, '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('receipts[0].pausedAt');
  });

  it('names a continuation answered by someone else by its identity and golden line, and exits 1', async () => {
    const golden = join(ROOT, 'golden', 'input-asked-answered', 'recording.receipts.jsonl');
    const other = join(dir, 'other-answer.receipts.jsonl');
    const text = await readFile(golden, 'utf8');
    expect(text).toContain('"principal":"jwt:sub=approver"');
    await writeFile(other, text.replace('"principal":"jwt:sub=approver"', '"principal":"jwt:sub=mallory"'));
    const r = await runCli(['diff', golden, other]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const named = r.stdout.split('\n').find((l) => l.includes('.principal:'));
    expect(named).toMatch(/^ {2}receipts\[1\] \(task-\S+ interruption 1 continuation 1, line 3\)\.principal: /);
    expect(named).toMatch(/: expected "jwt:sub=approver", actual "jwt:sub=mallory"$/);
    // The interruption's hash and its peer-clock time are volatile; the rest of the log is the same.
    const shifted = join(dir, 'shifted-ask.receipts.jsonl');
    await writeFile(shifted, text.replace(/"interruptedAt":"[^"]+"/, '"interruptedAt":"2030-01-01T00:00:00.000Z"'));
    const loose = await runCli(['diff', golden, shifted]);
    expect(loose.code, loose.stdout).toBe(0);
    expect(loose.stdout).toContain('ignored interruptedAt (1)');
  });

  it('exits 2 naming a missing or malformed log', async () => {
    const missing = await runCli(['diff', GOLDEN, join(dir, 'nope.receipts.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.receipts\.jsonl: no such receipt log/);
    const broken = join(dir, 'broken.receipts.jsonl');
    await writeFile(broken, `${(await readFile(GOLDEN, 'utf8')).split('\n')[0]}\n{"type":\n`);
    const malformed = await runCli(['diff', GOLDEN, broken]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/broken\.receipts\.jsonl:2: not valid JSON/);
  });
});
