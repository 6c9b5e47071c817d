/**
 * @module peer/task-mover
 * What moves a task of the reference peer (docs/design.md §4 "Phases"): every change of a task's
 * {@link Phase} goes through {@link TaskMover.setPhase}, guarded by the RFC state machine, which
 * stops what the old phase scheduled, emits the status update and reports the transition; the
 * scripted agent's steps, entering a pause (with the timers of its conditions) and leaving one
 * live here too. The {@link TaskEngine} (src/peer/task-engine.ts) checks requests and calls in.
 * With a store, a stream sees a pause, a resume or an end only once it is durable, in order with
 * the task's other events ({@link TaskMover.inOrder}, docs/design.md §4 "The store").
 */
import { isoAt } from '../clock.js';
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';
import type { IdSource } from '../ids.js';
import { checkTransition } from '../protocol/state-machine.js';
import {
  DEFAULT_PAUSE_MODE,
  type Message,
  type ResumeCause,
  type ResumeConditions,
  type ResumeEventMetadata,
  type ResumeTaskResult,
  type StreamResponse,
  type TaskState,
  type TaskStatus,
} from '../protocol/types.js';
import { tokenHashOf } from '../recording/resume-token.js';
import { PENDING_TEXT, planPause } from './pause-plan.js';
import { CountingIdSource, type PeerStore } from './peer-store.js';
import { RpcFailure } from './rpc-failure.js';
import type { Scheduler, TimerHandle } from './scheduler.js';
import { type Directive, type InterruptState, stepArtifact } from './script.js';
import {
  type Caller,
  type PauseRequest,
  type PendingPause,
  type Phase,
  type Subscriber,
  type TaskRecord,
  type Why,
  WORKING,
  stateOfPhase,
} from './task-phase.js';
import { snapshotOf } from './task-restore.js';
import type { TaskStore } from './task-store.js';
import type { TransitionSink } from './transition-log.js';
import { type ViewOptions, pauseResultView, pausedEventView, resumedEventView, statusEventView } from './wire-views.js';

/** The status message of each interrupted state. */
const INTERRUPT_TEXT: Readonly<Record<InterruptState, string>> = {
  TASK_STATE_INPUT_REQUIRED: 'input required: send a message with this taskId to continue',
  TASK_STATE_AUTH_REQUIRED: 'credentials required: send a message with this taskId to authenticate and continue',
};

/** What a status change may carry besides the new phase. */
interface StatusExtra {
  message?: Message | undefined;
  resume?: ResumeEventMetadata | undefined;
}

export interface TaskMoverOptions {
  scheduler: Scheduler;
  ids: IdSource;
  /** Duration of one work step in clock ms. */
  stepMs: number;
  legacy: boolean;
  /** The kept tasks (a task that finishes may evict older finished ones). */
  tasks: TaskStore<TaskRecord>;
  onTransition: TransitionSink | undefined;
  /** Where every change of a task is written (`peer --store`). */
  store?: PeerStore | undefined;
  /** Clock ms after which an `ask:` step moves on with no input (`peer --bypass-ask-after`). */
  bypassAskAfterMs?: number | undefined;
}

export class TaskMover {
  readonly #scheduler: Scheduler;
  readonly #ids: IdSource;
  readonly #stepMs: number;
  readonly #bypassAskAfterMs: number | undefined;
  readonly #legacy: boolean;
  readonly #tasks: TaskStore<TaskRecord>;
  readonly #onTransition: TransitionSink | undefined;
  readonly #writes = new Set<Promise<void>>();
  readonly #store: PeerStore | undefined;
  /** Per task, the last of its stream deliveries still waiting (with a store). */
  readonly #queued = new WeakMap<TaskRecord, Promise<void>>();
  /** Streams ended because the store could not sync: nothing more is sent to them. */
  readonly #cut = new WeakSet<Subscriber>();

