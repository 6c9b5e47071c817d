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
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';
import type { IdSource } from '../ids.js';
import { JSON_RPC_ERRORS } from '../protocol/errors.js';
import { formatIssue } from '../protocol/read.js';
import { checkTransition } from '../protocol/state-machine.js';
import {
  DEFAULT_PAUSE_MODE,
  type AwaitTaskResumptionParams,
  type ListTasksParams,
  type ListTasksResult,
  type Message,
  type PauseTaskParams,
  type ResumeTaskParams,
  type SendMessageParams,
  type Task,
  type TaskPause,
  type TaskState,
} from '../protocol/types.js';
import { tokenHashOf } from '../recording/resume-token.js';
import { URGENCY, pauseDeadlinesOf, pauseWait, sameToken } from './pause-plan.js';
import type { PeerStore, RestoredState } from './peer-store.js';
import { RpcFailure } from './rpc-failure.js';
import type { Scheduler } from './scheduler.js';
import { parseScript } from './script.js';
import { listTaskPage } from './task-list.js';
import {
  type Caller,
  type PauseRequest,
  type PendingPause,
  type Subscriber,
  type TaskRecord,
  WORKING,
  isSettled,
} from './task-phase.js';
import { TaskMover } from './task-mover.js';
import { recordOf } from './task-restore.js';
import { TaskStore } from './task-store.js';
import type { PauseAttemptMethod, TransitionSink } from './transition-log.js';
import { pauseResultView, resumeResultView, taskView } from './wire-views.js';

export type { Caller, Subscriber } from './task-phase.js';

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
  /**
   * Writes every change of a task and every transition there (`peer --store`); answers wait for
   * it to be on disk ({@link TaskEngine.flushed}). Give `ids` as a CountingIdSource with it.
   */
  store?: PeerStore | undefined;
  /** Clock ms after which an `ask:` step moves on with no input (`peer --bypass-ask-after`). */
  bypassAskAfterMs?: number | undefined;
}

/** The FireEvent name that stands for credentials arriving for an AUTH_REQUIRED task (§4). */
export const CREDENTIALS_EVENT = 'credentials';

export class TaskEngine {
  readonly #scheduler: Scheduler;
  readonly #ids: IdSource;
  readonly #legacy: boolean;
  readonly #tasks: TaskStore<TaskRecord>;
  readonly #onTransition: TransitionSink | undefined;
  readonly #mover: TaskMover;

  constructor(options: TaskEngineOptions) {
    this.#scheduler = options.scheduler;
    this.#ids = options.ids;
    this.#legacy = options.legacy;
    this.#tasks = new TaskStore<TaskRecord>(options.maxTasks);
    const store = options.store;
    const sink = options.onTransition;
    this.#onTransition = store
      ? (fact) => {
          store.transition(fact);
          sink?.(fact);
        }
      : sink;
    this.#mover = new TaskMover({ ...options, tasks: this.#tasks, onTransition: this.#onTransition });
  }

  /** Resolves once every event emitted so far was handed to its socket. */
  flushed(): Promise<void> {
    return this.#mover.flushed();
  }

  /** Resolves once every change so far is on disk (at once without a store): what an answer may show. */
  durable(): Promise<void> {
    return this.#mover.durable();
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
    return taskView(rec.task, this.#mover.view(rec, { historyLength }));
  }

  /** ListTasks (A2A v1.0 §3.1.4): newest first, offset page tokens. */
  listTasks(params: ListTasksParams): ListTasksResult {
    return listTaskPage(this.#tasks.values(), params, (r) =>
      taskView(
        r.task,
        this.#mover.view(r, {
          historyLength: params.historyLength,
          includeArtifacts: params.includeArtifacts ?? false,
        }),
      ),
    );
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
    if (m.taskId !== undefined && m.taskId !== '') return this.#acceptFollowUp(m, m.taskId);
    const script = parseScript(m.parts, 'params.message.parts');
    if (!script.ok) throw new RpcFailure('INVALID_PARAMS', formatIssue(script.issue), { field: script.issue.field });
    const id = this.#ids.next('task');
    const contextId = m.contextId !== undefined && m.contextId !== '' ? m.contextId : this.#ids.next('ctx');
    const rec: TaskRecord = {
      task: {
        id,
        contextId,
        status: { state: 'TASK_STATE_SUBMITTED', timestamp: this.#mover.iso() },
        artifacts: [],
        history: [{ ...m, taskId: id, contextId }],
      },
      script: script.directives,
      pc: 0,
      stepsDone: 0,
      phase: { kind: 'submitted' },
      subscribers: new Set(),
      watchers: new Set(),
    };
    this.#tasks.add(id, rec);
    this.#mover.logTransition(rec, null, { cause: 'message', caller });
    this.#mover.persist(rec);
    return id;
  }

