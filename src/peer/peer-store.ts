/**
 * @module peer/peer-store
 * `peer --store DIR` (docs/design.md §4 "The store"): what the reference peer keeps across a
 * restart. One append-only JSONL file, `DIR/peer-store.jsonl`, mode 0600: a header line, then
 * - `task` lines, the whole engine state of one task after it changed (the wire task, the pause
 *   and its resume token in it, the script and where it stands, PauseTask's mode), the last one of
 *   a task winning on replay;
 * - `transition` lines, the peer's transitions log (src/peer/transition-log.ts) numbered by `seq`
 *   across restarts;
 * - `clock` lines, the clock after a move no task line shows.
 * A line is written whole with one write(2) as the change happens and fsynced before the peer
 * answers a call that changed something, answers GetTask, ListTasks or with an error (each may show
 * a pause, a resume or an end), or shows a stream a pause, a resume or an end
 * ({@link PeerStore.durable}). A last line without its
 * newline is a write cut by a crash: never acknowledged, it is dropped, said, and cut off the
 * file before anything is appended. Any other unreadable line is an error naming file and line.
 *
 * `DIR/lock` (created with O_EXCL, mode 0600, holding the owner's pid) keeps a second peer off
 * the store. A lock whose pid no longer runs (or that holds no pid) is stale and is replaced.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { type JsonObject, canonicalJson } from '../canonical/canonical-json.js';
import { A2aReplayError, errorMessage } from '../errors.js';
import type { IdSource } from '../ids.js';
import { PAUSE_MODES, type PauseMode, TASK_STATES, type TaskState } from '../protocol/types.js';
import type { Directive } from './script.js';
import type { EngineTask } from './task-phase.js';
import type { TransitionFact } from './transition-log.js';

export const PEER_STORE_TYPE = 'a2a-replay-peer-store';
export const PEER_STORE_VERSION = 1;
export const PEER_STORE_FILE = 'peer-store.jsonl';
export const PEER_STORE_LOCK = 'lock';

/** The engine state of one task, as a `task` line holds it. */
export interface TaskSnapshot {
  task: EngineTask;
  script: Directive[];
  pc: number;
  stepsDone: number;
  /** PauseTask's mode of the current pause; null otherwise. */
  mode: PauseMode | null;
}

/** What a store held when the peer started. */
export interface RestoredState {
  /** The last snapshot of every task not evicted, in creation order. */
  tasks: TaskSnapshot[];
  /** Terminal tasks in the order they finished. */
  finished: string[];
  /** The latest clock instant any line shows (ms), or null for an empty store. */
  clockMs: number | null;
  /** How many ids of each kind were drawn. */
  ids: Record<string, number>;
  /** The last transitions `seq` written. */
  seq: number;
  /** Said about the file while reading (a torn last line). */
  notes: string[];
}

type StoreLine =
  | { kind: 'task'; at: string; ids: Record<string, number>; task: TaskSnapshot }
  | { kind: 'transition'; seq: number; fact: TransitionFact }
  | { kind: 'clock'; at: string };

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An error naming the store file, the line and what is wrong with it. */
function corrupt(file: string, line: number, what: string): A2aReplayError {
  return new A2aReplayError(
    'INVALID_ARGUMENT',
    `peer store ${file} line ${line}: ${what}; the store is damaged (move it aside to start afresh)`,
  );
}

function readInstant(value: unknown, file: string, line: number, field: string): number {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw corrupt(file, line, `${field}: expected an RFC 3339 instant`);
  return ms;
}

