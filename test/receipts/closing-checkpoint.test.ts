/**
 * The closing checkpoint (docs/design.md §6): only a checkpoint marked final closes a log, so a log
 * cut at an intermediate checkpoint is open whatever the keys or an older witness say; the closing
 * checkpoint binds the log to its recording, so a log of another recording, or a recording cut or
 * emptied after it closed, is told; a version-2 log still verifies, unbound.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring, readKeyFile } from '../../src/receipts/keys.js';
import { readRecordingBinding } from '../../src/receipts/recording-binding.js';
import type { Checkpoint, RecordingBinding } from '../../src/receipts/types.js';
import { verifyReceiptLogBytes } from '../../src/receipts/verify.js';
import { CREATED_AT, buildLogLines, fixedKey, suspensionDraftFor } from './fixtures.js';

const key = fixedKey('key-a');
const keyring = new Keyring([key]);
const publicOnly = new Keyring([readKeyFile(key.publicKeyFile(), 'pub')]);
const joined = (lines: readonly string[]): string => lines.map((l) => `${l}\n`).join('');

/** A recording's lines: a header with `id`, then `entries` entries. */
function recordingText(id: string, entries: number): string {
  const lines = [JSON.stringify({ type: 'recording', version: 1, id })];
  for (let seq = 1; seq <= entries; seq++) lines.push(JSON.stringify({ seq, kind: 'request', body: { n: seq } }));
  return joined(lines);
}

function bindingOf(text: string): RecordingBinding {
  const lines = text.trimEnd().split('\n');
  const id = (JSON.parse(lines[0]!) as { id: string }).id;
  return { id, lines: lines.length, lastLineHash: sha256Prefixed(lines.at(-1)!) };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closing-checkpoint-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the closing checkpoint', () => {
  const lines = buildLogLines({ count: 30, keyring, checkpointEvery: 10 });
  // Cut right after the checkpoint at 20 receipts: every line left is signed and chained.
  const cutAt = lines.findIndex((l) => l.endsWith('"size":20,"type":"Checkpoint"}'));
  const cut = lines.slice(0, cutAt + 1);

  it('marks only the last checkpoint final', () => {
    const checkpoints = lines.filter((l) => l.includes('"type":"Checkpoint"'));
    expect(checkpoints.map((l) => (JSON.parse(l) as Checkpoint).final)).toEqual([false, false, false, true]);
    expect(verifyReceiptLogBytes(joined(lines), { keyring })).toMatchObject({ ok: true, closed: true });
  });

  it('reports a log cut at an intermediate checkpoint as open, with the key and with the public key', () => {
    expect(JSON.parse(cut.at(-1)!)).toMatchObject({ type: 'Checkpoint', size: 20, final: false });
    for (const ring of [keyring, publicOnly]) {
      expect(verifyReceiptLogBytes(joined(cut), { keyring: ring }).firstError).toMatchObject({
        line: cut.length + 1,
        reason: 'not_closed',
        message: expect.stringContaining('intermediate checkpoint') as string,
      });
      expect(verifyReceiptLogBytes(joined(cut), { keyring: ring, allowOpen: true })).toMatchObject({
        ok: true,
        closed: false,
        vouched: 20,
        receipts: 20,
      });
    }
  });

  it('does not take an older witness that matches the cut for a closing checkpoint', () => {
    const older = JSON.parse(cut.at(-1)!) as Checkpoint;
    const result = verifyReceiptLogBytes(joined(cut.slice(0, -1)), { keyring, anchor: older });
    expect(result.firstError).toMatchObject({ reason: 'not_closed' });
    // The closing checkpoint as a witness still vouches for a log whose closing line was cut.
    const closing = JSON.parse(lines.at(-1)!) as Checkpoint;
    expect(verifyReceiptLogBytes(joined(lines.slice(0, -1)), { keyring, anchor: closing })).toMatchObject({
      ok: true,
      anchored: true,
    });
  });

  it('refuses a line after the closing checkpoint', () => {
    const after = [...lines, lines[1]!];
    expect(verifyReceiptLogBytes(joined(after), { keyring }).firstError).toMatchObject({
      line: lines.length + 1,
      reason: 'after_close',
    });
  });
});

