/**
 * `a2a-replay lost` over recordings and receipt logs written here: the built CLI where what it
 * prints is the point (the listing's tables, the clean line, `--explain`), and what it concludes
 * of each file (the listing `--json` prints, what it rests on, its exit code, the input it
 * refuses) as the library calls the command makes (test/helpers/verdicts.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { buildResumptionDraft, buildSuspensionDraft } from '../../src/receipts/drafts.js';
import { Keyring, generateReceiptKey } from '../../src/receipts/keys.js';
import type { SpanRef } from '../../src/receipts/types.js';
import { deriveSpanId, deriveTraceId } from '../../src/tracing/span-events.js';
import { lostSource } from '../../src/public/receipts.js';
import { runCli } from '../helpers/cli.js';
import { keyringOf, lostRefusal, lostVerdict } from '../helpers/verdicts.js';
import { EntryScript, RECORDING, TASK_ID } from '../tracing/entries.js';
import { at } from '../tracing/memory-tracing.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'a2a-lost-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeRecording(name: string, script: EntryScript): string {
  const path = join(dir, name);
  writeFileSync(path, [RECORDING, ...script.entries].map((line) => `${JSON.stringify(line)}\n`).join(''));
  return path;
}

const ref = (name: string): SpanRef => ({
  traceId: deriveTraceId('rec-log', name),
  spanId: deriveSpanId('rec-log', name),
});

/** A signed log: task-1 paused and resumed; task-2 paused, one rejected resume, never resumed. */
function writeReceiptLog(): { log: string; keyFile: string; publicFile: string; lines: string[] } {
  const key = generateReceiptKey({ kid: 'k-test', random: (size) => new Uint8Array(size).fill(7) });
  const chain = new ReceiptChain({
    keyring: new Keyring([key]),
    recording: 'rec-log',
    createdAt: at(0),
    tool: 'a2a-replay@0.1.0',
    checkpointEvery: 0,
  });
  const lines = [chain.header.text];
  const suspend = (taskId: string, seconds: number): string => {
    const sealed = chain.sealSuspension(
      buildSuspensionDraft({
        taskId,
        initiatedBy: 'PAUSE_INITIATOR_AGENT',
        via: 'statusUpdate',
        reason: `waiting on ${taskId}`,
        pausedAt: at(seconds),
        observedAt: at(seconds),
        entries: [seconds],
        span: ref(`s-${taskId}`),
      }),
    );
    lines.push(sealed.receipt.text);
    return sealed.receipt.hash;
  };
  const resume = (taskId: string, suspension: string, seconds: number, outcome: 'resumed' | 'rejected'): void => {
    const sealed = chain.sealResumption(
      buildResumptionDraft({
        taskId,
        cause: 'explicit_resume',
        outcome,
        errorCode: outcome === 'rejected' ? -32011 : null,
        resumedAt: outcome === 'rejected' ? null : at(seconds),
        observedAt: at(seconds),
        entries: [seconds],
        span: ref(`r-${taskId}-${seconds}`),
        links: { suspension: ref(`s-${taskId}`) },
      }),
      suspension,
    );
    lines.push(sealed.receipt.text);
  };
  const first = suspend('task-1', 10);
  const second = suspend('task-2', 20);
  resume('task-1', first, 30, 'resumed');
  resume('task-2', second, 40, 'rejected');
  const closing = chain.close();
  if (closing) lines.push(closing.text);
  const log = join(dir, 'run.receipts.jsonl');
  writeFileSync(log, lines.map((l) => `${l}\n`).join(''));
  const keyFile = join(dir, 'key.json');
  writeFileSync(keyFile, JSON.stringify(key.keyFile()), { mode: 0o600 });
  const publicFile = join(dir, 'key.pub.json');
  writeFileSync(publicFile, JSON.stringify(key.publicKeyFile()));
  return { log, keyFile, publicFile, lines };
}