function readSnapshot(value: unknown, file: string, line: number): TaskSnapshot {
  if (!isObject(value)) throw corrupt(file, line, 'task: expected an object');
  const task = value.task;
  if (!isObject(task) || typeof task.id !== 'string' || typeof task.contextId !== 'string') {
    throw corrupt(file, line, 'task.task: expected a task with id and contextId');
  }
  if (!Array.isArray(task.history) || !Array.isArray(task.artifacts)) {
    throw corrupt(file, line, 'task.task: expected history and artifacts arrays');
  }
  const status = task.status;
  if (!isObject(status) || !TASK_STATES.includes(status.state as TaskState)) {
    throw corrupt(file, line, 'task.task.status.state: expected a task state');
  }
  if (status.state === 'TASK_STATE_PAUSED') {
    const pause = status.pause;
    if (!isObject(pause) || typeof pause.resumeToken !== 'string' || typeof pause.pausedAt !== 'string') {
      throw corrupt(file, line, 'task.task.status.pause: expected a pause with resumeToken and pausedAt');
    }
  }
  if (!Array.isArray(value.script) || !value.script.every((d) => isObject(d) && typeof d.kind === 'string')) {
    throw corrupt(file, line, 'task.script: expected an array of directives');
  }
  for (const name of ['pc', 'stepsDone'] as const) {
    const n = value[name];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
      throw corrupt(file, line, `task.${name}: expected a whole number`);
    }
  }
  if (value.mode !== null && !PAUSE_MODES.includes(value.mode as PauseMode)) {
    throw corrupt(file, line, 'task.mode: expected a pause mode or null');
  }
  return value as unknown as TaskSnapshot;
}

function readCounts(value: unknown, file: string, line: number): Record<string, number> {
  if (!isObject(value)) throw corrupt(file, line, 'ids: expected an object of counts');
  for (const n of Object.values(value)) {
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
      throw corrupt(file, line, 'ids: expected whole-number counts');
    }
  }
  return value as Record<string, number>;
}

function readLine(text: string, file: string, line: number): StoreLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(file, line, `not JSON (${errorMessage(error)})`);
  }
  if (!isObject(value)) throw corrupt(file, line, 'expected a JSON object');
  switch (value.kind) {
    case 'task':
      readInstant(value.at, file, line, 'at');
      return {
        kind: 'task',
        at: value.at as string,
        ids: readCounts(value.ids, file, line),
        task: readSnapshot(value.task, file, line),
      };
    case 'transition': {
      const seq = value.seq;
      const fact = value.fact;
      if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) {
        throw corrupt(file, line, 'seq: expected a whole number of at least 1');
      }
      if (!isObject(fact) || typeof fact.event !== 'string' || typeof fact.taskId !== 'string') {
        throw corrupt(file, line, 'fact: expected a transitions-log line');
      }
      return { kind: 'transition', seq, fact: fact as unknown as TransitionFact };
    }
    case 'clock':
      readInstant(value.at, file, line, 'at');
      return { kind: 'clock', at: value.at as string };
    default:
      throw corrupt(file, line, `kind: expected "task", "transition" or "clock"; got ${JSON.stringify(value.kind)}`);
  }
}

/** The lines of `text` and the byte length of the part kept (a torn last line is cut off). */
function splitStore(text: string, file: string): { lines: string[]; keep: number; notes: string[] } {
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  const notes: string[] = [];
  let keep = Buffer.byteLength(text);
  if (last.length > 0) {
    // Written with one write(2) and never acknowledged before its fsync: a crash cut it short.
    notes.push(
      `peer store ${file} line ${lines.length + 1}: torn last line (${Buffer.byteLength(last)} bytes without a ` +
        `newline, left by a crash mid-write) dropped; nothing it held had been acknowledged`,
    );
    keep -= Buffer.byteLength(last);
  }
  return { lines, keep, notes };
}

function emptyState(notes: string[]): RestoredState {
  return { tasks: [], finished: [], clockMs: null, ids: {}, seq: 0, notes };
}