  constructor(options: TaskMoverOptions) {
    this.#store = options.store;
    this.#scheduler = options.scheduler;
    this.#ids = options.ids;
    this.#stepMs = options.stepMs;
    this.#bypassAskAfterMs = options.bypassAskAfterMs;
    this.#legacy = options.legacy;
    this.#tasks = options.tasks;
    this.#onTransition = options.onTransition;
  }

  /**
   * Resolves once every event emitted so far was handed to its socket and, with a store, every
   * change so far (and where the clock stands) is on disk.
   */
  async flushed(): Promise<void> {
    await Promise.all([...this.#writes]);
    if (!this.#store) return;
    this.#store.clock(this.iso());
    await this.#store.durable();
  }

  /** Resolves once every line written to the store so far is on disk; at once without a store. */
  durable(): Promise<void> {
    return this.#store ? this.#store.durable() : Promise.resolve();
  }

  /** Writes the task's state to the store, if any (after every change of it). */
  persist(rec: TaskRecord): void {
    if (!this.#store) return;
    const ids = this.#ids instanceof CountingIdSource ? this.#ids.counts() : {};
    this.#store.task(this.iso(), ids, snapshotOf(rec));
  }

  // ---- time, views, events ----

  now(): number {
    return this.#scheduler.clock.now();
  }

  iso(): string {
    return isoAt(this.now());
  }

  view(rec: TaskRecord, extra: Partial<ViewOptions> = {}): ViewOptions {
    return { legacy: this.#legacy, mode: rec.phase.kind === 'paused' ? rec.phase.mode : undefined, ...extra };
  }

  /**
   * Sends `event` to the task's streams. With a store, an event that is `durable` (it shows a
   * pause, a resume or an end) goes out only once every line written so far is on disk, and no
   * event of a task overtakes one still waiting (docs/design.md §4 "The store").
   */
  emit(rec: TaskRecord, event: StreamResponse, durable = false): void {
    this.inOrder(rec, [...rec.subscribers], durable, (sub) => sub.send(event));
  }

  /**
   * Sends a new stream its first event, the task as it stands: after the task's events still
   * waiting, since it shows what they show (a pause whose line is not on disk yet waits there).
   */
  greet(rec: TaskRecord, sub: Subscriber, event: StreamResponse): void {
    this.inOrder(rec, [sub], false, (s) => s.send(event));
  }

  /**
   * Runs `deliver` for each of `subs` after what was queued for the task before and, when
   * `durable`, once the store holds every line written so far; without a store, or with nothing
   * to wait for, now. When the store cannot sync, the task's streams end instead: what is not on
   * disk is never shown.
   */
  inOrder(rec: TaskRecord, subs: Subscriber[], durable: boolean, deliver: (sub: Subscriber) => Promise<void>): void {
    const before = this.#queued.get(rec);
    const run = async (): Promise<void> => {
      await Promise.all(subs.filter((sub) => !this.#cut.has(sub)).map(deliver));
    };
    if (!this.#store || (!durable && before === undefined)) {
      this.track(run());
      return;
    }
    const gate = durable ? this.#store.durable() : undefined;
    const queued = Promise.all([before, gate]).then(run, () => this.cut(rec, subs));
    const settled = queued.then(
      () => undefined,
      () => undefined,
    );
    this.#queued.set(rec, settled);
    void settled.then(() => {
      if (this.#queued.get(rec) === settled) this.#queued.delete(rec);
    });
    this.track(settled);
  }

  /** Ends the task's streams (and `subs`): its store could not make a change durable. */
  cut(rec: TaskRecord, subs: Subscriber[]): void {
    for (const sub of [...subs, ...rec.subscribers]) {
      this.#cut.add(sub);
      sub.close();
    }
    rec.subscribers.clear();
  }

  track(write: Promise<void>): void {
    const settled = write.then(
      () => undefined,
      () => undefined,
    );
    this.#writes.add(settled);
    void settled.then(() => this.#writes.delete(settled));
  }

  agentMessage(rec: TaskRecord, text: string, metadata?: JsonObject): Message {
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
   * Moves the task into `next`, guarded by the RFC state machine: what the phase left behind
   * stops (a scheduled step, a pause's timers), the status update is emitted and the transition
   * logged (a WORKING → WORKING progress update is not a transition).
   */
  setPhase(rec: TaskRecord, next: Phase, why: Why, extra: StatusExtra = {}): void {
    const from = rec.task.status.state;
    const state = stateOfPhase(next);
    const verdict = checkTransition(from, state);
    if (!verdict.allowed) {
      throw new RpcFailure('INTERNAL', `task ${rec.task.id} cannot move from ${from} to ${state}: ${verdict.reason}`);
    }
    this.leavePhase(rec.phase, next);
    rec.phase = next;
    const status: TaskStatus = { state, timestamp: this.iso() };
    if (extra.message) {
      status.message = extra.message;
      rec.task.history.push(extra.message);
    }
    if (next.kind === 'paused') status.pause = next.pause;
    rec.task.status = status;
    if (from !== state) this.logTransition(rec, from, why);
    const view = this.view(rec);
    const event =
      next.kind === 'paused'
        ? pausedEventView(rec.task, view)
        : extra.resume
          ? resumedEventView(rec.task, extra.resume, view)
          : statusEventView(rec.task);
    // Written first: a pause, a resume or an end reaches a stream only once its line is durable.
    this.persist(rec);
    const durable = next.kind === 'paused' || next.kind === 'terminal' || extra.resume !== undefined;
    this.emit(rec, { statusUpdate: event }, durable);
    if (next.kind === 'terminal') this.finish(rec);
    for (const watch of [...rec.watchers]) watch();
  }

  /** Stops what `prev` scheduled that `next` does not keep. */
  leavePhase(prev: Phase, next: Phase): void {
    switch (prev.kind) {
      case 'working':
        if (next.kind !== 'working') this.#scheduler.cancel(prev.step?.handle);
        return;
      case 'paused':
        // Leaving a pause in any way retires its token with its timers.
        for (const t of prev.timers) this.#scheduler.cancel(t);
        return;
      case 'interrupted':
        this.#scheduler.cancel(prev.bypass);
        return;
      case 'submitted':
      case 'terminal':
        return;
      default: {
        const never: never = prev;
        return never;
      }
    }
  }

  logTransition(rec: TaskRecord, from: TaskState | null, why: Why): void {
    if (!this.#onTransition) return;
    const to = rec.task.status.state;
    this.#onTransition({
      event: 'transition',
      at: rec.task.status.timestamp ?? this.iso(),
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

  finish(rec: TaskRecord): void {
    const subs = [...rec.subscribers];
    rec.subscribers.clear();
    // After the terminal event, once it went out.
    this.inOrder(rec, subs, false, async (sub) => sub.close());
    for (const gone of this.#tasks.finished(rec.task.id)) this.evicted(gone);
  }

  /** Reports a finished task dropped to keep at most `--max-tasks` of them. */
  evicted(gone: TaskRecord): void {
    this.#onTransition?.({
      event: 'evicted',
      at: this.iso(),
      taskId: gone.task.id,
      contextId: gone.task.contextId,
      state: gone.task.status.state,
    });
  }

  /**
   * The timer of a bypassed gate (`peer --bypass-ask-after`): an `ask:` step moves on with no
   * input that many clock ms after it asked (docs/design.md §4).
   */
  #bypassOf(rec: TaskRecord, d: Extract<Directive, { kind: 'interrupt' }>): TimerHandle | undefined {
    const after = this.#bypassAskAfterMs;
    if (after === undefined || d.prompt === undefined || d.state !== 'TASK_STATE_INPUT_REQUIRED') return undefined;
    const handle = this.#scheduler.schedule(this.now() + after, () => {
      if (rec.phase.kind !== 'interrupted' || rec.phase.bypass !== handle) return;
      this.setPhase(rec, WORKING, { cause: 'script', caller: null });
      this.advance(rec);
    });
    return handle;
  }

  /** Runs directives until one waits (a step, a park, an interrupt) or the script ends. */
  advance(rec: TaskRecord): void {
    for (;;) {
      if (rec.phase.kind !== 'working') return;
      const d = rec.script[rec.pc];
      if (!d) {
        this.setPhase(
          rec,
          { kind: 'terminal', state: 'TASK_STATE_COMPLETED' },
          { cause: 'completed', caller: null },
          { message: this.agentMessage(rec, 'script complete') },
        );
        return;
      }
      switch (d.kind) {
        case 'work':
        case 'tool':
          if (rec.stepsDone < d.steps) {
            this.scheduleStep(rec);
            return;
          }
          rec.pc++;
          rec.stepsDone = 0;
          continue;
        case 'await': {
          rec.pc++;
          const conditions: ResumeConditions = { onEvent: d.event };
          if (d.timeout) conditions.timeout = d.timeout;
          this.enterPause(rec, {
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
          if (d.atMs <= this.now()) continue;
          this.enterPause(rec, {
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
          this.setPhase(
            rec,
            { kind: 'interrupted', state: d.state, bypass: this.#bypassOf(rec, d) },
            { cause: 'script', caller: null },
            { message: this.agentMessage(rec, d.prompt ?? INTERRUPT_TEXT[d.state]) },
          );
          return;
        case 'fail':
          rec.pc++;
          this.setPhase(
            rec,
            { kind: 'terminal', state: 'TASK_STATE_FAILED' },
            { cause: 'failure', caller: null },
            { message: this.agentMessage(rec, 'the script says fail') },
          );
          return;
        default: {
          const never: never = d;
          throw new Error(`unknown directive ${JSON.stringify(never)}`);
        }
      }
    }
  }

  scheduleStep(rec: TaskRecord): void {
    if (rec.phase.kind !== 'working') return;
    const startedAt = this.now();
    const handle = this.#scheduler.schedule(startedAt + this.#stepMs, () => this.stepDone(rec));
    rec.phase = { ...rec.phase, step: { startedAt, handle } };
  }

  stepDone(rec: TaskRecord): void {
    const phase = rec.phase;
    const d = rec.script[rec.pc];
    if (phase.kind !== 'working' || (d?.kind !== 'work' && d?.kind !== 'tool')) return;
    rec.phase = { ...phase, step: undefined };
    const k = rec.stepsDone + 1;
    rec.stepsDone = k;
    const artifact = stepArtifact(d, rec.pc, k);
    if (artifact) {
      rec.task.artifacts.push(artifact);
      this.emit(rec, {
        artifactUpdate: { taskId: rec.task.id, contextId: rec.task.contextId, artifact, lastChunk: true },
      });
    }
    this.persist(rec);
    const pending = phase.pending;
    if (pending && (pending.until === 'step' || d.kind !== 'tool' || k === d.steps)) {
      rec.phase = WORKING;
      this.settlePending(rec, pending, pending.mode);
      return;
    }
    this.advance(rec);
  }

  /** The WORKING status update saying what a pending pause waits for (not a transition). */
  announcePending(rec: TaskRecord, until: PendingPause['until'], caller: Caller | null): void {
    this.setPhase(
      rec,
      rec.phase,
      { cause: 'pause_request', caller },
      { message: this.agentMessage(rec, PENDING_TEXT[until], { pausePending: until }) },
    );
  }

  /** Enters the pending pause (in `mode`) and answers everyone waiting for it. */
  settlePending(rec: TaskRecord, pending: PendingPause, mode: PendingPause['mode']): void {
    let result: JsonObject;
    try {
      result = this.enterPause(rec, { ...pending, mode });
    } catch (error) {
      for (const w of pending.waiters) w.reject(error);
      throw error;
    }
    for (const w of pending.waiters) w.resolve(result);
  }

  enterPause(rec: TaskRecord, request: PauseRequest): JsonObject {
    // Everything is computed before the task is touched: nothing below can leave it half moved.
    const pausedAtMs = this.now();
    const plan = planPause(request, pausedAtMs, this.#ids.next('suspend'));
    const { pause, mode } = plan;
    if (request.mode === 'interrupt_immediate' && rec.phase.kind === 'working') {
      const d = rec.script[rec.pc];
      const step = rec.phase.step;
      // The tool call in flight is aborted and redone from its first step; a work step from its start.
      if (d?.kind === 'tool' && (rec.stepsDone > 0 || (step && step.startedAt < pausedAtMs))) rec.stepsDone = 0;
    }
    // A step not yet begun, or one interrupt_immediate aborts, is scheduled again after the resume
    // (leaving WORKING cancels it).
    const summary =
      request.summary === undefined ? undefined : this.agentMessage(rec, request.summary, { pauseSummary: true });
    const paused: Extract<Phase, { kind: 'paused' }> = { kind: 'paused', pause, mode, timers: [] };
    this.setPhase(
      rec,
      paused,
      {
        cause: request.caller ? 'pause_request' : 'script',
        caller: request.caller,
        token: pause.resumeToken,
        pause: {
          reason: pause.reason ?? null,
          mode: mode ?? null,
          conditions: request.conditions ?? null,
          pausedUntil: pause.pausedUntil ?? null,
        },
      },
      { message: summary },
    );
    this.armPause(rec, paused, plan.triggerAt, plan.timeoutAt);
    return pauseResultView(rec.task.id, pause, { legacy: this.#legacy, mode });
  }

  /** Schedules what ends the pause by itself: its trigger and its timeout. */
  armPause(
    rec: TaskRecord,
    paused: Extract<Phase, { kind: 'paused' }>,
    triggerAt: number | undefined,
    timeoutAt: number | undefined,
  ): void {
    const current = (): boolean => rec.phase === paused;
    if (triggerAt !== undefined) {
      paused.timers.push(
        this.#scheduler.schedule(triggerAt, () => {
          if (current()) this.leavePause(rec, 'condition_fired', null, undefined, true);
        }),
      );
    }
    const timeout = paused.pause.conditions?.timeout;
    if (timeoutAt === undefined || !timeout) return;
    paused.timers.push(
      this.#scheduler.schedule(timeoutAt, () => {
        if (!current()) return;
        if (timeout.onTimeout === 'resume') {
          this.leavePause(rec, 'timeout', null, undefined, true);
          return;
        }
        this.setPhase(
          rec,
          { kind: 'terminal', state: 'TASK_STATE_FAILED' },
          { cause: 'timeout', caller: null, token: paused.pause.resumeToken },
          {
            message: this.agentMessage(
              rec,
              `the pause timed out after ${timeout.durationMinutes} minutes (onTimeout: fail)`,
            ),
          },
        );
      }),
    );
  }

  // ---- resume ----

  leavePause(
    rec: TaskRecord,
    cause: ResumeCause,
    caller: Caller | null,
    input: JsonValue | undefined,
    continueTranscript: boolean,
  ): ResumeTaskResult & { meta: ResumeEventMetadata } {
    const left = rec.phase.kind === 'paused' ? rec.phase.pause : undefined;
    const resumedAt = this.iso();
    if (!continueTranscript) {
      const before = rec.task.history.length;
      const digest =
        `digest of the transcript before the pause at ` +
        `${left?.pausedAt ?? resumedAt}: ${before} messages, ${rec.task.artifacts.length} artifacts`;
      rec.task.history.push(this.agentMessage(rec, digest, { transcriptDigest: true }));
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
    this.setPhase(rec, WORKING, { cause, caller, token: left?.resumeToken }, { resume: meta });
    this.advance(rec);
    return {
      taskId: rec.task.id,
      state: 'TASK_STATE_WORKING',
      previousState: 'TASK_STATE_PAUSED',
      cause,
      resumedAt,
      meta,
    };
  }
}