describe('a2a-replay lost', () => {
  it('lists a pause whose stream ended, with the rule that declared it lost, and exits 1', async () => {
    const file = writeRecording(
      'ended.jsonl',
      new EntryScript().openStream(0).clientPause(5, { stream: 'x-stream' }).end(20, 'x-stream'),
    );
    const result = await runCli(['lost', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`1 lost pause in ${file} (recording)`);
    expect(lines[1]).toMatch(/^TASK\s+INITIATOR\s+REASON\s+RULE\s+SINCE\s+TRACE\s+PAUSE REASON$/);
    expect(lines[2]?.split(/\s{2,}/)).toEqual([
      TASK_ID,
      'PAUSE_INITIATOR_CLIENT',
      'stream_ended',
      'open/end-stream-ended',
      at(6),
      expect.stringMatching(/^[0-9a-f]{32}$/),
      '"needs approval"',
    ]);
  });

  it('exits 0 and says so when every pause was resumed', async () => {
    const file = writeRecording(
      'resumed.jsonl',
      new EntryScript().openStream(0).clientPause(5, { stream: 'x-stream' }).resume(60, 'x-stream'),
    );
    const result = await runCli(['lost', file]);
    expect(result).toEqual({ code: 0, stdout: `no lost pauses in ${file} (recording)\n`, stderr: '' });
  });

  it('prints the lost pauses as JSON with --json', async () => {
    const file = writeRecording(
      'json.jsonl',
      new EntryScript().openStream(0).clientPause(5, { stream: 'x-stream' }).artifact(12, 'x-stream'),
    );
    const result = await lostVerdict([file]);
    expect(result.code).toBe(1);
    const document = result.json as {
      source: string;
      lost: { taskId: string; reason: string; detectedAt: string }[];
    };
    expect(document.source).toBe('recording');
    expect(document.lost.map((l) => [l.taskId, l.reason, l.detectedAt])).toEqual([[TASK_ID, 'pause_ignored', at(12)]]);
  });

  it('names the rule of each lost pause in --json; --explain gives the facts and rules that led to it', async () => {
    const file = writeRecording(
      'explain.jsonl',
      new EntryScript().openStream(0).clientPause(5, { stream: 'x-stream' }).artifact(12, 'x-stream'),
    );
    const json = await lostVerdict([file], { explain: true });
    expect(json.code).toBe(1);
    const document = json.json as {
      lost: { rule: string | null }[];
      explain: { rule: string; steps: { line: number; fact: string; rule: string }[] }[];
    };
    expect(document.lost.map((l) => l.rule)).toEqual(['open/work-on-caught-up-stream']);
    const chain = document.explain[0];
    expect(chain?.rule).toBe('open/work-on-caught-up-stream');
    expect(chain?.steps.at(0)?.rule).toBe('pending/proven');
    expect(chain?.steps.at(-1)).toMatchObject({ fact: 'WorkSeen', rule: 'open/work-on-caught-up-stream' });
    const text = await runCli(['lost', file, '--explain']);
    expect(text.stdout).toMatch(/is lost \(pause_ignored\), by rule open\/work-on-caught-up-stream:/);
    expect(text.stdout).toContain(`${file}:${chain?.steps.at(-1)?.line}: seq`);
  });

  it('names the malformed line of a recording and exits 2', async () => {
    const path = join(dir, 'broken.jsonl');
    const entries = new EntryScript().openStream(0).entries.map((e) => JSON.stringify(e));
    entries[1] = '{"seq": 2, "at": ';
    writeFileSync(path, `${JSON.stringify(RECORDING)}\n${entries.join('\n')}\n`);
    const result = await lostRefusal([path]);
    expect(result.code).toBe(2);
    expect(result.error).toContain(`${path}:3`);
  });

  it('rejects a file that is neither a recording nor a receipt log, naming line 1', async () => {
    const path = join(dir, 'other.jsonl');
    writeFileSync(path, '{"type":"something"}\n');
    // The command prints it as `a2a-replay: MESSAGE` (a refusal shown whole in fleet-series.test.ts).
    const result = await lostRefusal([path]);
    expect(result.code).toBe(2);
    expect(result.error).toBe(
      `${path}:1: "type" is "something"; expected "recording" (a recording) or "ReceiptLog" (a receipt log)`,
    );
  });

  it('lists an unclosed suspension of a receipt log as recording_ended, unverified without a key', async () => {
    const { log } = writeReceiptLog();
    const result = await runCli(['lost', log]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`1 lost pause in ${log} (receipt log, unverified)`);
    // A receipt log holds no rule: no RULE column.
    expect(lines[1]).toMatch(/^TASK\s+INITIATOR\s+REASON\s+SINCE\s+TRACE\s+PAUSE REASON$/);
    expect(lines[2]?.split(/\s{2,}/)).toEqual([
      'task-2',
      'PAUSE_INITIATOR_AGENT',
      'recording_ended',
      at(20),
      ref('s-task-2').traceId,
      '"waiting on task-2"',
    ]);
  });

  it('with only a public key, says how many receipts after the last checkpoint nothing vouches for', async () => {
    const { log, publicFile, lines } = writeReceiptLog();
    const open = join(dir, 'open.receipts.jsonl');
    writeFileSync(
      open,
      lines
        .slice(0, -1)
        .map((l) => `${l}\n`)
        .join(''),
    );
    // Cut before its only checkpoint, nothing signed was checked: said as the report says it. The
    // listing's first line is `1 lost pause in FILE (SOURCE)`.
    const keys = await keyringOf([publicFile]);
    const r = await lostVerdict([open], { keys });
    expect(r.found.lost).toHaveLength(1);
    expect(`1 lost pause in ${open} (${lostSource(r.found)})`).toBe(
      `1 lost pause in ${open} (receipt log, chain verified, signatures unchecked; ` +
        'not closed by a checkpoint: lines may be missing at its end; 4 after the last checkpoint not vouched for; ' +
        'NOT VERIFIED: only a public key was given and no checkpoint vouches for any receipt, so no signature was ' +
        'checked (pass --key to check the receipts themselves))',
    );
    const closed = await lostVerdict([log], { keys });
    expect(closed.found.lost).toHaveLength(1);
    expect(`1 lost pause in ${log} (${lostSource(closed.found)})`).toBe(
      `1 lost pause in ${log} (receipt log, chain verified, signatures unchecked)`,
    );
  });

  it('says verified when --key verifies the log, and names the bad line when it does not', async () => {
    const { log, keyFile, lines } = writeReceiptLog();
    const keys = await keyringOf([keyFile]);
    const verified = await lostVerdict([log], { keys });
    expect(verified.code).toBe(1);
    expect(verified.found.lost).toHaveLength(1);
    expect(lostSource(verified.found)).toBe('receipt log, verified');

    const tampered = join(dir, 'tampered.receipts.jsonl');
    writeFileSync(
      tampered,
      lines
        .map((l, i) => (i === 1 ? l.replace('waiting on task-1', 'waiting on task-9') : l))
        .map((l) => `${l}\n`)
        .join(''),
    );
    const failed = await lostRefusal([tampered], { keys });
    expect(failed.code).toBe(2);
    expect(failed.error).toMatch(new RegExp(`^${tampered.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: does not verify`));
    const unverified = await lostVerdict([tampered]);
    expect(unverified.code).toBe(1);
  });

  it('refuses a receipt log torn by a crash, naming the line, and reads up to it with --allow-torn-tail', async () => {
    const { lines, keyFile } = writeReceiptLog();
    const torn = join(dir, 'torn.receipts.jsonl');
    const cut = lines[4] as string;
    writeFileSync(torn, `${lines.slice(0, 4).join('\n')}\n${cut.slice(0, cut.length >> 1)}`);
    for (const keys of [undefined, await keyringOf([keyFile])]) {
      const given = keys === undefined ? 'no key' : '--key';
      const refused = await lostRefusal([torn], { keys });
      expect(refused.code, given).toBe(2);
      expect(refused.error, given).toContain(`${torn}:5: `);
      const read = await lostVerdict([torn], { keys, allowTornTail: true });
      expect(read.code, given).toBe(1);
      expect(read.found.lost, given).toHaveLength(1);
      const verified =
        'verified; torn last line 5 skipped; not closed by a checkpoint: lines may be missing at its end; ' +
        '3 after the last checkpoint not vouched for';
      expect(lostSource(read.found)).toBe(`receipt log, ${keys !== undefined ? verified : 'unverified'}`);
    }
  });

  it('says when a verified log is not closed: a cut at a line boundary may hide pauses', async () => {
    const { lines, keyFile } = writeReceiptLog();
    // Cut after the first suspension: the second, still open in the whole log, is gone.
    const cut = join(dir, 'cut.receipts.jsonl');
    writeFileSync(
      cut,
      lines
        .slice(0, 2)
        .map((l) => `${l}\n`)
        .join(''),
    );
    const keys = await keyringOf([keyFile]);
    const result = await lostVerdict([cut], { keys });
    expect(result.code).toBe(1);
    expect(result.found.lost).toHaveLength(1);
    expect(lostSource(result.found)).toBe(
      'receipt log, verified; not closed by a checkpoint: lines may be missing ' +
        'at its end; 1 after the last checkpoint not vouched for',
    );
    const header = join(dir, 'header.receipts.jsonl');
    writeFileSync(header, `${lines[0]}\n`);
    const empty = await lostVerdict([header], { keys });
    expect(empty.code).toBe(0);
    expect(empty.json).toMatchObject({
      lost: [],
      source: 'receipt log, verified; not closed by a checkpoint: lines may be missing at its end',
    });
  });

  it('names the malformed line of a receipt log and exits 2', async () => {
    const { lines } = writeReceiptLog();
    const path = join(dir, 'bad.receipts.jsonl');
    writeFileSync(path, [lines[0], lines[1], '{"type":"SuspensionReceipt"}'].map((l) => `${l}\n`).join(''));
    const result = await lostRefusal([path]);
    expect(result.code).toBe(2);
    expect(result.error).toContain(`${path}:3: `);
  });
});
