/**
 * @module receipts/log-tree
 * The Merkle tree of a receipt log and the C2SP checkpoint note each version-4 checkpoint
 * carries (docs/design.md §6, "Merkle checkpoints"). The leaves are the log's lines before the
 * checkpoint, as written (UTF-8, no newline); the note's origin names the log, its key name the
 * signing key, so a verifier key (`keygen --vkey`) serves every log that key signs.
 */
import { checkpointText, parseCheckpointText } from '../tlog/checkpoint.js';
import { MerkleFrontier, leafHash } from '../tlog/merkle.js';
import { type NoteVerifier, noteKeyId, openNote, signNote, verifierKey } from '../tlog/note.js';
import { A2aReplayError } from '../errors.js';
import type { ReceiptKey } from './keys.js';

/** The signed-note key name of a kid's Ed25519 key. */
export function noteKeyName(kid: string): string {
  return `a2a-replay/${kid}`;
}

const ORIGIN_PART = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The name a log goes by in origins: its recording id, or `log-<16 hex of its header line's hash>`
 * for a recording id that is absent or holds characters an origin should not (a space, a `+`, a
 * newline). The first log's name is its series' id (docs/design.md §6, "Series").
 */
export function logName(recording: string | null, headerHash: string): string {
  return recording !== null && ORIGIN_PART.test(recording) ? recording : `log-${headerHash.slice(7, 23)}`;
}

/**
 * A log's origin: `a2a-replay/<kid>/<name>` ({@link logName}), and for a log that continues a series
 * `a2a-replay/<kid>/<series id>/<position>`. Two logs never share an origin, so one key never signs
 * two inconsistent trees under one name.
 */
export function logOrigin(
  kid: string,
  recording: string | null,
  headerHash: string,
  series: { id: string; position: number } | null = null,
): string {
  if (series !== null) return `${noteKeyName(kid)}/${series.id}/${series.position}`;
  return `${noteKeyName(kid)}/${logName(recording, headerHash)}`;
}

/** The note verifier of a receipt key's Ed25519 half; throws when the key has none. */
export function noteVerifierOf(key: ReceiptKey): NoteVerifier {
  const publicKey = key.ed25519PublicKey();
  if (!publicKey)
    throw new A2aReplayError(
      'INVALID_ARGUMENT',
      `key ${key.kid} holds no Ed25519 public key: it cannot check checkpoint notes`,
    );
  const name = noteKeyName(key.kid);
  return { name, id: noteKeyId(name, publicKey), publicKey: Buffer.from(publicKey) };
}

/** The verifier key string of a key's Ed25519 public half, or null without one. */
export function keyVerifierKey(key: ReceiptKey): string | null {
  const publicKey = key.ed25519PublicKey();
  return publicKey ? verifierKey(noteKeyName(key.kid), publicKey) : null;
}

/** The running tree of a log's lines. */
export class LogTree {
  readonly #frontier: MerkleFrontier;

  constructor(frontier = new MerkleFrontier()) {
    this.#frontier = frontier;
  }

  /** An independent copy (a verifier's fork). */
  clone(): LogTree {
    return new LogTree(this.#frontier.clone());
  }

  /** Adds a line as written (without its newline). */
  addLine(text: string): void {
    this.#frontier.append(leafHash(text));
  }

  /** Adds a line by its leaf hash (computed elsewhere, e.g. on a worker thread). */
  addLeaf(leaf: Uint8Array): void {
    this.#frontier.append(leaf);
  }

  get size(): number {
    return this.#frontier.size;
  }

  /** The checkpoint note of the tree so far, signed with `key`'s Ed25519 secret. */
  note(origin: string, key: ReceiptKey): string {
    const text = checkpointText({ origin, size: this.#frontier.size, root: this.#frontier.root(), extensions: [] });
    const publicKey = key.ed25519PublicKey()!;
    return signNote(text, noteKeyName(key.kid), publicKey, (data) => key.signEd25519(data));
  }

  /**
   * Why `note` is not this tree's checkpoint note under `origin`, signed by `key`; null when it is.
   */
  checkNote(note: string, origin: string, key: ReceiptKey): string | null {
    if (!key.hasEd25519Public) return `key ${key.kid} holds no Ed25519 public key to check the note with`;
    let text: string;
    try {
      text = openNote(note, [noteVerifierOf(key)]).text;
    } catch (error) {
      return `the checkpoint note: ${(error as Error).message}`;
    }
    let body;
    try {
      body = parseCheckpointText(text);
    } catch (error) {
      return `the checkpoint note: ${(error as Error).message}`;
    }
    if (body.origin !== origin) return `the checkpoint note names origin ${body.origin}, but this log's is ${origin}`;
    if (body.size !== this.#frontier.size)
      return `the checkpoint note commits to ${body.size} lines, but ${this.#frontier.size} precede it`;
    if (!body.root.equals(this.#frontier.root()))
      return `the checkpoint note's Merkle root is not the root of the ${body.size} lines before it`;
    return null;
  }
}
