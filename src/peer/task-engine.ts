/**
 * @module peer/task-engine
 * The reference peer's task engine: tasks, the scripted agent that drives them, and the
 * paused-state RFC's pause/resume semantics with docs/design.md §3's decisions. Written once against an
 * injected {@link Scheduler} (virtual or real time) and {@link IdSource}; it does no network I/O
 * and reports every event to its {@link Subscriber}s.
 *
 * Decisions where the RFC is silent (docs/design.md §3–§4):
 * - Pause modes. With real timers a work step is "in flight" between its start and its
 *   artifact: `finish_step` and `wait_for_completion` (the scripted agent has no tool calls, so
 *   the two coincide) let it finish and emit its artifact, then pause; `interrupt_immediate`
 *   aborts it and redoes it in full after resume. With the virtual clock no step is in flight
 *   between clock moves, so all modes pause at once: `interrupt_immediate` drops the pending
 *   step's progress (redone in full after resume), the others keep it (the step completes the
 *   same virtual time after resume as it still had to go at the pause).
 *   AwaitTaskResumption pauses in the default mode (`finish_step`).
 * - Idempotency. PauseTask or AwaitTaskResumption on a PAUSED task returns the current pause
 *   unchanged (same token, same pausedAt); on a task whose pause is pending (a step is
 *   finishing) it waits for the same pause. An `interrupt_immediate` request escalates a
 *   pending one.
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
 * - ListTasks lists newest task first; `pageToken` is an offset; artifacts only with
 *   `includeArtifacts: true`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isoAt } from '../clock.js';
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';
import type { IdSource } from '../ids.js';
import type {
  AwaitTaskResumptionParams,
  ListTasksParams,
  ListTasksResult,
  PauseTaskParams,
} from '../protocol/types.js';
import { formatIssue } from '../protocol/read.js';
import { checkTransition, isTerminal } from '../protocol/state-machine.js';
import {
  DEFAULT_PAUSE_MODE,
  type Artifact,
  type Message,
  type PauseInitiator,
  type PauseMode,
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
import { RpcFailure } from './rpc-failure.js';
import type { Scheduler, TimerHandle } from './scheduler.js';
import { type Directive, type InterruptState, parseScript } from './script.js';
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

interface PauseRequest {
  initiatedBy: PauseInitiator;
  mode: PauseMode;
  reason?: string | undefined;
  conditions?: ResumeConditions | undefined;
  summary?: string | undefined;
}

interface Waiter {
  resolve: (result: JsonObject) => void;
  reject: (error: unknown) => void;
}

interface CurrentPause {
  pause: TaskPause;
  mode: PauseMode | undefined;
  timers: TimerHandle[];
}

interface TaskRecord {
  readonly task: Task & { artifacts: Artifact[]; history: Message[] };
  readonly seq: number;
  readonly script: Directive[];
  /** Index of the directive being run. */
  pc: number;
  /** Steps of the current `work:N` already done. */
  stepsDone: number;
  /** The step in flight, if any. */
  step?: { handle: TimerHandle; dueAt: number } | undefined;
  /** After a pause that cut a step short: how long the step still takes after resume. */
  resumeStepIn?: number | undefined;
  paused?: CurrentPause | undefined;
  /** A pause waiting for the step in flight to finish (real time only). */
  pending?: (PauseRequest & { waiters: Waiter[] }) | undefined;
  readonly subscribers: Set<Subscriber>;
  readonly watchers: Set<() => void>;
}

export interface TaskEngineOptions {
  scheduler: Scheduler;
  ids: IdSource;
  /** Duration of one work step in clock ms. */
  stepMs: number;
  legacy: boolean;
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
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #writes = new Set<Promise<void>>();
  #seq = 0;

