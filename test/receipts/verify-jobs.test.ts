/**
 * `verifyReceiptLog` with worker threads (`jobs`) gives the result of one thread: the same
 * verdict, counts and head on a good log, and the same first bad line and reason on logs tampered
 * at lines in the first, a middle and the last batch (a byte of a signature, a dropped line, a
 * space, a line that is not JSON, bytes that are not UTF-8, a torn tail); `onLine` sees the same
 * lines. The built CLI's `--jobs 2` prints what one thread concludes (`verifyLogSet` with one job,
 * what `--jobs 1` calls) on a good log and two tampered ones.
 * Worker threads start the built worker, so the library tests with jobs run the built verifier
 * (dist/, which the suite's global setup builds); from the TypeScript sources, jobs above 1 are
 * refused with the reason.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { buildContinuationDraft, buildInterruptionDraft } from '../../src/receipts/interruption-drafts.js';
import { Keyring } from '../../src/receipts/keys.js';
import type * as KeyFileModule from '../../src/receipts/key-file.js';
import { WORKERS_FROM_BYTES, defaultVerifyJobs } from '../../src/receipts/verify-jobs.js';
import type * as VerifyModule from '../../src/receipts/verify.js';
import { type VerifyResult, verifyReceiptLog as verifyFromSources } from '../../src/receipts/verify.js';
import { openLogSet, verificationJson, verifyLogSet } from '../../src/public/receipts.js';
import { runCli } from '../helpers/cli.js';
import { CREATED_AT, buildLogLines, fixedKey } from './fixtures.js';

const key = fixedKey('key-jobs');
const sourceKeyring = new Keyring([key]);
// 1,200 receipts: four blocks of 256 KiB, examined in turn by the workers and the main thread.
const lines = buildLogLines({ count: 1200, keyring: sourceKeyring, checkpointEvery: 100 });
let dir = '';
let keyFile = '';
/** The built verifier and the key loaded by the built package. */
let verifyReceiptLog: typeof VerifyModule.verifyReceiptLog;
let keyring: Keyring;
const built = (module: string): string => new URL(`../../dist/src/receipts/${module}`, import.meta.url).href;

type Tamper = { name: string; at: number; edit: (text: string) => string | null; bytes?: Buffer };

