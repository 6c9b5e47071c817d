/**
 * @module intercept/flights
 * The exchanges a recording proxy has in flight, so that closing it can wait for them for a
 * grace period and then cut the rest (each recorded as an `error` entry by its abort).
 *
 * They are kept in a doubly linked list, not a `Set` (docs/design.md §5, "How the recording writer
 * keeps this cheap"): every exchange is added and removed once, and a `Set` with that churn keeps
 * reallocating its table, in old space once the set is old. A table left behind still points at
 * the flights it held, and a flight's abort closes over its whole exchange (both requests, both
 * responses, their sockets' buffers): the young-generation collector counts pointers from dead
 * old objects as roots, so every exchange a replaced table named survived into old space. With a
 * `Set` here the recording proxy promoted about 1.1 MB a scavenge at GetTask load, and none
 * without it (`node --trace-gc-nvp`); a removed list node drops its links, so nothing old points
 * at a finished exchange.
 */

/** One forwarded exchange in flight: its place in {@link Flights}. */
export class Flight {
  /** Ends the exchange now: records why, and destroys both sides. */
  readonly abort: (reason: string) => void;
  /** @internal the neighbours in the list while linked. */
  prev: Flight | undefined;
  /** @internal */
  next: Flight | undefined;
  /** @internal */
  linked = false;

  constructor(abort: (reason: string) => void) {
    this.abort = abort;
  }
}

export class Flights {
  #head: Flight | undefined;
  #size = 0;
  #idle: (() => void) | undefined;

  get size(): number {
    return this.#size;
  }

  /** An exchange starts; `abort` ends it early. Returns its flight, for {@link delete}. */
  add(abort: (reason: string) => void): Flight {
    const flight = new Flight(abort);
    flight.next = this.#head;
    if (this.#head !== undefined) this.#head.prev = flight;
    this.#head = flight;
    flight.linked = true;
    this.#size += 1;
    return flight;
  }

  /** `flight` ended (a second call does nothing); wakes {@link settled} when it was the last. */
  delete(flight: Flight): void {
    if (!flight.linked) return;
    if (flight.prev === undefined) this.#head = flight.next;
    else flight.prev.next = flight.next;
    if (flight.next !== undefined) flight.next.prev = flight.prev;
    flight.prev = undefined;
    flight.next = undefined;
    flight.linked = false;
    this.#size -= 1;
    if (this.#size === 0) this.#idle?.();
  }

  /** Resolves once no exchange is in flight, or after `graceMs`, whichever comes first. */
  settled(graceMs: number): Promise<void> {
    if (this.#size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.#idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Aborts every exchange still in flight, in the order they started. */
  abortAll(reason: string): void {
    const open: Flight[] = [];
    for (let flight = this.#head; flight !== undefined; flight = flight.next) open.push(flight);
    for (const flight of open.reverse()) flight.abort(reason);
  }
}