describe('the binding to the recording', () => {
  const text = recordingText('rec-test', 5);
  const binding = bindingOf(text);
  const lines = buildLogLines({ count: 12, keyring, checkpointEvery: 5, binding });

  it('reads a recording file as its recorder binds it, torn last line included', async () => {
    const file = join(dir, 'rec.jsonl');
    await writeFile(file, text);
    expect(await readRecordingBinding(file)).toEqual(binding);
    await writeFile(file, text.slice(0, -3));
    expect(await readRecordingBinding(file)).toEqual({
      ...binding,
      lastLineHash: sha256Prefixed(text.trimEnd().split('\n').at(-1)!.slice(0, -2)),
    });
    await writeFile(file, '');
    await expect(readRecordingBinding(file)).rejects.toThrow(/empty/);
  });

  it('matches the recording it was closed with, with the key and with the public key', () => {
    for (const ring of [keyring, publicOnly])
      expect(verifyReceiptLogBytes(joined(lines), { keyring: ring, recording: binding })).toMatchObject({
        ok: true,
        closed: true,
        bound: binding,
        recordingCheck: 'bound',
      });
  });

  it('tells a log of another recording', () => {
    const other = bindingOf(recordingText('rec-other', 5));
    expect(verifyReceiptLogBytes(joined(lines), { keyring, recording: other }).firstError).toMatchObject({
      line: 1,
      reason: 'recording_mismatch',
      message: expect.stringContaining('another recording') as string,
    });
  });

  it('tells a recording cut, emptied or with another last line', () => {
    for (const changed of [
      bindingOf(recordingText('rec-test', 4)),
      bindingOf(recordingText('rec-test', 0)),
      { ...binding, lastLineHash: sha256Prefixed('{}') },
    ]) {
      expect(verifyReceiptLogBytes(joined(lines), { keyring, recording: changed }).firstError).toMatchObject({
        line: lines.length,
        reason: 'recording_mismatch',
        message: expect.stringContaining('cut, emptied or changed') as string,
      });
    }
  });

  it('compares only the id of a log closed without a binding, or still open', () => {
    const unbound = buildLogLines({ count: 12, keyring, checkpointEvery: 5 });
    expect(verifyReceiptLogBytes(joined(unbound), { keyring, recording: binding })).toMatchObject({
      ok: true,
      closed: true,
      bound: null,
      recordingCheck: 'id only',
    });
    expect(
      verifyReceiptLogBytes(joined(lines.slice(0, -1)), { keyring, recording: binding, allowOpen: true }),
    ).toMatchObject({ ok: true, closed: false, recordingCheck: 'id only' });
  });

  it('refuses a binding on an intermediate checkpoint, and one naming another recording than the header', () => {
    // Signed by the key: only the verifier's rules refuse them.
    const chain = new ReceiptChain({ keyring, recording: 'rec-test', createdAt: CREATED_AT, tool: 't' });
    const receipt = chain.sealSuspension(suspensionDraftFor(1)).receipt;
    const intermediate = chain.checkpoint(false, binding);
    const closing = chain.checkpoint(true, null);
    expect(
      verifyReceiptLogBytes(joined([chain.header.text, receipt.text, intermediate.text, closing.text]), { keyring })
        .firstError,
    ).toMatchObject({
      line: 3,
      reason: 'malformed_line',
      message: expect.stringContaining('intermediate checkpoint binds') as string,
    });
    const other = new ReceiptChain({ keyring, recording: 'rec-test', createdAt: CREATED_AT, tool: 't' });
    const foreign = other.checkpoint(true, { ...binding, id: 'rec-other' });
    expect(verifyReceiptLogBytes(joined([other.header.text, foreign.text]), { keyring }).firstError).toMatchObject({
      line: 2,
      reason: 'recording_mismatch',
    });
  });
});

describe('a version-2 log', () => {
  const lines = buildLogLines({ count: 20, keyring, checkpointEvery: 10, version: 2 });

  it('verifies as before: its last checkpoint closes it, and it is bound to no recording', () => {
    expect(lines.at(-1)).not.toContain('"final"');
    expect(
      verifyReceiptLogBytes(joined(lines), { keyring, recording: bindingOf(recordingText('rec-test', 2)) }),
    ).toMatchObject({
      ok: true,
      version: 2,
      closed: true,
      bound: null,
      recordingCheck: 'id only',
    });
  });

  it('refuses a version-3 checkpoint in it, and a version-2 checkpoint in a version-3 log', () => {
    const v3 = buildLogLines({ count: 20, keyring, checkpointEvery: 10 });
    // Line 12 is the checkpoint at 10 receipts in both.
    expect(JSON.parse(lines[11]!)).toMatchObject({ type: 'Checkpoint', size: 10 });
    expect(JSON.parse(v3[11]!)).toMatchObject({ type: 'Checkpoint', size: 10 });
    for (const [head, checkpoint] of [
      [lines, v3[11]!],
      [v3, lines[11]!],
    ] as const)
      expect(verifyReceiptLogBytes(joined([...head.slice(0, 11), checkpoint]), { keyring }).firstError).toMatchObject({
        line: 12,
        reason: 'malformed_line',
      });
  });
});
