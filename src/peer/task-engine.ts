/**
 * @module peer/task-engine
 * The reference peer's task engine: tasks, the scripted agent that drives them, and the
 * paused-state RFC's pause/resume semantics with docs/design.md §3's decisions. Written once against an
 * injected {@link Scheduler} (virtual or real time) and {@link IdSource}; it does no network I/O,
 * reports every event to its {@link Subscriber}s and every state change to its
 * {@link TransitionSink}.
 *
 * Steps and tool calls. A `work:N` directive is N steps of `stepMs`, each ending with an
 * artifact; a `tool:N` directive is one tool call of N steps that yields one artifact when its
 * last step ends. A step starts when the previous one ends (or when the task starts or
 * resumes). A step is *in flight* from the instant after it started until it ends: at the very
 * instant a step starts, nothing of it has run yet, so that instant is a step boundary. A tool
 * call is in flight once its first step is in flight, until its last step ends. This holds on
 * the virtual clock as on the real one: between two AdvanceClock calls the virtual clock stands
 * still, and a step that started before the current instant is in flight until a later move
 * reaches its end.
 *
 * Pause modes (RFC "cancelling any in-flight tool calls (or letting them complete in
 * `wait_for_completion` mode)"), when PauseTask reaches a WORKING task:
 * - `interrupt_immediate` pauses at once. A work step in flight is aborted (no artifact) and
 *   redone in full after resume; a tool call in flight is aborted (no artifact) and redone from
 *   its first step after resume.
 * - `finish_step` pauses at once at a step boundary; with a step in flight it pauses when that
 *   step ends (a work step's artifact appears before PAUSED). A tool call stops at that step's
 *   end, suspended mid-way, and continues with its next step after resume.
 * - `wait_for_completion` pauses at once when no tool call and no step is in flight; with a
 *   tool call in flight it pauses when the tool call's last step ends (its artifact appears
 *   before PAUSED); with a work step in flight, when that step ends.
 * A pause that waits is *pending*: the task announces it with a WORKING status update whose
 * message says what it waits for, and the PauseTask answer is sent once the task is PAUSED (on
 * the virtual clock, during the AdvanceClock that reaches that instant). A pending pause is
 * joined by later pause requests: an `interrupt_immediate` one makes it happen at once, a
 * `finish_step` one narrows a wait for a tool call to the step in flight (announced again). AwaitTaskResumption
 * pauses in the default mode (`finish_step`). CancelTask answers every pending request -32010.
 *
 * Other decisions where the RFC is silent (docs/design.md §3–§4):
 * - Idempotency. PauseTask or AwaitTaskResumption on a PAUSED task returns the current pause
 *   unchanged (same token, same pausedAt).
 * - `pausedUntil` = pausedAt + timeout when a timeout is declared; absent otherwise.
 *   `resumeMode`: TIMEOUT for a timeout alone, EXTERNAL_EVENT when onEvent or trigger is set,
 *   CLIENT_MESSAGE otherwise. AwaitTaskResumption's `summary` becomes the PAUSED status message.
 * - Causes: ResumeTask → `explicit_resume`; FireEvent matching `onEvent`, or `trigger.at`
 *   reached → `condition_fired`; timeout with onTimeout `resume` → `timeout`; FireEvent whose
 *   `payload.taskId` names a paused task with no matching onEvent → `external_event`. Timeout
 *   with onTimeout `fail` → FAILED. CancelTask on a PAUSED task → CANCELED.
 * - Resume input is appended to the history as a ROLE_USER message with one data part and
 *   `metadata.resumeInput: true`. `continueTranscript: false` first appends a ROLE_AGENT digest
 *   of the pre-pause transcript (`metadata.transcriptDigest: true`), so the resumed turn starts
 *   fresh from the digest.
 * - Tokens are consume-once: leaving a pause in any way retires its token; a later pause gets a
 *   new one. Tokens are compared in constant time.
 * - A follow-up message is accepted only by an interrupted task, INPUT_REQUIRED or
 *   AUTH_REQUIRED (-32004 for terminal tasks as A2A says; -32010 for others: a paused task is
 *   resumed with ResumeTask, not a message). The message continues the script either way; the
 *   scripted agent checks no credentials.
 * - Bounded state: at most `maxTasks` terminal tasks are kept (src/peer/task-store.ts); an
 *   evicted task is unknown from then on (-32001).
 * - ListTasks lists newest task first; `pageToken` is an offset; artifacts only with
 *   `includeArtifacts: true`.
 * - Every value that becomes an instant was range-checked at the edge (src/protocol/bounds.ts),
 *   and a pause is fully computed before the task is touched, so no input leaves a task half
 *   moved.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isoAt } from '../clock.js';
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';
import type { IdSource } from '../ids.js';
import { JSON_RPC_ERRORS } from '../protocol/errors.js';
import { formatIssue } from '../protocol/read.js';
import { checkTransition, isTerminal } from '../protocol/state-machine.js';
import {
  DEFAULT_PAUSE_MODE,
  type Artifact,
  type AwaitTaskResumptionParams,
  type ListTasksParams,
  type ListTasksResult,
  type Message,
  type PauseInitiator,
  type PauseMode,
  type PauseTaskParams,
  type ResumeCause,
  type ResumeConditions,
  type ResumeEventMetadata,
  type ResumeMode,
  type ResumeTaskParams,
  type ResumeTaskResult,
  type SendMessageParams,
  type StreamResponse,
  type Task,
  type TaskPause,
  type TaskState,
  type TaskStatus,
} from '../protocol/types.js';
import { tokenHashOf } from '../recording/resume-token.js';
import { RpcFailure } from './rpc-failure.js';
import type { Scheduler, TimerHandle } from './scheduler.js';
import { type Directive, type InterruptState, parseScript } from './script.js';
import { TaskStore } from './task-store.js';
import type { PauseAttemptMethod, PausedDetail, TransitionCause, TransitionSink } from './transition-log.js';
import {
  type ViewOptions,
  pauseResultView,
  pausedEventView,
  resumeResultView,
  resumedEventView,
  statusEventView,
  taskView,
} from './wire-views.js';

/** One open stream on a task. */
export interface Subscriber {
  /** Writes one StreamResponse; resolves once it was handed to the socket. */
  send(event: StreamResponse): Promise<void>;
  /** Ends the stream (terminal state, or the peer shutting down). */
  close(): void;
}

