/**
 * The Merkle, signed-note, checkpoint and tlog-proof code against published test values
 * (test/fixtures/tlog/README.md names their sources), and against itself over every small tree.
 */
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointText, formatTlogProof, parseCheckpointText, parseTlogProof } from '../../src/tlog/checkpoint.js';
import {
  MerkleFrontier,
  consistencyProof,
  inclusionProof,
  leafHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from '../../src/tlog/merkle.js';
import { openNote, parseNote, parseVerifierKey, signNote, verifierKey } from '../../src/tlog/note.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/tlog');
const vectors = JSON.parse(readFileSync(join(FIXTURES, 'rfc6962-vectors.json'), 'utf8')) as {
  leaves: string[];
  emptyRoot: string;
  roots: string[];
  inclusion: { index: number; size: number; path: string[] }[];
  consistency: { first: number; second: number; proof: string[] }[];
};
const note = JSON.parse(readFileSync(join(FIXTURES, 'sumdb-note.json'), 'utf8')) as {
  vkey: string;
  skey: string;
  text: string;
  note: string;
};
const hex = (h: string): Buffer => Buffer.from(h, 'hex');
const leaves = vectors.leaves.map((l) => leafHash(hex(l)));

describe('RFC 6962 Merkle trees', () => {
  it('gives the reference root of every prefix, by recursion and by the running frontier', () => {
    expect(rootOf([]).toString('hex')).toBe(vectors.emptyRoot);
    expect(new MerkleFrontier().root().toString('hex')).toBe(vectors.emptyRoot);
    const frontier = new MerkleFrontier();
    for (let n = 1; n <= leaves.length; n++) {
      frontier.append(leaves[n - 1]!);
      expect(rootOf(leaves.slice(0, n)).toString('hex')).toBe(vectors.roots[n - 1]);
      expect(frontier.root().toString('hex')).toBe(vectors.roots[n - 1]);
      expect(frontier.size).toBe(n);
    }
  });

  it('makes and verifies the reference inclusion proofs, and refuses a wrong index or leaf', () => {
    for (const v of vectors.inclusion) {
      const root = hex(vectors.roots[v.size - 1]!);
      expect(inclusionProof(leaves, v.index, v.size).map((h) => h.toString('hex'))).toEqual(v.path);
      const path = v.path.map(hex);
      expect(verifyInclusion(v.index, v.size, leaves[v.index]!, path, root)).toBe(true);
      expect(verifyInclusion(v.index === 0 ? 1 : v.index - 1, v.size, leaves[v.index]!, path, root)).toBe(false);
      expect(verifyInclusion(v.index, v.size, leaves[(v.index + 1) % v.size]!, path, root)).toBe(false);
      expect(verifyInclusion(v.index, v.size + 1, leaves[v.index]!, path, root)).toBe(false);
    }
  });

  it('makes and verifies the reference consistency proofs, and refuses another old root', () => {
    for (const v of vectors.consistency) {
      const [r1, r2] = [hex(vectors.roots[v.first - 1]!), hex(vectors.roots[v.second - 1]!)];
      expect(consistencyProof(leaves, v.first, v.second).map((h) => h.toString('hex'))).toEqual(v.proof);
      expect(verifyConsistency(v.first, v.second, v.proof.map(hex), r1, r2)).toBe(true);
      expect(verifyConsistency(v.first, v.second, v.proof.map(hex), hex(vectors.roots[0]!), r2)).toBe(false);
      expect(verifyConsistency(v.first, v.second, v.proof.slice(1).map(hex), r1, r2)).toBe(false);
    }
  });

  it('proves every leaf of every tree up to 33 leaves, and every prefix consistent', () => {
    const many = Array.from({ length: 33 }, (_, i) => leafHash(`line ${i}`));
    for (let size = 1; size <= many.length; size++) {
      const root = rootOf(many.slice(0, size));
      for (let i = 0; i < size; i++)
        expect(verifyInclusion(i, size, many[i]!, inclusionProof(many, i, size), root)).toBe(true);
      for (let first = 1; first <= size; first++) {
        const old = rootOf(many.slice(0, first));
        expect(verifyConsistency(first, size, consistencyProof(many, first, size), old, root)).toBe(true);
        if (first < size)
          expect(verifyConsistency(first, size, consistencyProof(many, first, size), root, root)).toBe(false);
      }
    }
  });
});