const tampers = (at: number): Tamper[] => [
  {
    name: 'sig byte',
    at,
    edit: (t) => t.replace(/"value":"(.)/, (_m, c: string) => `"value":"${c === 'A' ? 'B' : 'A'}`),
  },
  { name: 'dropped', at, edit: () => null },
  { name: 'space', at, edit: (t) => t.replace('{"', '{ "') },
  { name: 'not JSON', at, edit: (t) => t.slice(0, 40) },
  { name: 'not UTF-8', at, edit: (t) => t, bytes: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) },
  { name: 'byte order mark', at, edit: (t) => `\uFEFF${t}` },
];

async function logWith(name: string, tamper: Tamper | null, tornTail = false): Promise<string> {
  const parts: Buffer[] = [];
  lines.forEach((line, i) => {
    if (tamper && i + 1 === tamper.at) {
      if (tamper.bytes) parts.push(tamper.bytes, Buffer.from('\n'));
      else {
        const edited = tamper.edit(line);
        if (edited !== null) parts.push(Buffer.from(`${edited}\n`));
      }
    } else parts.push(Buffer.from(`${line}\n`));
  });
  let bytes = Buffer.concat(parts);
  if (tornTail) bytes = bytes.subarray(0, bytes.length - 30);
  const path = join(dir, `${name.replace(/\W+/g, '-')}.receipts.jsonl`);
  await writeFile(path, bytes, { mode: 0o600 });
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'verify-jobs-'));
  keyFile = join(dir, 'k.key');
  await writeFile(keyFile, canonicalJson(key.keyFile()), { mode: 0o600 });
  ({ verifyReceiptLog } = (await import(built('verify.js'))) as typeof VerifyModule);
  const { loadKeyring } = (await import(built('key-file.js'))) as typeof KeyFileModule;
  ({ keyring } = await loadKeyring({ keys: [keyFile], env: {} }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('verifyReceiptLog with jobs', () => {
  it('gives the single-thread result for a good log, and onLine sees the same lines', async () => {
    const path = await logWith('good', null);
    const seen = { 1: [] as string[], 2: [] as string[] };
    const one = await verifyReceiptLog(path, {
      keyring,
      jobs: 1,
      onLine: (l) => seen[1].push(`${l.number} ${l.hash}`),
    });
    const two = await verifyReceiptLog(path, {
      keyring,
      jobs: 2,
      onLine: (l) => seen[2].push(`${l.number} ${l.hash}`),
    });
    expect(one.ok).toBe(true);
    expect(one.lines).toBe(lines.length);
    expect(two).toEqual(one);
    expect(seen[2]).toEqual(seen[1]);
    expect(seen[1]).toHaveLength(lines.length);
    expect(await verifyReceiptLog(path, { keyring, jobs: 3 })).toEqual(one);
  });

  it('reports the same first bad line and reason for tampering in the first, a middle and the last batch', async () => {
    const results: [string, VerifyResult, VerifyResult][] = [];
    for (const at of [2, 400, 800, lines.length - 1]) {
      for (const tamper of tampers(at)) {
        const path = await logWith(`${tamper.name} ${at}`, tamper);
        const one = await verifyReceiptLog(path, { keyring, jobs: 1 });
        const two = await verifyReceiptLog(path, { keyring, jobs: 2 });
        results.push([`${tamper.name} at ${at}`, one, two]);
        results.push([`${tamper.name} at ${at}, 3 jobs`, one, await verifyReceiptLog(path, { keyring, jobs: 3 })]);
      }
    }
    for (const [what, one, two] of results) {
      expect(one.ok, what).toBe(false);
      expect(two, what).toEqual(one);
    }
    // The failures are at the tampered line (a dropped line is missed by the one after it).
    expect(results.map(([, one]) => one.firstError!.line)).toContain(800);
  });

  it('treats a torn tail the same, failing or allowed', async () => {
    const path = await logWith('torn', null, true);
    for (const allowTornTail of [false, true]) {
      const one = await verifyReceiptLog(path, { keyring, jobs: 1, allowTornTail, allowOpen: true });
      const two = await verifyReceiptLog(path, { keyring, jobs: 2, allowTornTail, allowOpen: true });
      expect(two).toEqual(one);
      expect(one.ok).toBe(allowTornTail);
    }
  });

  it('defaults to one thread below the size where workers pay off, else to the cores', () => {
    expect(defaultVerifyJobs(0, 4)).toBe(1);
    expect(defaultVerifyJobs(WORKERS_FROM_BYTES - 1, 4)).toBe(1);
    expect(defaultVerifyJobs(WORKERS_FROM_BYTES, 4)).toBe(4);
    expect(defaultVerifyJobs(WORKERS_FROM_BYTES * 10, 2)).toBe(2);
  });

  it('runs workers from the built package only: from the sources, jobs above 1 name the missing worker', async () => {
    const path = await logWith('sources', null);
    expect((await verifyFromSources(path, { keyring: sourceKeyring, jobs: 1 })).ok).toBe(true);
    await expect(verifyFromSources(path, { keyring: sourceKeyring, jobs: 2 })).rejects.toThrow(
      /jobs: worker threads need the built verify worker .*src\/receipts\/verify-worker\.js, which is missing/,
    );
  });

  it('refuses a jobs count that is not a positive integer', async () => {
    const path = await logWith('good-2', null);
    await expect(verifyReceiptLog(path, { keyring, jobs: 0 })).rejects.toThrow(/jobs: expected an integer >= 1, got 0/);
  });
});

describe('a2a-replay verify --jobs', () => {
  it('prints the same result with --jobs 1 and --jobs 2, good or tampered', async () => {
    // Every tamper at every batch is compared above through the library the command calls; here,
    // that --jobs reaches it and the printed verdict is the one thread's, on a good log and on a log
    // tampered in the first batch and in a later one. What `verify --jobs 1 --json` prints is
    // `verificationJson` of `verifyLogSet` with one job, which the sources run in this process.
    const [sigByte, , , , notUtf8] = tampers(0);
    const paths = [await logWith('cli-good', null)];
    for (const tamper of [
      { ...sigByte!, at: 3 },
      { ...notUtf8!, at: 900 },
    ])
      paths.push(await logWith(`cli ${tamper.name} ${tamper.at}`, tamper));
    for (const path of paths) {
      const set = await openLogSet([path], { keys: [keyFile], jobs: 1 });
      const verified = await verifyLogSet(set).finally(() => set.close());
      const one = { stdout: `${JSON.stringify(verificationJson(verified))}\n`, code: verified.ok ? 0 : 1 };
      const two = await runCli(['verify', path, '--key', keyFile, '--jobs', '2', '--json']);
      expect(two.stdout, path).toBe(one.stdout);
      expect(two.code, path).toBe(one.code);
      expect(one.code).toBe(path.includes('cli-good') ? 0 : 1);
    }
    const bad = await runCli(['verify', paths[0]!, '--key', keyFile, '--jobs', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/jobs/);
  });
});

describe('verifyReceiptLog with jobs over interruption receipts (version 5)', () => {
  /** `pairs` interruptions, each closed by its continuation; the one at `wrong` names another task's. */
  function interruptionLog(pairs: number, wrong?: number): string[] {
    const chain = new ReceiptChain({
      keyring: sourceKeyring,
      checkpointEvery: 100,
      recording: 'rec-jobs',
      createdAt: CREATED_AT,
      tool: 'a2a-replay@test',
    });
    const out = [chain.header.text];
    const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    for (let n = 0; n < pairs; n++) {
      const taskId = `task-${n}`;
      const i = chain.sealInterruption(
        buildInterruptionDraft({
          taskId,
          contextId: 'ctx',
          state: n % 2 === 0 ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_AUTH_REQUIRED',
          prompt: [{ text: `question ${n}` }],
          interruptedAt: null,
          observedAt: CREATED_AT,
          entries: [n * 2 + 1],
          span,
          binding: 'JSONRPC',
        }),
      );
      out.push(i.receipt.text);
      if (i.checkpoint) out.push(i.checkpoint.text);
      const c = chain.sealContinuation(
        buildContinuationDraft({
          taskId: n === wrong ? 'task-other' : taskId,
          cause: n % 2 === 0 ? 'message' : 'out_of_band',
          principal: 'jwt:sub=alice',
          input: n % 2 === 0 ? [{ text: `answer ${n}` }] : null,
          observedAt: CREATED_AT,
          entries: [n * 2 + 2],
          span,
          interruptionSpan: span,
          binding: 'JSONRPC',
        }),
        i.receipt.hash,
      );
      out.push(c.receipt.text);
      if (c.checkpoint) out.push(c.checkpoint.text);
    }
    const closing = chain.close(null);
    if (closing) out.push(closing.text);
    return out;
  }

  it('gives the single-thread result, good or with a continuation of another task', async () => {
    for (const [name, wrong] of [
      ['good', undefined],
      ['wrong', 1500],
    ] as const) {
      const path = join(dir, `interruptions-${name}.receipts.jsonl`);
      await writeFile(
        path,
        interruptionLog(2000, wrong)
          .map((l) => `${l}\n`)
          .join(''),
        { mode: 0o600 },
      );
      const one = await verifyReceiptLog(path, { keyring, jobs: 1 });
      const two = await verifyReceiptLog(path, { keyring, jobs: 2 });
      expect(two).toEqual(one);
      if (wrong === undefined) expect(one).toMatchObject({ ok: true, version: 5, receipts: 4000 });
      else expect(one.firstError?.reason).toBe('unknown_interruption');
    }
  });
});