/** Who sent the request being handled: its method, and its principal (null without a bearer). */
export interface Caller {
  method: string;
  principal: string | null;
}

interface PauseRequest {
  initiatedBy: PauseInitiator;
  mode: PauseMode;
  reason?: string | undefined;
  conditions?: ResumeConditions | undefined;
  summary?: string | undefined;
  /** The request that asked for the pause; null for a script's self-park. */
  caller: Caller | null;
}

interface Waiter {
  resolve: (result: JsonObject) => void;
  reject: (error: unknown) => void;
}

/** What a pending pause waits for: the end of the step in flight, or of the tool call in flight. */
type PauseWait = 'now' | 'step' | 'tool';

interface PendingPause extends PauseRequest {
  until: Exclude<PauseWait, 'now'>;
  waiters: Waiter[];
}

interface CurrentPause {
  pause: TaskPause;
  mode: PauseMode | undefined;
  timers: TimerHandle[];
}

interface StepInFlight {
  handle: TimerHandle;
  startedAt: number;
}

interface TaskRecord {
  readonly task: Task & { contextId: string; artifacts: Artifact[]; history: Message[] };
  readonly script: Directive[];
  /** Index of the directive being run. */
  pc: number;
  /** Steps of the current `work:N` or `tool:N` already done. */
  stepsDone: number;
  /** The step scheduled, if any (in flight once the clock has moved past `startedAt`). */
  step?: StepInFlight | undefined;
  paused?: CurrentPause | undefined;
  /** A pause waiting for a step or a tool call to end. */
  pending?: PendingPause | undefined;
  readonly subscribers: Set<Subscriber>;
  readonly watchers: Set<() => void>;
}

/** Why the task moves, for the transitions log. */
interface Why {
  cause: TransitionCause;
  caller: Caller | null;
  /** The resume token of the pause entered or left. */
  token?: string | undefined;
  pause?: PausedDetail | undefined;
}

export interface TaskEngineOptions {
  scheduler: Scheduler;
  ids: IdSource;
  /** Duration of one work step in clock ms. */
  stepMs: number;
  legacy: boolean;
  /** Terminal tasks kept (oldest finished evicted first). */
  maxTasks: number;
  /** Receives every state change, refused pause/resume attempt and eviction. */
  onTransition?: TransitionSink | undefined;
}

/** States in which a blocking SendMessage returns (terminal or interrupted; PAUSED counts). */
const SETTLED: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_PAUSED',
]);

/** The states a follow-up message continues (the scripted agent's `input` and `auth`). */
const INTERRUPTED: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/** The status message of each interrupted state. */
const INTERRUPT_TEXT: Readonly<Record<InterruptState, string>> = {
  TASK_STATE_INPUT_REQUIRED: 'input required: send a message with this taskId to continue',
  TASK_STATE_AUTH_REQUIRED: 'credentials required: send a message with this taskId to authenticate and continue',
};

/** The status message announcing a pending pause. */
const PENDING_TEXT: Readonly<Record<PendingPause['until'], string>> = {
  step: 'pause requested: pausing when the step in flight ends',
  tool: 'pause requested: pausing when the tool call in flight completes',
};

const URGENCY: Readonly<Record<PauseWait, number>> = { now: 0, step: 1, tool: 2 };

