/**
 * @module peer/transition-log
 * The reference peer's own ground truth (`peer --transitions FILE`, docs/design.md §4): a JSONL
 * log with one line per state change of any task, one per pause or resume attempt the engine
 * refused, and one per finished task it evicted. What a recorder derives from the traffic can be
 * compared with it row by row.
 *
 * - Line 1 is a {@link PeerTransitionsHeader}; every further line is a {@link PeerTransitionLine},
 *   `seq` 1-based and contiguous, `at` the peer's clock (virtual in deterministic mode, so the
 *   same requests give the same bytes).
 * - Lines are RFC 8785 canonical JSON; a lone surrogate a client sent (in a reason, say) is
 *   written as a `\uXXXX` escape, so every line stays valid JSON.
 * - Every member is always present, `null` when it does not apply.
 * - No secrets: resume tokens appear only as `resumeTokenHash` (the receipts' hash, via
 *   `tokenHashOf`), principals only in their derived form (`jwt:sub=...`, `bearer:sha256:...`).
 * - The file is created with mode 0600 and written in order; {@link TransitionLogWriter.close}
 *   waits for every line (the CLI calls it on SIGINT and SIGTERM).
 */
import type { FileHandle } from 'node:fs/promises';
import { canonicalJson } from '../canonical/canonical-json.js';
import { A2aReplayError, errorMessage } from '../errors.js';
import { openOutputFile } from '../output-file.js';
import type { PauseInitiator, PauseMode, ResumeCause, ResumeConditions, TaskState } from '../protocol/types.js';

export const PEER_TRANSITIONS_TYPE = 'peer-transitions';
export const PEER_TRANSITIONS_VERSION = 1;

/**
 * Why a task changed state:
 * - a resume cause of the RFC (`explicit_resume`, `condition_fired`, `timeout`,
 *   `external_event`) for PAUSED → WORKING, and `timeout` also for PAUSED → FAILED
 *   (onTimeout `fail`); `external_event` also for AUTH_REQUIRED → WORKING on FireEvent
 *   `credentials` (docs/design.md §4);
 * - `message`: a message created the task (→ SUBMITTED), started it or continued an
 *   INPUT_REQUIRED / AUTH_REQUIRED task (→ WORKING);
 * - `pause_request`: PauseTask or AwaitTaskResumption (→ PAUSED);
 * - `script`: a directive of the scripted agent (a self-park → PAUSED, `input`, `auth`, `ask:`,
 *   `auth:`), and an `ask:` step moving on with no input under `peer --bypass-ask-after`;
 * - `completed`: the script ended (→ COMPLETED);
 * - `failure`: the script's `fail` (→ FAILED);
 * - `canceled`: CancelTask (→ CANCELED).
 */
export type TransitionCause =
  ResumeCause | 'message' | 'pause_request' | 'script' | 'completed' | 'failure' | 'canceled';

/** The methods whose refusals are logged. */
export type PauseAttemptMethod = 'PauseTask' | 'ResumeTask' | 'AwaitTaskResumption';

export interface PeerTransitionsHeader {
  type: typeof PEER_TRANSITIONS_TYPE;
  version: typeof PEER_TRANSITIONS_VERSION;
  /** The peer clock when the log was opened. */
  startedAt: string;
  tool: string;
  peer: { deterministic: boolean; seed: number; stepMs: number; legacyPause: boolean; maxTasks: number };
}

/** What a pause was, on the line that enters PAUSED. */
export interface PausedDetail {
  reason: string | null;
  /** PauseTask's mode; null for an agent's pause. */
  mode: PauseMode | null;
  conditions: ResumeConditions | null;
  pausedUntil: string | null;
}