describe('C2SP signed notes', () => {
  // PRIVATE+KEY+<name>+<hash>+base64(0x01 ‖ seed); the base64 may hold '+' itself.
  const seed = Buffer.from(note.skey.split('+').slice(4).join('+'), 'base64').subarray(1);
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const verifier = parseVerifierKey(note.vkey);

  it('signs the published note byte for byte, and writes the published verifier key', () => {
    const signed = signNote(note.text, 'PeterNeumann', verifier.publicKey, (data) => sign(null, data, privateKey));
    expect(signed).toBe(note.note);
    expect(verifierKey('PeterNeumann', verifier.publicKey)).toBe(note.vkey);
  });

  it('opens the published note, and refuses a changed text or a note signed by no given key', () => {
    expect(openNote(note.note, [verifier])).toMatchObject({ text: note.text, verifiedBy: ['PeterNeumann'] });
    expect(() => openNote(note.note.replace('cryptography', 'cryptographY'), [verifier])).toThrow(/does not verify/);
    const other = parseVerifierKey(verifierKey('Other', verifier.publicKey));
    expect(() => openNote(note.note, [other])).toThrow(/signed by no key given/);
  });

  it("reads a verifier key whose base64 key holds a '+'", () => {
    for (let i = 0; ; i++) {
      const seedI = createHash('sha256').update(`seed ${i}`).digest();
      const pub = createPublicKey(
        createPrivateKey({
          key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seedI]),
          format: 'der',
          type: 'pkcs8',
        }),
      )
        .export({ format: 'der', type: 'spki' })
        .subarray(12);
      const vkey = verifierKey('example.com/log', pub);
      if (!vkey.split('+').slice(2).join('+').includes('+')) continue;
      expect(parseVerifierKey(vkey).publicKey.equals(pub)).toBe(true);
      return;
    }
  });

  it('refuses a mangled verifier key, naming the part', () => {
    expect(() => parseVerifierKey(note.vkey.replace('c74f20a3', 'c74f20a4'))).toThrow(/key hash does not match/);
    expect(() => parseVerifierKey('PeterNeumann+c74f20a3')).toThrow(/three parts/);
    expect(() => parseVerifierKey(note.vkey.replace('+ARpc', '+AhpF'))).toThrow(/Ed25519|hash/);
  });

  it('refuses a malformed note, naming what is wrong', () => {
    expect(() => parseNote('text\n— k AAAA\n')).toThrow(/no blank line/);
    expect(() => parseNote('text\n\n- k AAAAAA==\n')).toThrow(/signature line 1/);
    expect(() => parseNote('te\u0007xt\n\n— k AAAAAA==\n')).toThrow(/control character/);
  });
});

describe('C2SP checkpoints and tlog-proofs', () => {
  it('writes and reads a checkpoint text and refuses a malformed one', () => {
    const body = { origin: 'example.com/log', size: 8, root: hex(vectors.roots[7]!), extensions: [] };
    const text = checkpointText(body);
    expect(text).toBe(`example.com/log\n8\n${hex(vectors.roots[7]!).toString('base64')}\n`);
    expect(parseCheckpointText(text)).toEqual(body);
    expect(() => parseCheckpointText('example.com/log\n08\nAAAA\n')).toThrow(/size/);
    expect(() => parseCheckpointText('example.com/log\n8\nAAAA\n')).toThrow(/root/);
  });

  it('writes and reads a proof file, and names the line that is wrong', () => {
    const proof = { index: 5, path: vectors.inclusion[1]!.path.map(hex), checkpoint: note.note, extra: null };
    const text = formatTlogProof(proof);
    expect(text.split('\n').slice(0, 3)).toEqual([
      'c2sp.org/tlog-proof@v1',
      'index 5',
      proof.path[0]!.toString('base64'),
    ]);
    expect(parseTlogProof(text)).toEqual(proof);
    expect(() => parseTlogProof(text.replace('index 5', 'index 05'))).toThrow(/line 2: index/);
    expect(() => parseTlogProof(text.replace(proof.path[1]!.toString('base64'), 'AAAA'))).toThrow(/proof line 4/);
  });
});
