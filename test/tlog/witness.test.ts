/**
 * C2SP tlog-witness between the log's client (src/tlog/witness-client.ts) and a witness written
 * from the spec (test/tlog/test-witness.ts) over HTTP on 127.0.0.1: cosignatures checked with the
 * witness's verifier key, 409 followed from the witness's size, forks told as forks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogTree, logOrigin, noteKeyName } from '../../src/receipts/log-tree.js';
import { checkCosignatures, parseCosignerKey } from '../../src/tlog/cosignature.js';
import { consistencyProof, leafHash } from '../../src/tlog/merkle.js';
import { parseNote } from '../../src/tlog/note.js';
import { type WitnessOutcome, addCheckpoint } from '../../src/tlog/witness-client.js';
import { httpWitnessPost } from '../../src/tlog/witness-http.js';
import { fixedKey } from '../receipts/fixtures.js';
import { type TestWitness, startTestWitness } from './test-witness.js';

const key = fixedKey('wlog', 'wlog');
const stranger = fixedKey('wlog', 'another seed');
const origin = logOrigin('wlog', 'rec-witness', 'sha256:' + '0'.repeat(64));
const post = httpWitnessPost();

/** A log of `lines` (their texts): its leaves and its note at its full size. */
function logOf(lines: string[], signer = key): { leaves: Buffer[]; note: string; size: number } {
  const tree = new LogTree();
  for (const line of lines) tree.addLine(line);
  return { leaves: lines.map((l) => leafHash(l)), note: tree.note(origin, signer), size: lines.length };
}

function lines(n: number, tag = 'x'): string[] {
  return Array.from({ length: n }, (_, i) => `{"line":${i},"tag":"${tag}"}`);
}

let witness: TestWitness;

beforeEach(async () => {
  witness = await startTestWitness('witness.test/w1', [
    {
      originPrefix: `${noteKeyName('wlog')}/`,
      name: noteKeyName('wlog'),
      publicKey: Buffer.from(key.ed25519PublicKey()!),
    },
  ]);
});

afterEach(async () => {
  await witness.close();
});

function submit(log: ReturnType<typeof logOf>, knownSize: number): Promise<WitnessOutcome> {
  return addCheckpoint({
    url: witness.url,
    witness: parseCosignerKey(witness.vkey),
    checkpoint: log.note,
    size: log.size,
    knownSize,
    proofFrom: (old) => consistencyProof(log.leaves, old, log.size),
    post,
  });
}

