/**
 * @module recording/redaction-mark
 * The keyed redaction mark (docs/design.md §5, "Redaction marks"): a secret value is written as
 * `[redacted hmac:<16 hex>]`, the first 64 bits of HMAC-SHA256(markKey, UTF-8(value)). The mark
 * key belongs to one recording and never reaches a file: equal values inside one recording get
 * equal marks (replay and the mock pair them as they pair tokens), and without the key no guess
 * can be hashed into a mark. This module is the one place that draws a fresh key at random.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { BoundedMap } from '../bounded-map.js';

/** Bytes of a mark key (HMAC-SHA256's output size). */
export const MARK_KEY_BYTES = 32;

/** What every mark starts with; replay leaves a recorded header holding one out of what it sends. */
export const REDACTION_MARK_PREFIX = '[redacted ';

/** A mark as written: `[redacted hmac:<16 lower-case hex>]`. */
const MARK = /\[redacted hmac:[0-9a-f]{16}\]/;
/** A whole value that is a mark. */
const WHOLE_MARK = /^\[redacted (?:hmac:[0-9a-f]{16}|sha256:[0-9a-f]{8})\]$/;
/** A mark, also percent-encoded as it stands in a URL (`%5Bredacted%20hmac%3A…%5D`). */
const MARK_ANY_FORM = /\[redacted hmac:[0-9a-f]{16}\]|%5Bredacted%20hmac%3A[0-9a-f]{16}%5D/gi;

/** A fresh random mark key, for a recording made without a receipt key. */
export function randomMarkKey(): Uint8Array {
  return randomBytes(MARK_KEY_BYTES);
}

/** The label a mark key is derived under from another secret ({@link derivedMarkKey}). */
export const MARK_KEY_LABEL = 'a2a-replay redaction marks v1';

/**
 * The mark key of a recording made with a receipt key: `hmac` is that key's HMAC function, and the
 * mark key is its MAC of {@link MARK_KEY_LABEL}, so recorders sharing a key (a fleet, a
 * `--continue-from` series) mark equal values alike while the mark key itself is never written.
 */
export function derivedMarkKey(hmac: (data: string) => Uint8Array): Uint8Array {
  return Uint8Array.from(hmac(MARK_KEY_LABEL));
}

/** How many recent marks a {@link RedactionMarks} remembers (a client sends one credential with every request). */
const REMEMBERED_MARKS = 64;
/** Longer values are marked afresh each time, so the memory stays small. */
const REMEMBERED_VALUE_MAX_LENGTH = 4096;

/** Marks values under one recording's key. The key is held here only, never printed. */
export class RedactionMarks {
  readonly #key: Buffer;
  readonly #recent = new BoundedMap<string, string>(REMEMBERED_MARKS);

  constructor(key: Uint8Array) {
    if (key.byteLength < 16) throw new RangeError(`a mark key needs at least 16 bytes, not ${key.byteLength}`);
    this.#key = Buffer.from(key);
  }

  /** The mark of `value`: `[redacted hmac:<first 16 hex of HMAC-SHA256(key, value)>]`. */
  mark(value: string): string {
    // A mark already (a recorder in front of another, replay sending recorded marks) stays itself.
    if (value.startsWith(REDACTION_MARK_PREFIX) && WHOLE_MARK.test(value)) return value;
    let mark = this.#recent.get(value);
    if (mark !== undefined) return mark;
    mark = `[redacted hmac:${this.digest(value, 16)}]`;
    if (value.length <= REMEMBERED_VALUE_MAX_LENGTH) this.#recent.set(value, mark);
    return mark;
  }

  /** The first `hexDigits` hex digits of HMAC-SHA256(key, UTF-8(value)), for principals. */
  digest(value: string, hexDigits: number): string {
    return createHmac('sha256', this.#key).update(value, 'utf8').digest('hex').slice(0, hexDigits);
  }

  /** Never the key. */
  toJSON(): string {
    return 'RedactionMarks';
  }
}

/** True when `text` holds a redaction mark as written (not percent-encoded). */
export function holdsMark(text: string): boolean {
  return text.includes(REDACTION_MARK_PREFIX) && MARK.test(text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * True when a recorded string holding marks (as written or percent-encoded) stands for `live`:
 * the text around the marks is equal and each mark stands for any run of characters (a secret the
 * live side holds in its place, or the same mark when replay sent it). False when `recorded`
 * holds no mark.
 */
export function standsForLive(recorded: string, live: string): boolean {
  if (!recorded.includes('redacted')) return false;
  const parts = recorded.split(MARK_ANY_FORM);
  if (parts.length < 2) return false;
  return new RegExp(`^${parts.map(escapeRegExp).join('[\\s\\S]*?')}$`).test(live);
}
