/**
 * @module intercept/flights
 * The exchanges a recording proxy has in flight, so that closing it can wait for them (an answer
 * still awaited for a drain bound, an open stream for a grace period) and then cut the rest (each
 * recorded as an `error` entry by its abort).
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
  /**
   * The answer is a stream (SSE, a gRPC server stream) whose head has come: it may stay open for
   * hours, so a stop gives it the grace period, not the drain bound of an answer still awaited.
   */
  streaming = false;

  constructor(abort: (reason: string) => void) {
    this.abort = abort;
  }
}

export class Flights {
  #head: Flight | undefined;
  #size = 0;
  /** While {@link settled} waits: checks whether it may resolve. */
  #check: (() => void) | undefined;

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
    this.#check?.();
  }

  /** `flight`'s answer is a stream whose head has come (see {@link Flight.streaming}). */
  streaming(flight: Flight): void {
    flight.streaming = true;
    this.#check?.();
  }

  /** How many exchanges in flight are open streams ({@link streaming}). */
  get streams(): number {
    let count = 0;
    for (let flight = this.#head; flight !== undefined; flight = flight.next) if (flight.streaming) count += 1;
    return count;
  }

  /**
   * Resolves once no exchange is in flight; or once `graceMs` have passed and only open streams
   * are left; or after `drainMs` (at least `graceMs`), whichever comes first: an answer still
   * awaited (a `finish_step` pause) is read for up to `drainMs`, an open stream for `graceMs`.
   */
  settled(graceMs: number, drainMs = graceMs): Promise<void> {
    if (this.#size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let graceOver = false;
      const done = (): void => {
        clearTimeout(graceTimer);
        clearTimeout(drainTimer);
        this.#check = undefined;
        resolve();
      };
      const graceTimer = setTimeout(() => {
        graceOver = true;
        this.#check?.();
      }, graceMs);
      const drainTimer = setTimeout(done, Math.max(graceMs, drainMs));
      this.#check = () => {
        if (this.#size === 0 || (graceOver && this.streams === this.#size)) done();
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