  /** A follow-up message: only an interrupted task takes one (docs/design.md §4). */
  #acceptFollowUp(m: Message, taskId: string): string {
    const rec = this.#get(taskId, 'params.message.taskId');
    const phase = rec.phase;
    const state = rec.task.status.state;
    switch (phase.kind) {
      case 'terminal':
        throw new RpcFailure(
          'UNSUPPORTED_OPERATION',
          `task ${rec.task.id} is ${state}: a terminal task takes no more messages`,
          { taskId: rec.task.id },
        );
      case 'submitted':
      case 'working':
      case 'paused':
        throw new RpcFailure(
          'INVALID_TASK_STATE',
          `task ${rec.task.id} is ${state}: only a TASK_STATE_INPUT_REQUIRED or ` +
            `TASK_STATE_AUTH_REQUIRED task takes a follow-up message (a paused task is resumed with ResumeTask)`,
          { taskId: rec.task.id, state },
        );
      case 'interrupted':
        break;
      default: {
        const never: never = phase;
        return never;
      }
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

  /** Starts (SUBMITTED) or continues (INPUT_REQUIRED, AUTH_REQUIRED) an accepted task. */
  start(id: string, caller: Caller): void {
    const rec = this.#get(id, 'params.message.taskId');
    if (rec.phase.kind !== 'submitted' && rec.phase.kind !== 'interrupted') return;
    this.#mover.setPhase(rec, WORKING, { cause: 'message', caller });
    this.#mover.advance(rec);
  }

  /**
   * Resolves with the task's view (as GetTask would show it) as soon as it is terminal or
   * interrupted (INPUT_REQUIRED, AUTH_REQUIRED, PAUSED): a blocking SendMessage's answer.
   */
  untilSettled(id: string, historyLength?: number): Promise<Task> {
    const rec = this.#get(id, 'params.id');
    const view = (): Task => taskView(rec.task, this.#mover.view(rec, { historyLength }));
    if (isSettled(rec.phase)) return Promise.resolve(view());
    return new Promise((resolve) => {
      const watch = (): void => {
        if (!isSettled(rec.phase)) return;
        rec.watchers.delete(watch);
        resolve(view());
      };
      rec.watchers.add(watch);
    });
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
      at: this.#mover.iso(),
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

  /** When a pause in `request.mode` may happen on the WORKING task `rec`. */
  #waitOf(rec: TaskRecord, request: PauseRequest): ReturnType<typeof pauseWait> {
    const step = rec.phase.kind === 'working' ? rec.phase.step : undefined;
    const stepInFlight = step !== undefined && step.startedAt < this.#mover.now();
    return pauseWait(request.mode, rec.script[rec.pc], stepInFlight, rec.stepsDone);
  }

  #requestPause(taskId: string, request: PauseRequest): Promise<JsonObject> {
    const rec = this.#get(taskId, 'params.taskId');
    const phase = rec.phase;
    switch (phase.kind) {
      case 'paused':
        return Promise.resolve(pauseResultView(rec.task.id, phase.pause, this.#mover.view(rec)));
      case 'working':
        return phase.pending ? this.#joinPending(rec, phase.pending, request) : this.#pauseWorking(rec, request);
      case 'submitted':
      case 'interrupted':
      case 'terminal': {
        const state = rec.task.status.state;
        const verdict = checkTransition(state, 'TASK_STATE_PAUSED');
        const why = verdict.allowed ? `${state} is not TASK_STATE_WORKING` : verdict.reason;
        return Promise.reject(
          new RpcFailure('INVALID_TASK_STATE', `task ${rec.task.id} cannot be paused: ${why}`, {
            taskId: rec.task.id,
            state,
          }),
        );
      }
      default: {
        const never: never = phase;
        return never;
      }
    }
  }

  /** A pause request on a WORKING task with no pause pending: now, or pending until a step or tool call ends. */
  #pauseWorking(rec: TaskRecord, request: PauseRequest): Promise<JsonObject> {
    const wait = this.#waitOf(rec, request);
    if (wait === 'now') return Promise.resolve(this.#mover.enterPause(rec, request));
    return new Promise((resolve, reject) => {
      if (rec.phase.kind !== 'working') return;
      rec.phase = { ...rec.phase, pending: { ...request, until: wait, waiters: [{ resolve, reject }] } };
      this.#mover.announcePending(rec, wait, request.caller);
    });
  }

  /** A later request joins the pending pause; it may make it happen now, or narrow what it waits for. */
  #joinPending(rec: TaskRecord, pending: PendingPause, request: PauseRequest): Promise<JsonObject> {
    const joined = new Promise<JsonObject>((resolve, reject) => pending.waiters.push({ resolve, reject }));
    const wait = this.#waitOf(rec, request);
    if (wait === 'now') {
      if (rec.phase.kind === 'working') rec.phase = { ...rec.phase, pending: undefined };
      this.#mover.settlePending(rec, pending, request.mode);
    } else if (URGENCY[wait] < URGENCY[pending.until]) {
      pending.until = wait;
      this.#mover.announcePending(rec, wait, request.caller);
    }
    return joined;
  }

  /**
   * ResumeTask, checked in docs/design.md §3's order: unknown task -32001; not PAUSED -32010; token not
   * the current pause's -32011. Node runs each call to completion, so of N racing resumes the
   * first wins and the others find the task WORKING (-32010) or a newer token (-32011).
   */
  resume(params: ResumeTaskParams, caller: Caller): Promise<JsonObject> {
    return this.#attempt('ResumeTask', params.taskId, caller, params.resumeToken, () => {
      const rec = this.#get(params.taskId, 'params.taskId');
      const phase = rec.phase;
      if (phase.kind !== 'paused') {
        const state = rec.task.status.state;
        throw new RpcFailure(
          'INVALID_TASK_STATE',
          `task ${rec.task.id} is ${state}, not TASK_STATE_PAUSED: there is no pause to resume`,
          { taskId: rec.task.id, state },
        );
      }
      if (!sameToken(params.resumeToken, phase.pause.resumeToken)) {
        throw new RpcFailure(
          'RESUME_TOKEN_MISMATCH',
          `params.resumeToken does not match the current pause of task ${rec.task.id} (tokens are consume-once)`,
          { taskId: rec.task.id },
        );
      }
      const { meta, ...result } = this.#mover.leavePause(
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
   * them (`external_event`). Returns the resumed task ids in that order. FireEvent
   * `credentials` whose `payload.taskId` names an AUTH_REQUIRED task continues it (the credentials
   * arrived out of band, A2A v1.0 §7.6), cause `external_event`; it is no resume, so not listed.
   */
  fireEvent(name: string, payload: JsonValue | undefined, caller: Caller): string[] {
    const resumed: string[] = [];
    for (const rec of [...this.#tasks.values()]) {
      if (rec.phase.kind !== 'paused' || rec.phase.pause.conditions?.onEvent !== name) continue;
      this.#mover.leavePause(rec, 'condition_fired', caller, undefined, true);
      resumed.push(rec.task.id);
    }
    const target =
      payload !== null && typeof payload === 'object' && !Array.isArray(payload) && typeof payload.taskId === 'string'
        ? payload.taskId
        : undefined;
    if (target !== undefined && !resumed.includes(target)) {
      const rec = this.#tasks.get(target);
      if (rec?.phase.kind === 'paused') {
        this.#mover.leavePause(rec, 'external_event', caller, undefined, true);
        resumed.push(target);
      } else if (
        name === CREDENTIALS_EVENT &&
        rec?.phase.kind === 'interrupted' &&
        rec.phase.state === 'TASK_STATE_AUTH_REQUIRED'
      ) {
        this.#mover.setPhase(rec, WORKING, { cause: 'external_event', caller });
        this.#mover.advance(rec);
      }
    }
    return resumed;
  }

  // ---- cancel, subscribe, shutdown ----

  /** CancelTask (A2A v1.0 §3.1.5; RFC PAUSED → CANCELED). Terminal tasks → -32002. */
  cancel(id: string, caller: Caller): Task {
    const rec = this.#get(id, 'params.id');
    const phase = rec.phase;
    if (phase.kind === 'terminal') {
      throw new RpcFailure('TASK_NOT_CANCELABLE', `task ${id} is ${phase.state}: a terminal task cannot be canceled`, {
        taskId: id,
        state: phase.state,
      });
    }
    const pending = phase.kind === 'working' ? phase.pending : undefined;
    const token = phase.kind === 'paused' ? phase.pause.resumeToken : undefined;
    this.#mover.setPhase(rec, { kind: 'terminal', state: 'TASK_STATE_CANCELED' }, { cause: 'canceled', caller, token });
    for (const w of pending?.waiters ?? []) {
      w.reject(
        new RpcFailure('INVALID_TASK_STATE', `task ${id} was canceled before it could pause`, {
          taskId: id,
          state: 'TASK_STATE_CANCELED',
        }),
      );
    }
    return taskView(rec.task, this.#mover.view(rec));
  }

  /**
   * Attaches a stream: sends the current Task first (A2A v1.0 §3.1.6), then every later event
   * in order until the task is terminal. The caller refuses terminal tasks first.
   */
  subscribe(id: string, subscriber: Subscriber): () => void {
    const rec = this.#get(id, 'params.id');
    this.#mover.greet(rec, subscriber, { task: taskView(rec.task, this.#mover.view(rec)) });
    if (rec.phase.kind === 'terminal') {
      this.#mover.inOrder(rec, [subscriber], false, async (sub) => sub.close());
      return () => undefined;
    }
    rec.subscribers.add(subscriber);
    return () => rec.subscribers.delete(subscriber);
  }

  /**
   * Carries on from what a store held (docs/design.md §4 "The store"): every task comes back with
   * its phase; a paused one keeps its pause and token, its trigger and timeout armed again at
   * their instants (one passed meanwhile fires at once); a working one schedules its step again
   * from its start; a submitted one starts. Call before the peer serves.
   */
  restore(state: RestoredState): void {
    const records = state.tasks.map(recordOf);
    for (const rec of records) this.#tasks.add(rec.task.id, rec);
    // A smaller --max-tasks than the store was written with evicts the oldest finished now.
    for (const id of state.finished) for (const gone of this.#tasks.finished(id)) this.#mover.evicted(gone);
    for (const rec of records) {
      const phase = rec.phase;
      switch (phase.kind) {
        case 'submitted':
          this.#mover.setPhase(rec, WORKING, { cause: 'message', caller: null });
          this.#mover.advance(rec);
          break;
        case 'working':
          this.#mover.advance(rec);
          break;
        case 'paused': {
          const { triggerAt, timeoutAt } = pauseDeadlinesOf(phase.pause);
          this.#mover.armPause(rec, phase, triggerAt, timeoutAt);
          break;
        }
        case 'interrupted':
        case 'terminal':
          break;
        default: {
          const never: never = phase;
          return never;
        }
      }
    }
  }

  /** The pause view of a task currently paused (tests, diagnostics). */
  currentPause(id: string): TaskPause | undefined {
    const phase = this.#tasks.get(id)?.phase;
    return phase?.kind === 'paused' ? phase.pause : undefined;
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
