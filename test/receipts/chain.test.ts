import { describe, expect, it } from 'vitest';
import { canonicalJson, hashCanonical, sha256Prefixed } from '../../src/canonical/canonical-json.js';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import { pae } from '../../src/receipts/pae.js';
import { checkReceiptSignature } from '../../src/receipts/signing.js';
import { RECEIPT_PAYLOAD_TYPE } from '../../src/receipts/types.js';
import type { Receipt, ReceiptLogLine } from '../../src/receipts/types.js';
import { CREATED_AT, buildLogLines, fixedKey, resumptionDraftFor, suspensionDraftFor } from './fixtures.js';

const keyring = new Keyring([fixedKey('key-a')]);

function newChain(checkpointEvery = 2, version?: 2 | 3): ReceiptChain {
  return new ReceiptChain({
    keyring,
    checkpointEvery,
    recording: 'rec-1',
    createdAt: CREATED_AT,
    tool: 'a2a-replay@test',
    ...(version === undefined ? {} : { version }),
  });
}

describe('pae', () => {
  it('encodes type and body with their byte lengths as DSSE does', () => {
    expect(pae('text/plain', 'héllo').toString('utf8')).toBe('DSSEv1 10 text/plain 6 héllo');
  });
});

describe('ReceiptChain', () => {
  it('starts with a header that holds nothing random', () => {
    expect(newChain().header.line).toEqual({
      type: 'ReceiptLog',
      format: 'a2a-replay.receipts',
      version: 5,
      recording: 'rec-1',
      kids: ['key-a'],
      checkpoint: { alg: 'ed25519', kid: 'key-a' },
      createdAt: CREATED_AT,
      tool: 'a2a-replay@test',
    });
    expect(newChain().header.text).toBe(newChain().header.text);
  });

  it('chains each receipt to the canonical hash of the line before it', () => {
    const chain = newChain(0);
    const first = chain.sealSuspension(suspensionDraftFor(1)).receipt;
    const second = chain.sealResumption(resumptionDraftFor(1), first.hash).receipt;
    expect(first.line.prev).toBe(sha256Prefixed(chain.header.text));
    expect(first.line.seq).toBe(1);
    expect(second.line.prev).toBe(first.hash);
    expect(second.line.suspension).toBe(first.hash);
    expect(second.line.seq).toBe(2);
    expect(first.text).toBe(canonicalJson(first.line));
    expect(first.hash).toBe(hashCanonical(first.line));
  });

  it('signs PAE(receipt type, JCS(receipt without sig)) with HMAC-SHA256 under the kid', () => {
    const { receipt } = newChain().sealSuspension(suspensionDraftFor(4));
    const { sig, ...body } = receipt.line;
    expect(sig.alg).toBe('hmac-sha256');
    expect(sig.kid).toBe('key-a');
    const expected = fixedKey('key-a')
      .mac(pae(RECEIPT_PAYLOAD_TYPE, canonicalJson(body)))
      .toString('base64url');
    expect(sig.value).toBe(expected);
    expect(checkReceiptSignature(body, sig, keyring)).toBe('ok');
    expect(checkReceiptSignature({ ...body, reason: 'other' } as typeof body, sig, keyring)).toBe('bad_signature');
    expect(checkReceiptSignature(body, { ...sig, kid: 'nobody' }, keyring)).toBe('unknown_kid');
  });

  it('emits a checkpoint every N receipts committing to the chain head', () => {
    const chain = newChain(2);
    const a = chain.sealSuspension(suspensionDraftFor(1));
    expect(a.checkpoint).toBeNull();
    const b = chain.sealSuspension(suspensionDraftFor(2));
    expect(b.checkpoint?.line).toMatchObject({
      type: 'Checkpoint',
      size: 2,
      root: b.receipt.hash,
      final: false,
      recording: null,
      sig: { alg: 'ed25519', kid: 'key-a' },
    });
    const c = chain.sealSuspension(suspensionDraftFor(3));
    expect(c.receipt.line.prev).toBe(b.checkpoint?.hash);
    expect(chain.close()?.line).toMatchObject({ size: 3, root: c.receipt.hash, final: true, recording: null });
    expect(chain.close()).toBeNull();
    expect(() => chain.sealSuspension(suspensionDraftFor(4))).toThrow(/closed/);
  });

  it('closes with a final checkpoint after an intermediate one, binding the recording it is given', () => {
    const chain = newChain(1);
    const a = chain.sealSuspension(suspensionDraftFor(1));
    const binding = { id: 'rec-1', lines: 7, lastLineHash: sha256Prefixed('last') };
    const closing = chain.close(binding);
    expect(closing?.line).toMatchObject({ size: 1, root: a.checkpoint?.hash, final: true, recording: binding });
    expect(() => newChain().close({ ...binding, id: 'rec-2' })).toThrow(/rec-2/);
  });

  it('writes a version-2 log as it was: checkpoints without final or recording, none after a checkpoint', () => {
    const chain = newChain(1, 2);
    expect(chain.header.line.version).toBe(2);
    const a = chain.sealSuspension(suspensionDraftFor(1));
    expect(Object.keys(a.checkpoint?.line ?? {})).toEqual(['type', 'size', 'root', 'sig']);
    expect(chain.close()).toBeNull();
  });

  it('signs checkpoints with HMAC when the key has no Ed25519 pair', () => {
    const chain = new ReceiptChain({
      keyring: new Keyring([fixedKey('mac-only', 'mac-only', false)]),
      recording: null,
      createdAt: CREATED_AT,
      tool: 't',
    });
    expect(chain.header.line.checkpoint).toEqual({ alg: 'hmac-sha256', kid: 'mac-only' });
    expect(chain.close()?.line.sig.alg).toBe('hmac-sha256');
  });

  it('derives byte-identical logs from the same key and drafts', () => {
    const a = buildLogLines({ count: 20, keyring });
    const b = buildLogLines({ count: 20, keyring: new Keyring([fixedKey('key-a')]) });
    expect(a).toEqual(b);
    const lines = a.map((t) => JSON.parse(t) as ReceiptLogLine);
    expect(
      lines
        .filter((l): l is Receipt => l.type === 'SuspensionReceipt' || l.type === 'ResumptionReceipt')
        .map((r) => r.seq),
    ).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('keeps tokens and inputs out of receipts, only their hashes', () => {
    const { receipt } = newChain().sealSuspension(suspensionDraftFor(4));
    expect(receipt.text).not.toContain('tok-4');
    expect(receipt.line.resumeTokenHash).toBe(hashCanonical('tok-4'));
    expect(receipt.line.conditionsHash).toBe(hashCanonical(receipt.line.conditions));
  });

  it('signs with the rotated kid after rotate()', () => {
    const two = new Keyring([fixedKey('key-a'), fixedKey('key-b')]);
    const chain = new ReceiptChain({ keyring: two, recording: null, createdAt: CREATED_AT, tool: 't' });
    expect(chain.header.line.kids).toEqual(['key-a', 'key-b']);
    expect(chain.sealSuspension(suspensionDraftFor(1)).receipt.line.sig.kid).toBe('key-a');
    chain.rotate('key-b');
    expect(chain.sealSuspension(suspensionDraftFor(2)).receipt.line.sig.kid).toBe('key-b');
  });
});