  constructor(options: TaskEngineOptions) {
    this.#scheduler = options.scheduler;
    this.#ids = options.ids;
    this.#stepMs = options.stepMs;
    this.#legacy = options.legacy;
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
    for (const sub of rec.subscribers) {
      const write = sub.send(event).then(
        () => undefined,
        () => undefined,
      );
      this.#writes.add(write);
      void write.then(() => this.#writes.delete(write));
    }
  }

  #agentMessage(rec: TaskRecord, text: string, metadata?: JsonObject): Message {
    const message: Message = {
      messageId: this.#ids.next('msg'),
      contextId: rec.task.contextId ?? '',
      taskId: rec.task.id,
      role: 'ROLE_AGENT',
      parts: [{ text }],
    };
    if (metadata) message.metadata = metadata;
    return message;
  }

  /** Moves the task, guarded by the RFC state machine, and emits the status update. */
  #setStatus(
    rec: TaskRecord,
    state: TaskState,
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

  #finish(rec: TaskRecord): void {
    this.#scheduler.cancel(rec.step?.handle);
    rec.step = undefined;
    for (const t of rec.paused?.timers ?? []) this.#scheduler.cancel(t);
    rec.paused = undefined;
    for (const sub of rec.subscribers) sub.close();
    rec.subscribers.clear();
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

  /** Whether the task exists and is terminal (SubscribeToTask refuses those with -32004). */
  taskState(id: string): TaskState {
    return this.#get(id, 'params.id').task.status.state;
  }

  // ---- messages and the scripted agent ----

