/**
 * @module ids
 * Injected identifiers. The core asks an {@link IdSource}; this module is the one place that
 * wraps `randomUUID()`.
 */
import { randomUUID } from 'node:crypto';
import { sha256Hex } from './digest.js';

export interface IdSource {
  /** A fresh identifier; `kind` (e.g. "task", "ctx", "suspend") becomes its prefix. */
  next(kind: string): string;
}

/** Random v4 UUIDs, for peers and recorders running in real time. */
export const randomIdSource: IdSource = { next: (kind) => `${kind}-${randomUUID()}` };

/**
 * A seeded counter: `kind-<8 hex of sha256(seed:kind:n)>-<n>`. The same seed gives the same
 * sequence, so deterministic runs replay to identical ids and tokens.
 */
export class CounterIdSource implements IdSource {
  readonly #seed: string;
  readonly #counters = new Map<string, number>();

  constructor(seed: number | string = 0) {
    this.#seed = String(seed);
  }

  next(kind: string): string {
    const n = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, n);
    const salt = sha256Hex(`${this.#seed}:${kind}:${n}`).slice(0, 8);
    return `${kind}-${salt}-${String(n).padStart(4, '0')}`;
  }
}
