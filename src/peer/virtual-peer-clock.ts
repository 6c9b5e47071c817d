/**
 * @module peer/virtual-peer-clock
 * The clock of a reference peer that its owner moves (`run`'s replay of a real-time session,
 * docs/design.md §8): moves of the virtual clock, and the count of requests the peer has taken, so
 * a move never overtakes a request sent before it.
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import { MAX_CLOCK_MS } from '../protocol/bounds.js';
import type { RequestHandler } from './request-handler.js';
import type { VirtualScheduler } from './scheduler.js';

/** A peer's virtual clock as its owner moves it (`run`'s replay of a real-time session). */
export interface VirtualPeerClock {
  /** Where the clock stands (ms since the epoch). */
  now(): number;
  /**
   * Moves the clock to `instantMs` as AdvanceClock does, firing due timers at their instants and
   * sending the answers they let happen; an instant already passed moves nothing. One move at a time.
   */
  advanceTo(instantMs: number): Promise<void>;
  /** The instant of the earliest pending timer, if any: when something next happens on its own. */
  nextTimerAt(): number | undefined;
  /**
   * Resolves once the peer has taken `count` HTTP requests in all (each read in full and handed
   * to its handler), so a move of the clock never overtakes a request sent before it.
   */
  received(count: number): Promise<void>;
  /** How many HTTP requests the peer has taken so far. */
  taken(): number;
  /** How many answers the peer has written in full so far. */
  answered(): number;
}

/**
 * Counts the HTTP requests a peer has taken, for {@link VirtualPeerClock.received}: a request
 * counts once its call is handed to the handler (the handler's synchronous start and the
 * promises it set off have run: the next turn of the event loop), or once it is answered
 * without one; each once.
 */
export class Intake {
  #taken = 0;
  /** Answers written in full. */
  answered = 0;
  #waiters: { count: number; resolve: () => void }[] = [];
  readonly #counted = new WeakSet<IncomingMessage>();

  /** Requests taken so far. */
  get count(): number {
    return this.#taken;
  }

  /** A request arrived: it counts when taken, or at the latest when its answer is done. */
  arrived(req: IncomingMessage, res: Parameters<RequestListener>[1]): void {
    res.once('finish', () => (this.answered += 1));
    const done = (): void => {
      if (this.#counted.has(req)) return;
      this.#counted.add(req);
      this.#took();
    };
    res.once('finish', done);
    res.once('close', done);
  }

  /** `req`'s call goes to the handler now. */
  taken(req: IncomingMessage): void {
    if (this.#counted.has(req)) return;
    this.#counted.add(req);
    setImmediate(() => this.#took());
  }

  received(count: number): Promise<void> {
    if (this.#taken >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  #took(): void {
    this.#taken += 1;
    const due = this.#waiters.filter((w) => w.count <= this.#taken);
    if (due.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => w.count > this.#taken);
    for (const w of due) w.resolve();
  }
}

/** {@link RunningPeer.virtualClock} over `scheduler`: each move measured when the one before it is done. */
export function virtualPeerClock(
  handler: RequestHandler,
  scheduler: VirtualScheduler,
  intake: Intake,
): VirtualPeerClock {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    now: () => scheduler.clock.now(),
    nextTimerAt: () => scheduler.nextAt(),
    taken: () => intake.count,
    answered: () => intake.answered,
    received: (count) => intake.received(count),
    advanceTo(instantMs) {
      const move = queue.then(async () => {
        const ms = Math.min(instantMs, MAX_CLOCK_MS) - scheduler.clock.now();
        if (ms > 0) await handler.advanceClock(scheduler, ms);
      });
      queue = move.catch(() => undefined);
      return move;
    },
  };
}
