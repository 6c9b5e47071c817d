/**
 * @module intercept/flights
 * The exchanges a recording proxy has in flight, so that closing it can wait for them for a
 * grace period and then cut the rest (each recorded as an `error` entry by its abort).
 */

/** One forwarded exchange in flight. */
export interface Flight {
  /** Ends the exchange now: records why, and destroys both sides. */
  abort(reason: string): void;
}

/** The set of exchanges in flight. */
export class Flights {
  readonly #open = new Set<Flight>();
  #idle: (() => void) | undefined;

  get size(): number {
    return this.#open.size;
  }

  add(flight: Flight): void {
    this.#open.add(flight);
  }

  /** `flight` ended; wakes {@link settled} when it was the last. */
  delete(flight: Flight): void {
    this.#open.delete(flight);
    if (this.#open.size === 0) this.#idle?.();
  }

  /** Resolves once no exchange is in flight, or after `graceMs`, whichever comes first. */
  settled(graceMs: number): Promise<void> {
    if (this.#open.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.#idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Aborts every exchange still in flight. */
  abortAll(reason: string): void {
    for (const flight of [...this.#open]) flight.abort(reason);
  }
}