/** Replays the store's lines into the state they describe. */
export function replayStore(text: string, file: string): { state: RestoredState; keep: number; header: boolean } {
  const { lines, keep, notes } = splitStore(text, file);
  const state = emptyState(notes);
  if (lines.length === 0) return { state, keep, header: false };
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? '');
  } catch {
    header = undefined;
  }
  if (!isObject(header) || header.type !== PEER_STORE_TYPE || header.version !== PEER_STORE_VERSION) {
    throw corrupt(file, 1, `expected the header {"type":"${PEER_STORE_TYPE}","version":${PEER_STORE_VERSION}}`);
  }
  const tasks = new Map<string, TaskSnapshot>();
  const finished = new Set<string>();
  const seen = (ms: number): void => {
    state.clockMs = Math.max(state.clockMs ?? ms, ms);
  };
  for (const [i, text] of lines.entries()) {
    if (i === 0) continue;
    const line = readLine(text, file, i + 1);
    switch (line.kind) {
      case 'task': {
        seen(Date.parse(line.at));
        const id = line.task.task.id;
        tasks.set(id, line.task);
        state.ids = line.ids;
        if (TERMINAL.has(line.task.task.status.state)) finished.add(id);
        break;
      }
      case 'transition':
        if (line.seq !== state.seq + 1) throw corrupt(file, i + 1, `seq: expected ${state.seq + 1}; got ${line.seq}`);
        state.seq = line.seq;
        if (line.fact.event === 'evicted') {
          tasks.delete(line.fact.taskId);
          finished.delete(line.fact.taskId);
        }
        break;
      case 'clock':
        seen(Date.parse(line.at));
        break;
      default: {
        const never: never = line;
        return never;
      }
    }
  }
  state.tasks = [...tasks.values()];
  state.finished = [...finished];
  return { state, keep, header: true };
}

const TERMINAL: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

/** The locks this process holds: its own pid in a lock elsewhere is an earlier process's. */
const HELD = new Set<string>();

/** Whether process `pid` runs (a process of another user counts). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `DIR/lock`. A lock held by a running process is refused with an error naming it; a lock
 * whose pid does not run, or holding no pid (a crash between its creation and its write), is
 * stale: it is removed and taken.
 */
function takeLock(dir: string): string {
  const path = join(dir, PEER_STORE_LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      HELD.add(path);
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new A2aReplayError('IO_FAILED', `cannot lock the peer store ${dir}: ${errorMessage(error)}`, {
          cause: error,
        });
      }
    }
    let pid = NaN;
    try {
      pid = Number(readFileSync(path, 'utf8').trim());
    } catch {
      // Gone meanwhile: try again.
    }
    const held = pid === process.pid ? HELD.has(path) : Number.isSafeInteger(pid) && pid > 0 && running(pid);
    if (held) {
      throw new A2aReplayError(
        'IO_FAILED',
        `the peer store ${dir} is in use by process ${pid} (lock ${path}); stop that peer first`,
      );
    }
    try {
      unlinkSync(path);
    } catch {
      // Removed by someone else: try again.
    }
  }
  throw new A2aReplayError('IO_FAILED', `cannot lock the peer store ${dir}: ${path} keeps reappearing`);
}

function releaseLock(path: string): void {
  HELD.delete(path);
  unlinkSync(path);
}

/** Draws ids from `inner` and counts them by kind, so a restarted peer draws none twice. */
export class CountingIdSource implements IdSource {
  readonly #inner: IdSource;
  readonly #counts: Record<string, number>;

  /** `replay`: draw `restored` ids first (a counter source then goes on where it stopped). */
  constructor(inner: IdSource, restored: Record<string, number>, replay: boolean) {
    this.#inner = inner;
    this.#counts = { ...restored };
    if (!replay) return;
    for (const [kind, n] of Object.entries(restored)) for (let i = 0; i < n; i++) inner.next(kind);
  }

  next(kind: string): string {
    this.#counts[kind] = (this.#counts[kind] ?? 0) + 1;
    return this.#inner.next(kind);
  }

  counts(): Record<string, number> {
    return { ...this.#counts };
  }
}

/**
 * How the store's lines reach the disk: fsync(2) of `fd`, `done` called once it returned. Tests
 * inject one they hold back, to see what waits for durability (docs/design.md §4 "The store").
 */
export type StoreSync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

/** An open store: replayed, locked, appended to. */
export class PeerStore {
  readonly dir: string;
  readonly file: string;
  readonly restored: RestoredState;
  readonly #fd: number;
  readonly #lock: string;
  readonly #sync: StoreSync;
  #seq: number;
  #lastAt = '';
  #unsynced = false;
  #syncing: Promise<void> | undefined;
  #failed: A2aReplayError | undefined;
  #closed = false;