function digestOf(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time token comparison (never leaks how much of a token matched). */
function sameToken(a: string, b: string): boolean {
  return timingSafeEqual(digestOf(a), digestOf(b));
}

function resumeModeOf(conditions: ResumeConditions | undefined): ResumeMode {
  if (!conditions) return 'RESUME_MODE_CLIENT_MESSAGE';
  if (conditions.onEvent !== undefined || conditions.trigger !== undefined) return 'RESUME_MODE_EXTERNAL_EVENT';
  return conditions.timeout !== undefined ? 'RESUME_MODE_TIMEOUT' : 'RESUME_MODE_CLIENT_MESSAGE';
}

export class TaskEngine {
  readonly #scheduler: Scheduler;
  readonly #ids: IdSource;
  readonly #stepMs: number;
  readonly #legacy: boolean;
  readonly #tasks: TaskStore<TaskRecord>;
  readonly #onTransition: TransitionSink | undefined;
  readonly #writes = new Set<Promise<void>>();

  constructor(options: TaskEngineOptions) {
    this.#scheduler = options.scheduler;
    this.#ids = options.ids;
    this.#stepMs = options.stepMs;
    this.#legacy = options.legacy;
    this.#tasks = new TaskStore<TaskRecord>(options.maxTasks);
    this.#onTransition = options.onTransition;
  }

  // ---- time, views, events ----

  #now(): number {
    return this.#scheduler.clock.now();
  }

  #iso(): string {
    return isoAt(this.#now());
  }

  #view(rec: TaskRecord, extra: Partial<ViewOptions> = {}): ViewOptions {
    return { legacy: this.#legacy, mode: rec.paused?.mode, ...extra };
  }

  /** Resolves once every event emitted so far was handed to its socket. */
  async flushed(): Promise<void> {
    await Promise.all([...this.#writes]);
  }

  #emit(rec: TaskRecord, event: StreamResponse): void {
    for (const sub of rec.subscribers) this.#track(sub.send(event));
  }

  #track(write: Promise<void>): void {
    const settled = write.then(
      () => undefined,
      () => undefined,
    );
    this.#writes.add(settled);
    void settled.then(() => this.#writes.delete(settled));
  }

  #agentMessage(rec: TaskRecord, text: string, metadata?: JsonObject): Message {
    const message: Message = {
      messageId: this.#ids.next('msg'),
      contextId: rec.task.contextId,
      taskId: rec.task.id,
      role: 'ROLE_AGENT',
      parts: [{ text }],
    };
    if (metadata) message.metadata = metadata;
    return message;
  }

  /**
   * Moves the task, guarded by the RFC state machine, emits the status update and logs the
   * transition (a WORKING → WORKING progress update is not a transition).
   */
  #setStatus(
    rec: TaskRecord,
    state: TaskState,
    why: Why,
    extra: { message?: Message; pause?: TaskPause; resume?: ResumeEventMetadata } = {},
  ): void {
    const from = rec.task.status.state;
    const verdict = checkTransition(from, state);
    if (!verdict.allowed) {
      throw new RpcFailure('INTERNAL', `task ${rec.task.id} cannot move from ${from} to ${state}: ${verdict.reason}`);
    }
    const status: TaskStatus = { state, timestamp: this.#iso() };
    if (extra.message) {
      status.message = extra.message;
      rec.task.history.push(extra.message);
    }
    if (extra.pause) status.pause = extra.pause;
    rec.task.status = status;
    if (from !== state) this.#logTransition(rec, from, why);
    const view = this.#view(rec);
    const event = extra.pause
      ? pausedEventView(rec.task, view)
      : extra.resume
        ? resumedEventView(rec.task, extra.resume, view)
        : statusEventView(rec.task);
    this.#emit(rec, { statusUpdate: event });
    if (isTerminal(state)) this.#finish(rec);
    for (const watch of [...rec.watchers]) watch();
  }

  #logTransition(rec: TaskRecord, from: TaskState | null, why: Why): void {
    if (!this.#onTransition) return;
    const to = rec.task.status.state;
    this.#onTransition({
      event: 'transition',
      at: rec.task.status.timestamp ?? this.#iso(),
      taskId: rec.task.id,
      contextId: rec.task.contextId,
      from,
      to,
      cause: why.cause,
      initiator: to === 'TASK_STATE_PAUSED' ? (rec.task.status.pause?.initiatedBy ?? null) : null,
      principal: why.caller?.principal ?? null,
      method: why.caller?.method ?? null,
      resumeTokenHash: why.token === undefined ? null : tokenHashOf(why.token),
      pause: why.pause ?? null,
    });
  }

  #finish(rec: TaskRecord): void {
    this.#scheduler.cancel(rec.step?.handle);
    rec.step = undefined;
    for (const t of rec.paused?.timers ?? []) this.#scheduler.cancel(t);
    rec.paused = undefined;
    for (const sub of rec.subscribers) sub.close();
    rec.subscribers.clear();
    for (const gone of this.#tasks.finished(rec.task.id)) {
      this.#onTransition?.({
        event: 'evicted',
        at: this.#iso(),
        taskId: gone.task.id,
        contextId: gone.task.contextId,
        state: gone.task.status.state,
      });
    }
  }

  // ---- lookups ----

  #get(id: string, field: string): TaskRecord {
    const rec = this.#tasks.get(id);
    if (!rec) throw new RpcFailure('TASK_NOT_FOUND', `${field}: no task with id ${JSON.stringify(id)}`, { taskId: id });
    return rec;
  }

  /** The current wire view of a task (GetTask). */
  getTask(id: string, historyLength?: number): Task {
    const rec = this.#get(id, 'params.id');
    return taskView(rec.task, this.#view(rec, { historyLength }));
  }

  /** ListTasks (A2A v1.0 §3.1.4): newest first, offset page tokens. */
  listTasks(params: ListTasksParams): ListTasksResult {
    const after = params.statusTimestampAfter === undefined ? undefined : Date.parse(params.statusTimestampAfter);
    const all = [...this.#tasks.values()]
      .reverse()
      .filter((r) => params.contextId === undefined || r.task.contextId === params.contextId)
      .filter((r) => params.status === undefined || r.task.status.state === params.status)
      .filter((r) => after === undefined || Date.parse(r.task.status.timestamp ?? '') > after);
    const pageSize = params.pageSize ?? 50;
    let offset = 0;
    if (params.pageToken !== undefined && params.pageToken !== '') {
      if (!/^\d+$/.test(params.pageToken) || Number(params.pageToken) > all.length) {
        throw new RpcFailure(
          'INVALID_PARAMS',
          `params.pageToken: expected a token from a previous ListTasks; got ${JSON.stringify(params.pageToken)}`,
        );
      }
      offset = Number(params.pageToken);
    }
    const page = all.slice(offset, offset + pageSize);
    const end = offset + page.length;
    return {
      tasks: page.map((r) =>
        taskView(
          r.task,
          this.#view(r, { historyLength: params.historyLength, includeArtifacts: params.includeArtifacts ?? false }),
        ),
      ),
      nextPageToken: end < all.length ? String(end) : '',
      pageSize,
      totalSize: all.length,
    };
  }

  /** The state of a task (SubscribeToTask refuses terminal ones with -32004). */
  taskState(id: string): TaskState {
    return this.#get(id, 'params.id').task.status.state;
  }

  // ---- messages and the scripted agent ----

  /**
   * Accepts a SendMessage / SendStreamingMessage: a new task (SUBMITTED) for a message without
   * `taskId`, or the continuation of an INPUT_REQUIRED or AUTH_REQUIRED task. Call {@link start}
   * after subscribing.
   */
  accept(params: SendMessageParams, caller: Caller): string {
    const m = params.message;
    if (m.role !== 'ROLE_USER') {
      throw new RpcFailure(
        'INVALID_PARAMS',
        `params.message.role: expected "ROLE_USER"; got ${JSON.stringify(m.role)}`,
      );
    }
    if (m.taskId !== undefined && m.taskId !== '') {
      const rec = this.#get(m.taskId, 'params.message.taskId');
      const state = rec.task.status.state;
      if (isTerminal(state)) {
        throw new RpcFailure(
          'UNSUPPORTED_OPERATION',
          `task ${rec.task.id} is ${state}: a terminal task takes no more messages`,
          {
            taskId: rec.task.id,
          },
        );
      }
      if (!INTERRUPTED.has(state)) {
        throw new RpcFailure(
          'INVALID_TASK_STATE',
          `task ${rec.task.id} is ${state}: only a TASK_STATE_INPUT_REQUIRED or ` +
            `TASK_STATE_AUTH_REQUIRED task takes a follow-up message (a paused task is resumed with ResumeTask)`,
          { taskId: rec.task.id, state },
        );
      }
      if (m.contextId !== undefined && m.contextId !== '' && m.contextId !== rec.task.contextId) {
        throw new RpcFailure(
          'INVALID_PARAMS',
          `params.message.contextId: expected ${JSON.stringify(rec.task.contextId)} (the task's ` +
            `context); got ${JSON.stringify(m.contextId)}`,
        );
      }
      rec.task.history.push({ ...m, taskId: rec.task.id, contextId: rec.task.contextId });
      return rec.task.id;
    }
    const script = parseScript(m.parts, 'params.message.parts');
    if (!script.ok) throw new RpcFailure('INVALID_PARAMS', formatIssue(script.issue), { field: script.issue.field });
    const id = this.#ids.next('task');
    const contextId = m.contextId !== undefined && m.contextId !== '' ? m.contextId : this.#ids.next('ctx');
    const rec: TaskRecord = {
      task: {
        id,
        contextId,
        status: { state: 'TASK_STATE_SUBMITTED', timestamp: this.#iso() },
        artifacts: [],
        history: [{ ...m, taskId: id, contextId }],
      },
      script: script.directives,
      pc: 0,
      stepsDone: 0,
      subscribers: new Set(),
      watchers: new Set(),
    };
    this.#tasks.add(id, rec);
    this.#logTransition(rec, null, { cause: 'message', caller });
    return id;
  }

  /** Starts (SUBMITTED) or continues (INPUT_REQUIRED, AUTH_REQUIRED) an accepted task. */
  start(id: string, caller: Caller): void {
    const rec = this.#get(id, 'params.message.taskId');
    const state = rec.task.status.state;
    if (state !== 'TASK_STATE_SUBMITTED' && !INTERRUPTED.has(state)) return;
    this.#setStatus(rec, 'TASK_STATE_WORKING', { cause: 'message', caller });
    this.#advance(rec);
  }

  /**
   * Resolves with the task's view (as GetTask would show it) as soon as it is terminal or
   * interrupted (INPUT_REQUIRED, AUTH_REQUIRED, PAUSED): a blocking SendMessage's answer.
   */
  untilSettled(id: string, historyLength?: number): Promise<Task> {
    const rec = this.#get(id, 'params.id');
    const view = (): Task => taskView(rec.task, this.#view(rec, { historyLength }));
    if (SETTLED.has(rec.task.status.state)) return Promise.resolve(view());
    return new Promise((resolve) => {
      const watch = (): void => {
        if (!SETTLED.has(rec.task.status.state)) return;
        rec.watchers.delete(watch);
        resolve(view());
      };
      rec.watchers.add(watch);
    });
  }

  /** Runs directives until one waits (a step, a park, an interrupt) or the script ends. */
  #advance(rec: TaskRecord): void {
    for (;;) {
      if (rec.task.status.state !== 'TASK_STATE_WORKING') return;
      const d = rec.script[rec.pc];
      if (!d) {
        this.#setStatus(
          rec,
          'TASK_STATE_COMPLETED',
          { cause: 'completed', caller: null },
          { message: this.#agentMessage(rec, 'script complete') },
        );
        return;
      }
      switch (d.kind) {
        case 'work':
        case 'tool':
          if (rec.stepsDone < d.steps) {
            this.#scheduleStep(rec);
            return;
          }
          rec.pc++;
          rec.stepsDone = 0;
          continue;
        case 'await': {
          rec.pc++;
          const conditions: ResumeConditions = { onEvent: d.event };
          if (d.timeout) conditions.timeout = d.timeout;
          this.#enterPause(rec, {
            initiatedBy: 'PAUSE_INITIATOR_AGENT',
            mode: DEFAULT_PAUSE_MODE,
            reason: `awaiting event ${d.event}`,
            conditions,
            caller: null,
          });
          return;
        }
        case 'sleep-until':
          rec.pc++;
          if (d.atMs <= this.#now()) continue;
          this.#enterPause(rec, {
            initiatedBy: 'PAUSE_INITIATOR_AGENT',
            mode: DEFAULT_PAUSE_MODE,
            reason: `sleeping until ${d.at}`,
            conditions: { trigger: { at: d.at } },
            caller: null,
          });
          return;
        case 'interrupt':
          // Interrupted until the next message on the task: accept() takes it, start() continues.
          rec.pc++;
          this.#setStatus(
            rec,
            d.state,
            { cause: 'script', caller: null },
            { message: this.#agentMessage(rec, INTERRUPT_TEXT[d.state]) },
          );
          return;
        case 'fail':
          rec.pc++;
          this.#setStatus(
            rec,
            'TASK_STATE_FAILED',
            { cause: 'failure', caller: null },
            { message: this.#agentMessage(rec, 'the script says fail') },
          );
          return;
        default: {
          const never: never = d;
          throw new Error(`unknown directive ${JSON.stringify(never)}`);
        }
      }
    }
  }

  #scheduleStep(rec: TaskRecord): void {
    const startedAt = this.#now();
    rec.step = { startedAt, handle: this.#scheduler.schedule(startedAt + this.#stepMs, () => this.#stepDone(rec)) };
  }

  #stepDone(rec: TaskRecord): void {
    rec.step = undefined;
    const d = rec.script[rec.pc];
    if (rec.task.status.state !== 'TASK_STATE_WORKING' || (d?.kind !== 'work' && d?.kind !== 'tool')) return;
    const k = rec.stepsDone + 1;
    rec.stepsDone = k;
    const artifact: Artifact | undefined =
      d.kind === 'work'
        ? {
            artifactId: `artifact-${rec.pc + 1}-${k}`,
            name: `step ${k} of ${d.steps}`,
            parts: [{ text: `directive ${rec.pc + 1} (work:${d.steps}): step ${k} done` }],
          }
        : k === d.steps
          ? {
              artifactId: `artifact-${rec.pc + 1}-tool`,
              name: `tool call of ${d.steps} steps`,
              parts: [{ text: `directive ${rec.pc + 1} (tool:${d.steps}): tool call complete` }],
            }
          : undefined;
    if (artifact) {
      rec.task.artifacts.push(artifact);
      this.#emit(rec, {
        artifactUpdate: { taskId: rec.task.id, contextId: rec.task.contextId, artifact, lastChunk: true },
      });
    }
    const pending = rec.pending;
    if (pending && (pending.until === 'step' || d.kind !== 'tool' || k === d.steps)) {
      rec.pending = undefined;
      this.#settlePending(rec, pending, pending.mode);
      return;
    }
    this.#advance(rec);
  }

  // ---- pause ----

  /** PauseTask (RFC "PauseTask"): resolves with the result once the task is PAUSED. */
  pause(params: PauseTaskParams, caller: Caller): Promise<JsonObject> {
    const request: PauseRequest = {
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      mode: params.mode,
      reason: params.reason,
      caller,
    };
    return this.#attempt('PauseTask', params.taskId, caller, undefined, () =>
      this.#requestPause(params.taskId, request),
    );
  }

  /** AwaitTaskResumption (RFC): an agent-initiated pause with the given conditions. */
  awaitResumption(params: AwaitTaskResumptionParams, caller: Caller): Promise<JsonObject> {
    const request: PauseRequest = {
      initiatedBy: 'PAUSE_INITIATOR_AGENT',
      mode: DEFAULT_PAUSE_MODE,
      reason: params.reason,
      conditions: params.conditions,
      summary: params.summary,
      caller,
    };
    return this.#attempt('AwaitTaskResumption', params.taskId, caller, undefined, () =>
      this.#requestPause(params.taskId, request),
    );
  }

  /** Runs a pause or resume attempt; a refusal is logged (event `rejected`), then passed on. */
  async #attempt<T>(
    method: PauseAttemptMethod,
    taskId: string,
    caller: Caller,
    token: string | undefined,
    run: () => T | Promise<T>,
  ): Promise<T> {
    try {
      return await run();
    } catch (error) {
      this.#rejected(method, taskId, caller, token, error);
      throw error;
    }
  }

  #rejected(
    method: PauseAttemptMethod,
    taskId: string,
    caller: Caller,
    token: string | undefined,
    error: unknown,
  ): void {
    if (!this.#onTransition || !(error instanceof RpcFailure)) return;
    const rec = this.#tasks.get(taskId);
    this.#onTransition({
      event: 'rejected',
      at: this.#iso(),
      taskId,
      contextId: rec?.task.contextId ?? null,
      method,
      principal: caller.principal,
      state: rec?.task.status.state ?? null,
      errorCode: JSON_RPC_ERRORS[error.errorName].code,
      reason: JSON_RPC_ERRORS[error.errorName].reason,
      resumeTokenHash: token === undefined ? null : tokenHashOf(token),
    });
  }

  /** When a pause in `mode` may happen on a WORKING task: now, or at the end of a step or tool call. */
  #pauseWait(rec: TaskRecord, mode: PauseMode): PauseWait {
    const stepInFlight = rec.step !== undefined && rec.step.startedAt < this.#now();
    const d = rec.script[rec.pc];
    const toolInFlight = d?.kind === 'tool' && (stepInFlight || rec.stepsDone > 0);
    switch (mode) {
      case 'interrupt_immediate':
        return 'now';
      case 'finish_step':
        return stepInFlight ? 'step' : 'now';
      case 'wait_for_completion':
        return toolInFlight ? 'tool' : stepInFlight ? 'step' : 'now';
      default: {
        const never: never = mode;
        return never;
      }
    }
  }

  #requestPause(taskId: string, request: PauseRequest): Promise<JsonObject> {
    const rec = this.#get(taskId, 'params.taskId');
    if (rec.paused) return Promise.resolve(pauseResultView(rec.task.id, rec.paused.pause, this.#view(rec)));
    const pending = rec.pending;
    if (pending) {
      const joined = new Promise<JsonObject>((resolve, reject) => pending.waiters.push({ resolve, reject }));
      const wait = this.#pauseWait(rec, request.mode);
      if (wait === 'now') {
        rec.pending = undefined;
        this.#settlePending(rec, pending, request.mode);
      } else if (URGENCY[wait] < URGENCY[pending.until]) {
        pending.until = wait;
        this.#announcePending(rec, wait, request.caller);
      }
      return joined;
    }
    const state = rec.task.status.state;
    const verdict = checkTransition(state, 'TASK_STATE_PAUSED');
    if (!verdict.allowed) {
      return Promise.reject(
        new RpcFailure('INVALID_TASK_STATE', `task ${rec.task.id} cannot be paused: ${verdict.reason}`, {
          taskId: rec.task.id,
          state,
        }),
      );
    }
    const wait = this.#pauseWait(rec, request.mode);
    if (wait === 'now') return Promise.resolve(this.#enterPause(rec, request));
    return new Promise((resolve, reject) => {
      rec.pending = { ...request, until: wait, waiters: [{ resolve, reject }] };
      this.#announcePending(rec, wait, request.caller);
    });
  }

  /** The WORKING status update saying what a pending pause waits for (not a transition). */
  #announcePending(rec: TaskRecord, until: PendingPause['until'], caller: Caller | null): void {
    this.#setStatus(
      rec,
      'TASK_STATE_WORKING',
      { cause: 'pause_request', caller },
      { message: this.#agentMessage(rec, PENDING_TEXT[until], { pausePending: until }) },
    );
  }

  /** Enters the pending pause (in `mode`) and answers everyone waiting for it. */
  #settlePending(rec: TaskRecord, pending: PendingPause, mode: PauseMode): void {
    let result: JsonObject;
    try {
      result = this.#enterPause(rec, { ...pending, mode });
    } catch (error) {
      for (const w of pending.waiters) w.reject(error);
      throw error;
    }
    for (const w of pending.waiters) w.resolve(result);
  }

  #enterPause(rec: TaskRecord, request: PauseRequest): JsonObject {
    // Everything is computed before the task is touched: nothing below can leave it half moved.
    const pausedAtMs = this.#now();
    const conditions = request.conditions;
    const pause: TaskPause = {
      initiatedBy: request.initiatedBy,
      pausedAt: isoAt(pausedAtMs),
      resumeToken: this.#ids.next('suspend'),
      resumable: true,
    };
    if (request.reason !== undefined) pause.reason = request.reason;
    const timeoutAt = conditions?.timeout ? pausedAtMs + conditions.timeout.durationMinutes * 60_000 : undefined;
    if (timeoutAt !== undefined) pause.pausedUntil = isoAt(timeoutAt);
    if (conditions) pause.conditions = conditions;
    pause.resumeMode = resumeModeOf(conditions);
    const triggerAt = conditions?.trigger ? Date.parse(conditions.trigger.at) : undefined;
    const mode = request.initiatedBy === 'PAUSE_INITIATOR_CLIENT' ? request.mode : undefined;

    if (request.mode === 'interrupt_immediate') {
      const d = rec.script[rec.pc];
      // The tool call in flight is aborted and redone from its first step; a work step from its start.
      if (d?.kind === 'tool' && (rec.stepsDone > 0 || (rec.step && rec.step.startedAt < pausedAtMs))) {
        rec.stepsDone = 0;
      }
    }
    // A step not yet begun, or one interrupt_immediate aborts, is scheduled again after the resume.
    this.#scheduler.cancel(rec.step?.handle);
    rec.step = undefined;
    const current: CurrentPause = { pause, mode, timers: [] };
    rec.paused = current;
    const extra: { pause: TaskPause; message?: Message } = { pause };
    if (request.summary !== undefined) extra.message = this.#agentMessage(rec, request.summary, { pauseSummary: true });
    const token = pause.resumeToken;
    this.#setStatus(
      rec,
      'TASK_STATE_PAUSED',
      {
        cause: request.caller ? 'pause_request' : 'script',
        caller: request.caller,
        token,
        pause: {
          reason: pause.reason ?? null,
          mode: mode ?? null,
          conditions: conditions ?? null,
          pausedUntil: pause.pausedUntil ?? null,
        },
      },
      extra,
    );
    if (triggerAt !== undefined) {
      current.timers.push(this.#scheduler.schedule(triggerAt, () => this.#conditionFired(rec, token)));
    }
    if (timeoutAt !== undefined && conditions?.timeout) {
      const { durationMinutes, onTimeout } = conditions.timeout;
      current.timers.push(
        this.#scheduler.schedule(timeoutAt, () => {
          if (rec.paused?.pause.resumeToken !== token) return;
          if (onTimeout === 'resume') {
            this.#leavePause(rec, 'timeout', null, undefined, true);
            return;
          }
          this.#retirePause(rec);
          this.#setStatus(
            rec,
            'TASK_STATE_FAILED',
            { cause: 'timeout', caller: null, token },
            {
              message: this.#agentMessage(
                rec,
                `the pause timed out after ${durationMinutes} minutes (onTimeout: fail)`,
              ),
            },
          );
        }),
      );
    }
    return pauseResultView(rec.task.id, pause, { legacy: this.#legacy, mode });
  }

  #conditionFired(rec: TaskRecord, token: string): void {
    if (rec.paused?.pause.resumeToken !== token) return;
    this.#leavePause(rec, 'condition_fired', null, undefined, true);
  }

  /** Retires the current pause: its timers stop and its token can never be used again. */
  #retirePause(rec: TaskRecord): CurrentPause | undefined {
    const current = rec.paused;
    for (const t of current?.timers ?? []) this.#scheduler.cancel(t);
    rec.paused = undefined;
    return current;
  }

  // ---- resume ----

  #leavePause(
    rec: TaskRecord,
    cause: ResumeCause,
    caller: Caller | null,
    input: JsonValue | undefined,
    continueTranscript: boolean,
  ): ResumeTaskResult & { meta: ResumeEventMetadata } {
    const current = this.#retirePause(rec);
    const resumedAt = this.#iso();
    if (!continueTranscript) {
      const before = rec.task.history.length;
      const digest =
        `digest of the transcript before the pause at ` +
        `${current?.pause.pausedAt ?? resumedAt}: ${before} messages, ${rec.task.artifacts.length} artifacts`;
      rec.task.history.push(this.#agentMessage(rec, digest, { transcriptDigest: true }));
    }
    if (input !== undefined) {
      rec.task.history.push({
        messageId: this.#ids.next('msg'),
        contextId: rec.task.contextId,
        taskId: rec.task.id,
        role: 'ROLE_USER',
        parts: [{ data: input }],
        metadata: { resumeInput: true },
      });
    }
    const meta: ResumeEventMetadata = {
      previousState: 'TASK_STATE_PAUSED',
      cause,
      hadResumeInput: input !== undefined,
      continueTranscript,
      resumedAt,
    };
    this.#setStatus(rec, 'TASK_STATE_WORKING', { cause, caller, token: current?.pause.resumeToken }, { resume: meta });
    this.#advance(rec);
    return {
      taskId: rec.task.id,
      state: 'TASK_STATE_WORKING',
      previousState: 'TASK_STATE_PAUSED',
      cause,
      resumedAt,
      meta,
    };
  }

  /**
   * ResumeTask, checked in docs/design.md §3's order: unknown task -32001; not PAUSED -32010; token not
   * the current pause's -32011. Node runs each call to completion, so of N racing resumes the
   * first wins and the others find the task WORKING (-32010) or a newer token (-32011).
   */
  resume(params: ResumeTaskParams, caller: Caller): Promise<JsonObject> {
    return this.#attempt('ResumeTask', params.taskId, caller, params.resumeToken, () => {
      const rec = this.#get(params.taskId, 'params.taskId');
      const state = rec.task.status.state;
      if (state !== 'TASK_STATE_PAUSED' || !rec.paused) {
        throw new RpcFailure(
          'INVALID_TASK_STATE',
          `task ${rec.task.id} is ${state}, not TASK_STATE_PAUSED: there is no pause to resume`,
          {
            taskId: rec.task.id,
            state,
          },
        );
      }
      if (!sameToken(params.resumeToken, rec.paused.pause.resumeToken)) {
        throw new RpcFailure(
          'RESUME_TOKEN_MISMATCH',
          `params.resumeToken does not match the current pause of task ${rec.task.id} (tokens are consume-once)`,
          { taskId: rec.task.id },
        );
      }
      const { meta, ...result } = this.#leavePause(
        rec,
        'explicit_resume',
        caller,
        params.input,
        params.continueTranscript,
      );
      return resumeResultView(result, meta, { legacy: this.#legacy });
    });
  }

  /**
   * FireEvent (control channel): resumes every paused task whose `onEvent` is `name`
   * (`condition_fired`), then the paused task named by `payload.taskId` if it was not among
   * them (`external_event`). Returns the resumed task ids in that order.
   */
  fireEvent(name: string, payload: JsonValue | undefined, caller: Caller): string[] {
    const resumed: string[] = [];
    for (const rec of [...this.#tasks.values()]) {
      if (rec.paused?.pause.conditions?.onEvent !== name) continue;
      this.#leavePause(rec, 'condition_fired', caller, undefined, true);
      resumed.push(rec.task.id);
    }
    const target =
      payload !== null && typeof payload === 'object' && !Array.isArray(payload) && typeof payload.taskId === 'string'
        ? payload.taskId
        : undefined;
    if (target !== undefined && !resumed.includes(target)) {
      const rec = this.#tasks.get(target);
      if (rec?.paused) {
        this.#leavePause(rec, 'external_event', caller, undefined, true);
        resumed.push(target);
      }
    }
    return resumed;
  }

  // ---- cancel, subscribe, shutdown ----

  /** CancelTask (A2A v1.0 §3.1.5; RFC PAUSED → CANCELED). Terminal tasks → -32002. */
  cancel(id: string, caller: Caller): Task {
    const rec = this.#get(id, 'params.id');
    const state = rec.task.status.state;
    if (isTerminal(state)) {
      throw new RpcFailure('TASK_NOT_CANCELABLE', `task ${id} is ${state}: a terminal task cannot be canceled`, {
        taskId: id,
        state,
      });
    }
    const pending = rec.pending;
    rec.pending = undefined;
    const left = this.#retirePause(rec);
    this.#setStatus(rec, 'TASK_STATE_CANCELED', { cause: 'canceled', caller, token: left?.pause.resumeToken });
    for (const w of pending?.waiters ?? []) {
      w.reject(
        new RpcFailure('INVALID_TASK_STATE', `task ${id} was canceled before it could pause`, {
          taskId: id,
          state: 'TASK_STATE_CANCELED',
        }),
      );
    }
    return taskView(rec.task, this.#view(rec));
  }

  /**
   * Attaches a stream: sends the current Task first (A2A v1.0 §3.1.6), then every later event
   * in order until the task is terminal. The caller refuses terminal tasks first.
   */
  subscribe(id: string, subscriber: Subscriber): () => void {
    const rec = this.#get(id, 'params.id');
    this.#track(subscriber.send({ task: taskView(rec.task, this.#view(rec)) }));
    if (isTerminal(rec.task.status.state)) {
      subscriber.close();
      return () => undefined;
    }
    rec.subscribers.add(subscriber);
    return () => rec.subscribers.delete(subscriber);
  }

  /** The pause view of a task currently paused (tests, diagnostics). */
  currentPause(id: string): TaskPause | undefined {
    return this.#tasks.get(id)?.paused?.pause;
  }

  /** Every kept task's id and state (invariant checks, diagnostics). */
  taskStates(): { id: string; state: TaskState }[] {
    return [...this.#tasks.values()].map((r) => ({ id: r.task.id, state: r.task.status.state }));
  }

  /** Stops every timer and ends every stream. */
  close(): void {
    this.#scheduler.dispose();
    for (const rec of this.#tasks.values()) {
      for (const sub of rec.subscribers) sub.close();
      rec.subscribers.clear();
    }
  }
}
