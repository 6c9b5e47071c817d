/**
 * @module tlog/merkle
 * RFC 6962 / RFC 9162 Merkle trees over a receipt log's lines (docs/design.md §6, "Merkle
 * checkpoints"): leaf and node hashes, the running root of a growing log, inclusion and
 * consistency proofs and their verification. Hashes are 32-byte SHA-256 digests.
 *
 * Proofs are made from the leaf hashes of the whole tree (a log's lines, hashed as they are
 * read): a subtree's root is computed when a proof needs it, so a proof costs O(n) hashing and
 * nothing is kept beyond the leaf hashes.
 */
import { createHash } from 'node:crypto';

export const HASH_BYTES = 32;
const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** `SHA-256(0x00 ‖ data)`: a leaf; a string is hashed as its UTF-8 bytes. */
export function leafHash(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

/** `SHA-256(0x01 ‖ left ‖ right)`: an interior node. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** The root of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

/** The largest power of two smaller than `n` (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The root of a tree that grows one leaf at a time, keeping one hash per set bit of its size
 * (the "compact range" of the tree's left edge). Appending is amortised one node hash.
 */
export class MerkleFrontier {
  /** Roots of the perfect subtrees the size decomposes into, largest first. */
  readonly #stack: Buffer[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** An independent copy. */
  clone(): MerkleFrontier {
    const copy = new MerkleFrontier();
    copy.#stack.push(...this.#stack);
    copy.#size = this.#size;
    return copy;
  }

  append(leaf: Uint8Array): void {
    let hash: Buffer = Buffer.from(leaf);
    let size = this.#size;
    // Each trailing one bit of the old size is a full subtree of the same height: merge.
    while (size & 1) {
      hash = nodeHash(this.#stack.pop()!, hash);
      size = Math.floor(size / 2);
    }
    this.#stack.push(hash);
    this.#size++;
  }

  /** The RFC 6962 root of the leaves appended so far. */
  root(): Buffer {
    if (this.#stack.length === 0) return Buffer.from(EMPTY_ROOT);
    let hash = this.#stack[this.#stack.length - 1]!;
    for (let i = this.#stack.length - 2; i >= 0; i--) hash = nodeHash(this.#stack[i]!, hash);
    return hash;
  }
}

/** MTH(D[start:end]) of RFC 6962 §2.1, from leaf hashes. */
export function rootOf(leaves: readonly Uint8Array[], start = 0, end = leaves.length): Buffer {
  const n = end - start;
  if (n === 0) return Buffer.from(EMPTY_ROOT);
  if (n === 1) return Buffer.from(leaves[start]!);
  const k = split(n);
  return nodeHash(rootOf(leaves, start, start + k), rootOf(leaves, start + k, end));
}

function assertSize(what: string, value: number, most: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > most)
    throw new RangeError(`${what}: expected an integer from 0 to ${most}, got ${value}`);
}

/** PATH(index, D[0:size]) of RFC 6962 §2.1.1: the audit path of one leaf, leaf's sibling first. */
export function inclusionProof(leaves: readonly Uint8Array[], index: number, size = leaves.length): Buffer[] {
  assertSize('size', size, leaves.length);
  if (size === 0) throw new RangeError('no inclusion proof in an empty tree');
  assertSize('index', index, size - 1);
  const path: Buffer[] = [];
  const walk = (m: number, start: number, end: number): void => {
    const n = end - start;
    if (n === 1) return;
    const k = split(n);
    if (m < k) {
      walk(m, start, start + k);
      path.push(rootOf(leaves, start + k, end));
    } else {
      walk(m - k, start + k, end);
      path.push(rootOf(leaves, start, start + k));
    }
  };
  walk(index, 0, size);
  return path;
}

/** PROOF(first, D[0:second]) of RFC 6962 §2.1.2: that the tree of `second` leaves extends the first. */
export function consistencyProof(leaves: readonly Uint8Array[], first: number, second = leaves.length): Buffer[] {
  assertSize('second', second, leaves.length);
  assertSize('first', first, second);
  const proof: Buffer[] = [];
  if (first === 0 || first === second) return proof;
  const sub = (m: number, start: number, end: number, whole: boolean): void => {
    const n = end - start;
    if (m === n) {
      if (!whole) proof.push(rootOf(leaves, start, end));
      return;
    }
    const k = split(n);
    if (m <= k) {
      sub(m, start, start + k, whole);
      proof.push(rootOf(leaves, start + k, end));
    } else {
      sub(m - k, start + k, end, false);
      proof.push(rootOf(leaves, start, start + k));
    }
  };
  sub(first, 0, second, true);
  return proof;
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}

/** Shifts `fn` and `sn` right together until `fn`'s low bit is set or `fn` is 0. */
function shiftToSetBit(fn: number, sn: number): [number, number] {
  while (fn !== 0 && fn % 2 === 0) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return [fn, sn];
}

/** RFC 9162 §2.1.3.2: true when `proof` shows `leaf` at `index` in the tree of `size` with `root`. */
export function verifyInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (p.length !== HASH_BYTES || sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) [fn, sn] = shiftToSetBit(fn, sn);
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2: true when `proof` shows the tree of `second` leaves extends that of `first`. */
export function verifyConsistency(
  first: number,
  second: number,
  proof: readonly Uint8Array[],
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second) return false;
  if (first === second) return proof.length === 0 && Buffer.from(firstRoot).equals(secondRoot);
  // Every tree extends the empty one; there is nothing to prove.
  if (first === 0) return proof.length === 0;
  if (proof.length === 0 || proof.some((p) => p.length !== HASH_BYTES)) return false;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  if (fn % 2 === 1) {
    while (fn % 2 === 1) {
      fn = Math.floor(fn / 2);
      sn = Math.floor(sn / 2);
    }
  }
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) [fn, sn] = shiftToSetBit(fn, sn);
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(firstRoot) && sr.equals(secondRoot);
}