  /**
   * Accepts a SendMessage / SendStreamingMessage: a new task (SUBMITTED) for a message without
   * `taskId`, or the continuation of an INPUT_REQUIRED or AUTH_REQUIRED task. Call {@link start}
   * after subscribing.
   */
  accept(params: SendMessageParams): string {
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
      rec.task.history.push({ ...m, taskId: rec.task.id, contextId: rec.task.contextId ?? '' });
      return rec.task.id;
    }
    const script = parseScript(m.parts, 'params.message.parts');
    if (!script.ok) throw new RpcFailure('INVALID_PARAMS', formatIssue(script.issue));
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
      seq: this.#seq++,
      script: script.directives,
      pc: 0,
      stepsDone: 0,
      subscribers: new Set(),
      watchers: new Set(),
    };
    this.#tasks.set(id, rec);
    return id;
  }

  /** Starts (SUBMITTED) or continues (INPUT_REQUIRED, AUTH_REQUIRED) an accepted task. */
  start(id: string): void {
    const rec = this.#get(id, 'params.message.taskId');
    const state = rec.task.status.state;
    if (state !== 'TASK_STATE_SUBMITTED' && !INTERRUPTED.has(state)) return;
    this.#setStatus(rec, 'TASK_STATE_WORKING');
    this.#advance(rec);
  }

  /** Resolves when the task is terminal or interrupted (INPUT_REQUIRED, AUTH_REQUIRED, PAUSED). */
  untilSettled(id: string): Promise<void> {
    const rec = this.#get(id, 'params.id');
    if (SETTLED.has(rec.task.status.state)) return Promise.resolve();
    return new Promise((resolve) => {
      const watch = (): void => {
        if (!SETTLED.has(rec.task.status.state)) return;
        rec.watchers.delete(watch);
        resolve();
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
        this.#setStatus(rec, 'TASK_STATE_COMPLETED', { message: this.#agentMessage(rec, 'script complete') });
        return;
      }
      switch (d.kind) {
        case 'work':
          if (rec.stepsDone < d.steps) {
            this.#scheduleStep(rec, this.#stepMs);
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
          });
          return;
        case 'interrupt':
          // Interrupted until the next message on the task: accept() takes it, start() continues.
          rec.pc++;
          this.#setStatus(rec, d.state, { message: this.#agentMessage(rec, INTERRUPT_TEXT[d.state]) });
          return;
        case 'fail':
          rec.pc++;
          this.#setStatus(rec, 'TASK_STATE_FAILED', { message: this.#agentMessage(rec, 'the script says fail') });
          return;
        default: {
          const never: never = d;
          throw new Error(`unknown directive ${JSON.stringify(never)}`);
        }
      }
    }
  }

  #scheduleStep(rec: TaskRecord, inMs: number): void {
    const dueAt = this.#now() + inMs;
    rec.step = { dueAt, handle: this.#scheduler.schedule(dueAt, () => this.#stepDone(rec)) };
  }

  #stepDone(rec: TaskRecord): void {
    rec.step = undefined;
    const d = rec.script[rec.pc];
    if (rec.task.status.state !== 'TASK_STATE_WORKING' || d?.kind !== 'work') return;
    const k = rec.stepsDone + 1;
    const artifact: Artifact = {
      artifactId: `artifact-${rec.pc + 1}-${k}`,
      name: `step ${k} of ${d.steps}`,
      parts: [{ text: `directive ${rec.pc + 1} (work:${d.steps}): step ${k} done` }],
    };
    rec.task.artifacts.push(artifact);
    rec.stepsDone = k;
    this.#emit(rec, {
      artifactUpdate: { taskId: rec.task.id, contextId: rec.task.contextId ?? '', artifact, lastChunk: true },
    });
    const pending = rec.pending;
    if (pending) {
      rec.pending = undefined;
      const result = this.#enterPause(rec, pending);
      for (const w of pending.waiters) w.resolve(result);
      return;
    }
    this.#advance(rec);
  }

  // ---- pause ----

  /** PauseTask (RFC "PauseTask"): resolves with the result once the task is PAUSED. */
  pause(params: PauseTaskParams): Promise<JsonObject> {
    const request: PauseRequest = { initiatedBy: 'PAUSE_INITIATOR_CLIENT', mode: params.mode, reason: params.reason };
    return this.#requestPause(params.taskId, request);
  }

  /** AwaitTaskResumption (RFC): an agent-initiated pause with the given conditions. */
  awaitResumption(params: AwaitTaskResumptionParams): Promise<JsonObject> {
    return this.#requestPause(params.taskId, {
      initiatedBy: 'PAUSE_INITIATOR_AGENT',
      mode: DEFAULT_PAUSE_MODE,
      reason: params.reason,
      conditions: params.conditions,
      summary: params.summary,
    });
  }

  #requestPause(taskId: string, request: PauseRequest): Promise<JsonObject> {
    const rec = this.#get(taskId, 'params.taskId');
    if (rec.paused) return Promise.resolve(pauseResultView(rec.task.id, rec.paused.pause, this.#view(rec)));
    if (rec.pending) {
      const pending = rec.pending;
      const joined = new Promise<JsonObject>((resolve, reject) => pending.waiters.push({ resolve, reject }));
      if (request.mode === 'interrupt_immediate') {
        rec.pending = undefined;
        const result = this.#enterPause(rec, { ...pending, mode: 'interrupt_immediate' });
        for (const w of pending.waiters) w.resolve(result);
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
    if (rec.step && !this.#scheduler.virtual && request.mode !== 'interrupt_immediate') {
      return new Promise((resolve, reject) => {
        rec.pending = { ...request, waiters: [{ resolve, reject }] };
      });
    }
    return Promise.resolve(this.#enterPause(rec, request));
  }

  #enterPause(rec: TaskRecord, request: PauseRequest): JsonObject {
    if (rec.step) {
      const remaining =
        request.mode === 'interrupt_immediate' ? this.#stepMs : Math.max(0, rec.step.dueAt - this.#now());
      this.#scheduler.cancel(rec.step.handle);
      rec.step = undefined;
      rec.resumeStepIn = remaining;
    }
    const pausedAtMs = this.#now();
    const pause: TaskPause = {
      initiatedBy: request.initiatedBy,
      pausedAt: isoAt(pausedAtMs),
      resumeToken: this.#ids.next('suspend'),
      resumable: true,
    };
    if (request.reason !== undefined) pause.reason = request.reason;
    const conditions = request.conditions;
    if (conditions?.timeout) pause.pausedUntil = isoAt(pausedAtMs + conditions.timeout.durationMinutes * 60_000);
    if (conditions) pause.conditions = conditions;
    pause.resumeMode = resumeModeOf(conditions);
    const current: CurrentPause = {
      pause,
      mode: request.initiatedBy === 'PAUSE_INITIATOR_CLIENT' ? request.mode : undefined,
      timers: [],
    };
    rec.paused = current;
    const extra: { pause: TaskPause; message?: Message } = { pause };
    if (request.summary !== undefined) extra.message = this.#agentMessage(rec, request.summary, { pauseSummary: true });
    this.#setStatus(rec, 'TASK_STATE_PAUSED', extra);
    const token = pause.resumeToken;
    if (conditions?.trigger) {
      const at = Date.parse(conditions.trigger.at);
      current.timers.push(this.#scheduler.schedule(at, () => this.#conditionFired(rec, token, 'condition_fired')));
    }
    if (conditions?.timeout) {
      const { durationMinutes, onTimeout } = conditions.timeout;
      const at = pausedAtMs + durationMinutes * 60_000;
      current.timers.push(
        this.#scheduler.schedule(at, () => {
          if (rec.paused?.pause.resumeToken !== token) return;
          if (onTimeout === 'resume') {
            this.#leavePause(rec, 'timeout', undefined, true);
            return;
          }
          this.#retirePause(rec);
          this.#setStatus(rec, 'TASK_STATE_FAILED', {
            message: this.#agentMessage(rec, `the pause timed out after ${durationMinutes} minutes (onTimeout: fail)`),
          });
        }),
      );
    }
    return pauseResultView(rec.task.id, pause, { legacy: this.#legacy, mode: current.mode });
  }

  #conditionFired(rec: TaskRecord, token: string, cause: ResumeCause): void {
    if (rec.paused?.pause.resumeToken !== token) return;
    this.#leavePause(rec, cause, undefined, true);
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
        contextId: rec.task.contextId ?? '',
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
    this.#setStatus(rec, 'TASK_STATE_WORKING', { resume: meta });
    if (rec.resumeStepIn !== undefined) {
      const inMs = rec.resumeStepIn;
      rec.resumeStepIn = undefined;
      this.#scheduleStep(rec, inMs);
    } else {
      this.#advance(rec);
    }
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
  resume(params: ResumeTaskParams): JsonObject {
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
    const { meta, ...result } = this.#leavePause(rec, 'explicit_resume', params.input, params.continueTranscript);
    return resumeResultView(result, meta, { legacy: this.#legacy });
  }

  /**
   * FireEvent (control channel): resumes every paused task whose `onEvent` is `name`
   * (`condition_fired`), then the paused task named by `payload.taskId` if it was not among
   * them (`external_event`). Returns the resumed task ids in that order.
   */
  fireEvent(name: string, payload: JsonValue | undefined): string[] {
    const resumed: string[] = [];
    for (const rec of [...this.#tasks.values()]) {
      if (rec.paused?.pause.conditions?.onEvent !== name) continue;
      this.#leavePause(rec, 'condition_fired', undefined, true);
      resumed.push(rec.task.id);
    }
    const target =
      payload !== null && typeof payload === 'object' && !Array.isArray(payload) && typeof payload.taskId === 'string'
        ? payload.taskId
        : undefined;
    if (target !== undefined && !resumed.includes(target)) {
      const rec = this.#tasks.get(target);
      if (rec?.paused) {
        this.#leavePause(rec, 'external_event', undefined, true);
        resumed.push(target);
      }
    }
    return resumed;
  }

  // ---- cancel, subscribe, shutdown ----

  /** CancelTask (A2A v1.0 §3.1.5; RFC PAUSED → CANCELED). Terminal tasks → -32002. */
  cancel(id: string): Task {
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
    this.#retirePause(rec);
    this.#setStatus(rec, 'TASK_STATE_CANCELED');
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
    const first = subscriber.send({ task: taskView(rec.task, this.#view(rec)) }).then(
      () => undefined,
      () => undefined,
    );
    this.#writes.add(first);
    void first.then(() => this.#writes.delete(first));
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

  /** Stops every timer and ends every stream. */
  close(): void {
    this.#scheduler.dispose();
    for (const rec of this.#tasks.values()) {
      for (const sub of rec.subscribers) sub.close();
      rec.subscribers.clear();
    }
  }
}
