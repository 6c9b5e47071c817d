/**
 * @module intercept/hold-gate
 * The order of an answer's writes while some wait on a hold (docs/design.md §5): a write released
 * with a hold waits for it and for every write released before it; a write with no hold and
 * nothing waiting goes at once. While anything waits, or the client side needs a drain, the
 * upstream side is paused, so a held answer never buffers without bound. The last write of an
 * answer whose upstream side has ended pauses nothing: there is nothing left to read.
 *
 * A hold that settles to a refusal (its receipt could not be made durable, docs/design.md §5, "A
 * full disk") refuses the answer: that write and every one released after it are told why
 * instead of writing, and the upstream side is still read to its end.
 */
import type { Readable, Writable } from 'node:stream';

/**
 * What a write waits for: settles to nothing once the receipts it waits for are durable, or to
 * why they could not be made so, a string (the answer is then refused). Never rejects.
 */
export type Hold = Promise<string | void>;

/** A released write: `refusal` is undefined when it may go out, else why the answer is refused. */
export type HeldAction = (refusal: string | undefined) => void;

export interface HoldGate {
  /**
   * Runs `action` once `hold` and every action released before it have settled, with the first
   * refusal any of their holds settled to. `ended`: the upstream side has ended, so it is neither
   * paused while `action` waits nor resumed after.
   */
  readonly release: (action: HeldAction, hold: Hold | undefined, ended?: boolean) => void;
  /** Writes `chunk` to the client side (none once it is closed), pausing the upstream side until it drains. */
  readonly write: (chunk: Buffer) => void;
}

export function holdGate(from: Readable, to: Writable): HoldGate {
  // The chain of released writes still waiting on a hold; undefined when nothing waits.
  let gate: Promise<void> | undefined;
  // The first refusal: every write released after it is refused too.
  let refused: string | undefined;
  const run =
    (action: HeldAction) =>
    (refusal: string | void): void => {
      if (typeof refusal === 'string') refused ??= refusal;
      action(refused);
    };
  return {
    release: (action, hold, ended = false) => {
      if (gate === undefined && hold === undefined) {
        action(refused);
        return;
      }
      if (!ended) from.pause();
      // Holds never reject (Exchange.takeHold); with nothing waiting the action follows its hold alone.
      const next = gate === undefined ? (hold as Hold).then(run(action)) : gate.then(() => hold).then(run(action));
      gate = next;
      void next.then(() => {
        if (gate !== next) return;
        gate = undefined;
        if (!ended && (refused !== undefined || !to.writableNeedDrain)) from.resume();
      });
    },
    write: (chunk) => {
      if (to.destroyed || to.closed || refused !== undefined) return;
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => {
          if (gate === undefined) from.resume();
        });
      }
    },
  };
}