  private constructor(dir: string, file: string, fd: number, lock: string, restored: RestoredState, sync: StoreSync) {
    this.dir = dir;
    this.#sync = sync;
    this.file = file;
    this.#fd = fd;
    this.#lock = lock;
    this.restored = restored;
    this.#seq = restored.seq;
  }

  /**
   * Creates `dir` if need be (0700), takes its lock, replays the file and opens it for appending
   * (created 0600). A damaged file is an A2aReplayError naming file and line; the lock is released.
   * `sync` makes lines durable ({@link PeerStore.durable}); default fsync(2).
   */
  static open(dir: string, sync: StoreSync = fsync): PeerStore {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new A2aReplayError('IO_FAILED', `cannot create the peer store ${dir}: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    const lock = takeLock(dir);
    const file = join(dir, PEER_STORE_FILE);
    try {
      const fd = openSync(
        file,
        constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_APPEND,
        0o600,
      );
      try {
        const text = readFileSync(fd, 'utf8');
        const { state, keep, header } = replayStore(text, file);
        if (keep < fstatSync(fd).size) ftruncateSync(fd, keep);
        if (!header) {
          ftruncateSync(fd, 0);
          writeSync(fd, `${canonicalJson({ type: PEER_STORE_TYPE, version: PEER_STORE_VERSION })}\n`);
        }
        return new PeerStore(dir, file, fd, lock, state, sync);
      } catch (error) {
        closeSync(fd);
        throw error;
      }
    } catch (error) {
      releaseLock(lock);
      if (error instanceof A2aReplayError) throw error;
      throw new A2aReplayError('IO_FAILED', `cannot open the peer store ${file}: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  }

  #append(line: StoreLine): void {
    if (this.#closed) return;
    writeSync(this.#fd, `${canonicalJson(line, { loneSurrogates: 'escape' })}\n`);
    this.#unsynced = true;
  }

  /** Writes the state of one task after it changed; `at` is the clock, `ids` the ids drawn so far. */
  task(at: string, ids: Record<string, number>, task: TaskSnapshot): void {
    this.#lastAt = at;
    this.#append({ kind: 'task', at, ids, task });
  }

  /** Writes one transitions-log fact. */
  transition(fact: TransitionFact): void {
    this.#seq += 1;
    this.#append({ kind: 'transition', seq: this.#seq, fact });
  }

  /** Writes where the clock stands, unless the last line already showed that instant. */
  clock(at: string): void {
    if (at === this.#lastAt) return;
    this.#lastAt = at;
    this.#append({ kind: 'clock', at });
  }

  /**
   * Resolves once every line written so far is on disk (one fsync for all lines written
   * meanwhile). A failed sync leaves unknown what reached the disk: from then on this rejects.
   */
  durable(): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#syncing) return this.#syncing.then(() => this.durable());
    if (!this.#unsynced || this.#closed) return Promise.resolve();
    this.#unsynced = false;
    const done = new Promise<void>((resolve, reject) => {
      this.#sync(this.#fd, (error) => {
        if (!error) return resolve();
        this.#failed = new A2aReplayError(
          'IO_FAILED',
          `cannot sync the peer store ${this.file}: ${errorMessage(error)}; what was written since its last ` +
            `sync may be lost, so nothing more is acknowledged`,
          { cause: error },
        );
        reject(this.#failed);
      });
    }).finally(() => {
      this.#syncing = undefined;
    });
    this.#syncing = done;
    return done;
  }

  /** Syncs, closes the file and releases the lock; rejects (after both) when the sync failed. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.durable();
    } finally {
      this.#closed = true;
      closeSync(this.#fd);
      releaseLock(this.#lock);
    }
  }
}