describe('add-checkpoint', () => {
  it('gets a cosignature/v1 line that verifies with the witness key over the checkpoint text', async () => {
    const log = logOf(lines(5));
    const outcome = await submit(log, 0);
    expect(outcome.kind).toBe('cosigned');
    if (outcome.kind !== 'cosigned') return;
    const cosigned = parseNote(`${log.note}${outcome.cosignature.line}\n`);
    const check = checkCosignatures(cosigned.text, cosigned.signatures, [parseCosignerKey(witness.vkey)]);
    expect(check.valid.map((c) => c.witness)).toEqual(['witness.test/w1']);
    expect(check.valid[0]!.timestamp).toBeGreaterThan(0);
    // The same line over another checkpoint text does not verify.
    const other = parseNote(`${logOf(lines(6)).note}${outcome.cosignature.line}\n`);
    expect(checkCosignatures(other.text, other.signatures, [parseCosignerKey(witness.vkey)]).invalid).toEqual([
      'witness.test/w1',
    ]);
    expect(witness.state.get(origin)?.size).toBe(5);
  });

  it('grows the witnessed tree with a consistency proof from the size it cosigned', async () => {
    expect((await submit(logOf(lines(5)), 0)).kind).toBe('cosigned');
    expect((await submit(logOf(lines(13)), 5)).kind).toBe('cosigned');
    expect(witness.answers.map((a) => [a.old, a.status])).toEqual([
      [0, 200],
      [5, 200],
    ]);
    expect(witness.state.get(origin)?.size).toBe(13);
  });

  it('follows a 409 to the size the witness holds and proves consistency from there', async () => {
    expect((await submit(logOf(lines(5)), 0)).kind).toBe('cosigned');
    // A client that lost track of the witness's size starts from 0.
    expect((await submit(logOf(lines(9)), 0)).kind).toBe('cosigned');
    expect(witness.answers.map((a) => [a.old, a.status])).toEqual([
      [0, 200],
      [0, 409],
      [5, 200],
    ]);
  });

  it('resubmits at the size the witness holds and is cosigned again for the same root', async () => {
    expect((await submit(logOf(lines(5)), 0)).kind).toBe('cosigned');
    expect((await submit(logOf(lines(5)), 0)).kind).toBe('cosigned');
    expect(witness.answers.map((a) => a.status)).toEqual([200, 409, 200]);
  });

  it('tells a fork when the witness cosigned another tree of the same size for the origin', async () => {
    expect((await submit(logOf(lines(5, 'a')), 0)).kind).toBe('cosigned');
    const outcome = await submit(logOf(lines(5, 'b')), 0);
    expect(outcome).toMatchObject({ kind: 'fork', size: 5, witnessSize: 5 });
    expect(witness.answers.map((a) => [a.old, a.status])).toEqual([
      [0, 200],
      [0, 409],
      [5, 409],
    ]);
    expect(witness.state.get(origin)?.size).toBe(5);
  });

  it('tells a fork when a larger tree does not extend the one the witness cosigned (422)', async () => {
    expect((await submit(logOf(lines(5, 'a')), 0)).kind).toBe('cosigned');
    const rewritten = logOf([...lines(5, 'b'), ...lines(3, 'c')]);
    const outcome = await submit(rewritten, 5);
    expect(outcome.kind).toBe('fork');
    if (outcome.kind === 'fork') expect(outcome.message).toMatch(/first 5 lines are not the ones the witness cosigned/);
    expect(witness.answers.at(-1)?.status).toBe(422);
  });

  it('is refused (403) for a checkpoint no trusted key signed, and (404) for an unknown origin', async () => {
    expect(await submit(logOf(lines(3), stranger), 0)).toMatchObject({ kind: 'refused', status: 403 });
    const tree = new LogTree();
    tree.addLine('x');
    const foreign = tree.note('example.com/other-log', key);
    const outcome = await addCheckpoint({
      url: witness.url,
      witness: parseCosignerKey(witness.vkey),
      checkpoint: foreign,
      size: 1,
      knownSize: 0,
      proofFrom: () => [],
      post,
    });
    expect(outcome).toMatchObject({ kind: 'refused', status: 404 });
    expect(witness.state.size).toBe(0);
  });

  it('does not take a 200 whose line is not signed by the witness key given', async () => {
    const other = await startTestWitness('witness.test/w1', []);
    try {
      const outcome = await addCheckpoint({
        url: witness.url,
        witness: parseCosignerKey(other.vkey),
        checkpoint: logOf(lines(4)).note,
        size: 4,
        knownSize: 0,
        proofFrom: () => [],
        post,
      });
      expect(outcome.kind).toBe('unreachable');
      if (outcome.kind === 'unreachable') expect(outcome.message).toMatch(/answered 200, but no line is signed by/);
    } finally {
      await other.close();
    }
  });

  it('says unreachable when nothing listens', async () => {
    const url = witness.url;
    await witness.close();
    const outcome = await addCheckpoint({
      url,
      witness: parseCosignerKey(witness.vkey),
      checkpoint: logOf(lines(2)).note,
      size: 2,
      knownSize: 0,
      proofFrom: () => [],
      post,
    });
    expect(outcome.kind).toBe('unreachable');
    witness = await startTestWitness('witness.test/w1', []);
  });
});
