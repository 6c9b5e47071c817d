/**
 * @module receipts/witness-submitter
 * Follows a receipt log as it becomes durable and submits each checkpoint note to witnesses
 * (C2SP tlog-witness, docs/design.md §6 "Witnesses"), in the background: nothing a client waits
 * for waits on a witness. It keeps the leaf hash of every line (32 bytes a line) to prove any
 * checkpoint consistent with the size a witness last cosigned. Per witness, only the latest
 * checkpoint is pending: a cosignature on it covers the trees before it. A witness that cannot be
 * reached is tried again with a doubling delay (injected timers), said once per outage; a fork or
 * a refusal is said every time and kept in the cosignature file, never retried away.
 */
import { errorMessage } from '../errors.js';
import { consistencyProof, leafHash } from '../tlog/merkle.js';
import type { NoteVerifier } from '../tlog/note.js';
import { type WitnessOutcome, type WitnessPost, addCheckpoint } from '../tlog/witness-client.js';
import type { SealedLine } from './chain.js';
import type { WitnessRecord } from './cosignature-file.js';

/** A witness to submit to: its submission prefix and its cosignature key. */
export interface WitnessTarget {
  url: string;
  witness: NoteVerifier;
}

/** The timers the retries use (real ones in the CLI, driven ones in tests). */
export interface RetryTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface WitnessSubmitterOptions {
  targets: readonly WitnessTarget[];
  post: WitnessPost;
  timers: RetryTimers;
  /** Keeps a witness's answer (the cosignature file); a failure is said once and changes nothing else. */
  store: (record: WitnessRecord) => Promise<void>;
  /** Says something on stderr (one line, no newline). */
  say: (line: string) => void;
  /** First retry delay and its cap (default 500 ms and 60 s). */
  retryMs?: number;
  maxRetryMs?: number;
  /** Attempts per witness after `close()` before its latest checkpoint is given up (default 3). */
  closeAttempts?: number;
}

interface Pending {
  note: string;
  size: number;
}

interface WitnessState {
  target: WitnessTarget;
  knownSize: number;
  pending: Pending | null;
  running: boolean;
  timer: unknown;
  failures: number;
  outage: boolean;
  attemptsSinceClose: number;
}

export class WitnessSubmitter {
  readonly #options: WitnessSubmitterOptions;
  readonly #leaves: Buffer[] = [];
  readonly #states: WitnessState[];
  #closing = false;
  #storeFailed = false;
  #idle: (() => void) | null = null;

