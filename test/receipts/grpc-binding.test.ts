/**
 * A receipt's `binding` GRPC (docs/design.md §6, §16) is a value a version-4 reader does not know:
 * logs that carry it are version 5, and a version-4 log holding one is refused.
 */
import { describe, expect, it } from 'vitest';
import { ReceiptChain } from '../../src/receipts/chain.js';
import { Keyring } from '../../src/receipts/keys.js';
import type { ReceiptLogVersion } from '../../src/receipts/types.js';
import { verifyReceiptLogBytes } from '../../src/receipts/verify.js';
import { CREATED_AT, fixedKey, suspensionDraftFor } from './fixtures.js';

const keyring = new Keyring([fixedKey('key-grpc')]);

/** A closed log of `version` with one suspension receipt made over gRPC. */
function grpcLog(version: ReceiptLogVersion): Uint8Array {
  const chain = new ReceiptChain({
    keyring,
    checkpointEvery: 10,
    recording: 'rec-test',
    createdAt: CREATED_AT,
    tool: 'a2a-replay@test',
    version,
  });
  const sealed = chain.sealSuspension({ ...suspensionDraftFor(0), binding: 'GRPC' });
  const lines = [chain.header.text, sealed.receipt.text, chain.close(null)?.text ?? ''];
  return Buffer.from(lines.filter((l) => l !== '').join('\n') + '\n');
}

describe('receipts of gRPC calls', () => {
  it('verifies a version-5 log whose receipt names binding GRPC', () => {
    expect(verifyReceiptLogBytes(grpcLog(5), { keyring })).toMatchObject({ ok: true, version: 5 });
  });

  it('refuses binding GRPC in a version-4 log, naming the line', () => {
    expect(verifyReceiptLogBytes(grpcLog(4), { keyring }).firstError).toMatchObject({
      line: 2,
      reason: 'malformed_line',
      message: expect.stringContaining('binding GRPC in a version-4 log') as unknown,
    });
  });
});
