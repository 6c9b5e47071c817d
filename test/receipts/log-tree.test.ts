/**
 * Version-4 checkpoint notes as `verify` checks them: a note that does not commit to the lines
 * before it fails the log even when its checkpoint is signed again by the log's own key (a
 * rewrite by the key holder), and one missing or out of place is named.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { Keyring } from '../../src/receipts/keys.js';
import { LogTree } from '../../src/receipts/log-tree.js';
import { signCheckpoint } from '../../src/receipts/signing.js';
import type { Checkpoint } from '../../src/receipts/types.js';
import { verifyReceiptLogBytes } from '../../src/receipts/verify.js';
import { checkpointText, parseCheckpointText } from '../../src/tlog/checkpoint.js';
import { buildLogLines, fixedKey } from './fixtures.js';

const key = fixedKey('tree-a', 'tree-a');
const keyring = new Keyring([key]);
const lines = buildLogLines({ count: 9, keyring, checkpointEvery: 4 });
const firstCheckpoint = lines.findIndex((l) => l.includes('"type":"Checkpoint"'));

/** The log with its first checkpoint's body changed by `edit` and signed again with the log's key. */
function resigned(edit: (checkpoint: Record<string, unknown>) => void): string {
  const { sig: _sig, ...body } = JSON.parse(lines[firstCheckpoint]!) as Checkpoint;
  edit(body as unknown as Record<string, unknown>);
  const sig = signCheckpoint(body as Omit<Checkpoint, 'sig'>, key);
  const copy = [...lines];
  copy[firstCheckpoint] = canonicalJson({ ...body, sig });
  return `${copy.join('\n')}\n`;
}

describe('checkpoint notes', () => {
  it('verify checks each note against the Merkle tree of the lines before it', () => {
    const result = verifyReceiptLogBytes(`${lines.join('\n')}\n`, { keyring });
    expect(result.ok).toBe(true);
    expect(result.notes).toBe(result.checkpoints);
    expect(result.origin).toBe('a2a-replay/tree-a/rec-test');
  });

  it('fails a note with another root, even signed again by the key', () => {
    const result = verifyReceiptLogBytes(
      resigned((c) => {
        const note = c.note as string;
        const text = note.slice(0, note.lastIndexOf('\n\n') + 1);
        const body = parseCheckpointText(text);
        body.root = Buffer.alloc(32, 7);
        const forged = checkpointText(body);
        c.note = forged + note.slice(text.length);
      }),
      { keyring },
    );
    expect(result.firstError).toMatchObject({ line: firstCheckpoint + 1, reason: 'checkpoint_mismatch' });
    expect(result.firstError?.message).toMatch(/does not verify|Merkle root/);
  });

  it('fails an Ed25519 checkpoint with its note dropped or its member removed', () => {
    const dropped = verifyReceiptLogBytes(
      resigned((c) => (c.note = null)),
      { keyring },
    ).firstError;
    expect(dropped?.reason).toBe('checkpoint_mismatch');
    expect(dropped?.message).toContain('without its checkpoint note');
    const removed = verifyReceiptLogBytes(
      resigned((c) => delete c.note),
      { keyring },
    ).firstError;
    expect(removed?.reason).toBe('malformed_line');
    expect(removed?.message).toContain('without a note member in a version-5 log');
  });

  it('fails a note of another log (its origin) over the same lines, signed by the same key', () => {
    const tree = new LogTree();
    for (const line of lines.slice(0, firstCheckpoint)) tree.addLine(line);
    const result = verifyReceiptLogBytes(
      resigned((c) => (c.note = tree.note('a2a-replay/tree-a/rec-other', key))),
      { keyring },
    );
    expect(result.firstError?.reason).toBe('checkpoint_mismatch');
    expect(result.firstError?.message).toContain(
      "names origin a2a-replay/tree-a/rec-other, but this log's is a2a-replay/tree-a/rec-test",
    );
  });
});
