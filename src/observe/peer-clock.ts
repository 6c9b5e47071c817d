/**
 * @module observe/peer-clock
 * An estimate of the peer's clock, from recording entries only (so record and replay agree).
 * Peers may run a virtual clock (docs/design.md §4) that has nothing to do with the recorder's, so the
 * estimate is the recorder's `at` plus an offset that ratchets up to the latest instant the peer
 * reported (`pausedAt`, `resumedAt`, status timestamps, a control call's `now`).
 */

export class PeerClock {
  #offsetMs: number | undefined;
  #latestMs = Number.NEGATIVE_INFINITY;
  /** The peer's and the entry's time read last: an entry reports several times, a poll the same one again. */
  readonly #peerText = new LastParsed();
  readonly #entryText = new LastParsed();

  /** The peer said it was `peerIso` when the recorder's clock read `entryAt`. */
  report(peerIso: string, entryAt: string): void {
    const peer = this.#peerText.parse(peerIso);
    const at = this.#entryText.parse(entryAt);
    if (Number.isNaN(peer)) return;
    if (peer > this.#latestMs) this.#latestMs = peer;
    if (Number.isNaN(at)) return;
    const offset = peer - at;
    if (this.#offsetMs === undefined || offset > this.#offsetMs) this.#offsetMs = offset;
  }

  /** The latest instant the peer itself reported (ms since the epoch), or NaN before any report. */
  get latestMs(): number {
    return this.#latestMs === Number.NEGATIVE_INFINITY ? Number.NaN : this.#latestMs;
  }

  /** The peer's time when the recorder's clock read `entryAt` (ms since the epoch), or NaN before any report. */
  nowAt(entryAt: string): number {
    const at = this.#entryText.parse(entryAt);
    const shifted = this.#offsetMs === undefined || Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at + this.#offsetMs;
    const now = Math.max(shifted, this.#latestMs);
    return now === Number.NEGATIVE_INFINITY ? Number.NaN : now;
  }
}

/** `Date.parse` of a text, the last text's result kept: the same text reads the same instant. */
class LastParsed {
  #text: string | undefined;
  #ms = Number.NaN;

  parse(text: string): number {
    if (text !== this.#text) {
      this.#ms = Date.parse(text);
      this.#text = text;
    }
    return this.#ms;
  }
}