  constructor(options: WitnessSubmitterOptions) {
    this.#options = options;
    this.#states = options.targets.map((target) => ({
      target,
      knownSize: 0,
      pending: null,
      running: false,
      timer: undefined,
      failures: 0,
      outage: false,
      attemptsSinceClose: 0,
    }));
  }

  /** Takes lines as the log writer makes them durable (its `onDurable`). */
  onDurable(lines: readonly SealedLine[]): void {
    for (const sealed of lines) {
      const index = this.#leaves.length;
      this.#leaves.push(leafHash(sealed.text));
      if (sealed.line.type !== 'Checkpoint' || typeof sealed.line.note !== 'string') continue;
      for (const state of this.#states) {
        state.pending = { note: sealed.line.note, size: index };
        this.#kick(state);
      }
    }
  }

  /**
   * Resolves once every witness has answered for its latest checkpoint, or was tried
   * `closeAttempts` more times; says which checkpoints went uncosigned.
   */
  close(): Promise<void> {
    this.#closing = true;
    for (const state of this.#states) {
      // A witness waiting out a retry delay is tried at once: the recorder is stopping.
      if (state.timer !== undefined) this.#options.timers.clearTimeout(state.timer);
      state.timer = undefined;
      this.#kick(state);
    }
    return new Promise((resolve) => {
      this.#idle = resolve;
      this.#checkIdle();
    });
  }

  #checkIdle(): void {
    if (!this.#closing || !this.#idle) return;
    if (this.#states.some((s) => s.running || s.timer !== undefined)) return;
    for (const state of this.#states)
      if (state.pending)
        this.#options.say(
          `witness ${state.target.witness.name} did not cosign the checkpoint of ${state.pending.size} lines: ` +
            'the log is complete without it, verify --witness-quorum will not count this witness',
        );
    const idle = this.#idle;
    this.#idle = null;
    idle();
  }

  #kick(state: WitnessState): void {
    if (state.running || state.timer !== undefined || !state.pending) return;
    if (this.#closing && state.attemptsSinceClose >= (this.#options.closeAttempts ?? 3)) return;
    void this.#run(state);
  }

  async #run(state: WitnessState): Promise<void> {
    const pending = state.pending!;
    state.pending = null;
    state.running = true;
    if (this.#closing) state.attemptsSinceClose++;
    const leaves = this.#leaves;
    const outcome = await addCheckpoint({
      url: state.target.url,
      witness: state.target.witness,
      checkpoint: pending.note,
      size: pending.size,
      knownSize: state.knownSize,
      proofFrom: (old) => consistencyProof(leaves, old, pending.size),
      post: this.#options.post,
    });
    state.running = false;
    this.#settle(state, pending, outcome);
    this.#kick(state);
    this.#checkIdle();
  }

  #settle(state: WitnessState, pending: Pending, outcome: WitnessOutcome): void {
    const name = state.target.witness.name;
    const say = this.#options.say;
    switch (outcome.kind) {
      case 'cosigned':
        state.knownSize = pending.size;
        state.failures = 0;
        if (state.outage) say(`witness ${name} is reachable again`);
        state.outage = false;
        this.#store({
          type: 'Cosigned',
          size: pending.size,
          witness: name,
          note: `${pending.note}${outcome.cosignature.line}\n`,
        });
        return;
      case 'fork':
        say(`witness ${name} REFUSES the checkpoint of ${pending.size} lines: a FORK of the log: ${outcome.message}`);
        this.#store({
          type: 'WitnessRefusal',
          size: pending.size,
          witness: name,
          kind: 'fork',
          status: 409,
          message: outcome.message,
        });
        return;
      case 'refused':
        say(`witness ${name} refuses the checkpoint of ${pending.size} lines: ${outcome.message}`);
        this.#store({
          type: 'WitnessRefusal',
          size: pending.size,
          witness: name,
          kind: 'refused',
          status: outcome.status,
          message: outcome.message,
        });
        return;
      case 'stale':
        state.knownSize = outcome.witnessSize;
        return;
      case 'unreachable':
        this.#retry(state, pending, outcome.message);
        return;
      default: {
        const never: never = outcome;
        throw new Error(`unhandled witness outcome ${JSON.stringify(never)}`);
      }
    }
  }

  #retry(state: WitnessState, pending: Pending, why: string): void {
    const name = state.target.witness.name;
    if (!state.outage)
      this.#options.say(
        `witness ${name} at ${state.target.url} is unreachable (${why}): retrying in the background; ` +
          'the receipt log is unaffected',
      );
    state.outage = true;
    state.failures++;
    // A newer checkpoint that arrived meanwhile replaces this one.
    state.pending ??= pending;
    const first = this.#options.retryMs ?? 500;
    const delay = Math.min(this.#options.maxRetryMs ?? 60_000, first * 2 ** Math.min(state.failures - 1, 20));
    if (this.#closing && state.attemptsSinceClose >= (this.#options.closeAttempts ?? 3)) return;
    state.timer = this.#options.timers.setTimeout(() => {
      state.timer = undefined;
      this.#kick(state);
      this.#checkIdle();
    }, delay);
  }

  #store(record: WitnessRecord): void {
    this.#options.store(record).catch((error: unknown) => {
      if (this.#storeFailed) return;
      this.#storeFailed = true;
      this.#options.say(`cannot write the cosignature file: ${errorMessage(error)}`);
    });
  }
}