/** One state change. */
export interface TransitionLine {
  event: 'transition';
  seq: number;
  at: string;
  taskId: string;
  contextId: string;
  /** null on the line that creates the task. */
  from: TaskState | null;
  to: TaskState;
  cause: TransitionCause;
  /** For a move into PAUSED: who paused. */
  initiator: PauseInitiator | null;
  /**
   * Who sent the request that caused the move (`jwt:sub=...` from a Bearer JWT's `sub`,
   * `bearer:sha256:<8 hex>` for another bearer token, null without one); null when the agent
   * or a timer caused it.
   */
  principal: string | null;
  /** The method of that request, or null (agent, timer). */
  method: string | null;
  /** Into or out of PAUSED: the hash of that pause's resume token. */
  resumeTokenHash: string | null;
  /** Into PAUSED: the pause. */
  pause: PausedDetail | null;
}

/** A pause or resume attempt the engine refused (the JSON-RPC error it answered). */
export interface RejectedLine {
  event: 'rejected';
  seq: number;
  at: string;
  taskId: string;
  /** null when the task does not exist (or was evicted). */
  contextId: string | null;
  method: PauseAttemptMethod;
  principal: string | null;
  /** The task's state when refused; null when it does not exist. */
  state: TaskState | null;
  errorCode: number;
  /** The ErrorInfo reason (`INVALID_TASK_STATE`, `RESUME_TOKEN_MISMATCH`, `TASK_NOT_FOUND`). */
  reason: string;
  /** ResumeTask: the hash of the token presented. */
  resumeTokenHash: string | null;
}

/** A terminal task dropped to keep at most `--max-tasks` of them (later calls answer -32001). */
export interface EvictedLine {
  event: 'evicted';
  seq: number;
  at: string;
  taskId: string;
  contextId: string;
  state: TaskState;
}

export type PeerTransitionLine = TransitionLine | RejectedLine | EvictedLine;

/** A line before the log numbers it. */
export type TransitionFact = Omit<TransitionLine, 'seq'> | Omit<RejectedLine, 'seq'> | Omit<EvictedLine, 'seq'>;

/** Where the engine reports what happened. */
export type TransitionSink = (fact: TransitionFact) => void;

function serialize(value: unknown): string {
  return `${canonicalJson(value, { loneSurrogates: 'escape' })}\n`;
}

/**
 * Writes a transitions log: {@link open} creates (or truncates) the file with mode 0600 and
 * writes the header; {@link append} numbers and queues a line; {@link close} waits for them all.
 * A write failure is reported once through `onError` and stops the log, never the peer.
 */
export class TransitionLogWriter {
  readonly #file: FileHandle;
  readonly #onError: (error: unknown) => void;
  #seq = 0;
  #chain: Promise<void> = Promise.resolve();
  #failed = false;
  #closed = false;

  private constructor(file: FileHandle, onError: (error: unknown) => void) {
    this.#file = file;
    this.#onError = onError;
  }

  /** Opens `path` and writes the header; an unusable path is an A2aReplayError naming it. */
  static async open(
    path: string,
    header: PeerTransitionsHeader,
    onError: (error: unknown) => void,
  ): Promise<TransitionLogWriter> {
    let file: FileHandle;
    try {
      // A new file of mode 0600 in place of any there, never through a link (src/output-file.ts).
      file = await openOutputFile(path, { replace: true });
    } catch (error) {
      const why = errorMessage(error);
      throw new A2aReplayError('INVALID_ARGUMENT', `cannot write the transitions log ${path}: ${why}`, {
        cause: error,
      });
    }
    const writer = new TransitionLogWriter(file, onError);
    writer.#write(serialize(header));
    return writer;
  }

  /** Numbers `fact` and queues its line. */
  append(fact: TransitionFact): void {
    if (this.#closed) return;
    this.#seq += 1;
    this.#write(serialize({ ...fact, seq: this.#seq }));
  }

  #write(text: string): void {
    this.#chain = this.#chain.then(async () => {
      if (this.#failed) return;
      try {
        await this.#file.write(text);
      } catch (error) {
        this.#failed = true;
        this.#onError(error);
      }
    });
  }

  /** Waits for every queued line, then closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return this.#chain;
    this.#closed = true;
    this.#chain = this.#chain.then(() => this.#file.close().catch((error: unknown) => this.#onError(error)));
    return this.#chain;
  }
}
