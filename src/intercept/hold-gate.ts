/**
 * @module intercept/hold-gate
 * The order of an answer's writes while some wait on a hold (docs/design.md §5): a write released
 * with a hold waits for it and for every write released before it; a write with no hold and
 * nothing waiting goes at once. While anything waits, or the client side needs a drain, the
 * upstream side is paused, so a held answer never buffers without bound. The last write of an
 * answer whose upstream side has ended pauses nothing: there is nothing left to read.
 */
import type { Readable, Writable } from 'node:stream';

export interface HoldGate {
  /**
   * Runs `action` once `hold` and every action released before it have settled. `ended`: the
   * upstream side has ended, so it is neither paused while `action` waits nor resumed after.
   */
  readonly release: (action: () => void, hold: Promise<void> | undefined, ended?: boolean) => void;
  /** Writes `chunk` to the client side (none once it is closed), pausing the upstream side until it drains. */
  readonly write: (chunk: Buffer) => void;
}

export function holdGate(from: Readable, to: Writable): HoldGate {
  // The chain of released writes still waiting on a hold; undefined when nothing waits.
  let gate: Promise<void> | undefined;
  return {
    release: (action, hold, ended = false) => {
      if (gate === undefined && hold === undefined) {
        action();
        return;
      }
      if (!ended) from.pause();
      // Holds never reject (Exchange.takeHold); with nothing waiting the action follows its hold alone.
      const next = gate === undefined ? (hold as Promise<void>).then(action) : gate.then(() => hold).then(action);
      gate = next;
      void next.then(() => {
        if (gate !== next) return;
        gate = undefined;
        if (!ended && !to.writableNeedDrain) from.resume();
      });
    },
    write: (chunk) => {
      if (to.destroyed || to.closed) return;
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => {
          if (gate === undefined) from.resume();
        });
      }
    },
  };
}
