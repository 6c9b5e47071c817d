/**
 * @module observe/pause-observer
 * The PauseObserver (docs/design.md §2 "the key idea"): a pure state machine from recording entries to
 * receipt drafts, span events and findings. The recorder and the replayer feed it the same way,
 * so the same entries always give the same outputs; it reads no clock, no randomness, no I/O.
 *
 * Rules the specification leaves open, as implemented here:
 * - One pause is one receipt: pauses are keyed by task and `tokenHashOf(resumeToken)`. The
 *   receipt is emitted at the FIRST entry that proves PAUSED (a PauseTask / AwaitTaskResumption
 *   answer, a stream event, a task snapshot); later sightings of the same pause add nothing.
 * - A pause proven while a PauseTask / AwaitTaskResumption for that task is in flight is
 *   attributed to the earliest such call (principal, mode, `via`).
 * - A resume proven on a stream (`metadata.previousState = PAUSED`) while ResumeTask calls with
 *   the pause's token are in flight is attributed to the one call in flight; with several racing
 *   calls it waits until all but one failed or one succeeded. A resume with another cause is
 *   attributed to the latest control call after the pause that can have fired it: FireEvent whose
 *   `name` is the pause's `conditions.onEvent` (condition_fired / external_event), AdvanceClock
 *   (timeout, or condition_fired of a `trigger`). Its principal and request seq then count.
 * - Task snapshots (GetTask, ListTasks, SendMessage) prove pauses, but they decide how a pause
 *   ended only when no stream carries the task: a stream is the authority on order.
 * - Work on a stream counts against a pause (pause_ignored) only once that stream delivered the
 *   pause (or was opened after it), so events in flight before the pause are no evidence.
 * - A pause whose streams all ended is declared lost only at {@link PauseObserver.finish}
 *   (stream_ended), because a client may still resume it over a new connection.
 * - `pausedUntil` is judged on the peer's clock as estimated by {@link PeerClock}; a pause whose
 *   lease passed is declared lost at the next request entry (or at finish), so the peer's own
 *   timeout events that race the clock move still close it normally.
 *
 * The records it keeps (exchanges, tasks, suspensions, calls in flight) and their constructors
 * are in `observe/observer-state`; an entry's shape and the task a call names are read by
 * `observe/entry-reads`, pause and resume payloads by `observe/sightings`; span keys, ids and
 * attributes come from `observe/observer-spans`; the peer's clock from `observe/peer-clock`.
 */
import { JSON_RPC_ERRORS, type JsonRpcErrorObject } from '../protocol/errors.js';
import { parseJsonRpcMessage } from '../protocol/json-rpc.js';
import { CONTROL_METHODS, CONTROL_PATH } from '../protocol/methods.js';
import { isKnownMethod, parseMethodCall } from '../protocol/params.js';
import { parseSendMessageResult, parseStreamResponse, parseTask } from '../protocol/parse-objects.js';
import { formatIssue, isRecord } from '../protocol/read.js';
import { checkTransition } from '../protocol/state-machine.js';
import {
  type PauseMode,
  type ResumeCause,
  TERMINAL_STATES,
  type TaskPause,
  type TaskState,
} from '../protocol/types.js';
import { buildResumptionDraft, buildSuspensionDraft } from '../receipts/drafts.js';
import type { ResumptionDraft, SpanRef, SuspensionDraft } from '../receipts/types.js';
import type { RecordingEntry } from '../recording/format.js';
import { tokenHashOf } from '../recording/resume-token.js';
import { type LostPauseReason, type SpanEvent, parseTraceparent } from '../tracing/span-events.js';
import { entryProblem, pausedUntilMs, taskIdFromRaw, taskIdOfCall } from './entry-reads.js';
import type { FindingCode, ObserverFinding } from './findings.js';
import {
  lostAttributes,
  lostKey,
  resumeEndAttributes,
  resumeStartAttributes,
  rootSpan,
  suspensionEndAttributes,
  suspensionStartAttributes,
  taskAttributes,
  taskSpanKey,
} from './observer-spans.js';
import {
  type ClosingFacts,
  type Closer,
  type ControlCall,
  type Exchange,
  type Origin,
  type PendingPause,
  type ResumeSpan,
  type Suspension,
  type TaskRecord,
  closerFacts,
  closingFacts,
  eventResumeSpan,
  newCloser,
  newSuspension,
  newTaskRecord,
} from './observer-state.js';
import { PeerClock } from './peer-clock.js';
import {
  type ResumeSignal,
  type Sighting,
  type SightingIssue,
  codeForField,
  issueOf,
  readPauseCallResult,
  readResumeCallResult,
  sightStatusUpdate,
  sightTask,
} from './sightings.js';

export interface ObserverOptions {
  /** The recording header's `id`: every span id derives from it (docs/design.md §7). */
  recordingId: string;
}

/**
 * What one entry (or the end of the recording) produced, in the order to act on it. For a pause:
 * `span suspension.start` (unless emitted earlier) → `span suspension.end` → `suspension`; for a
 * resume: `span resume.start` (unless earlier) → `span resume.end` → `resumption`. The end event
 * and the draft share `key`, so a pipeline can seal the draft and put its hash on the span.
 */
export type ObserverOutput =
  | { type: 'suspension'; key: string; draft: SuspensionDraft }
  /** `suspensionKey` is the key of the `suspension` output this resumption closes (or attempted). */
  | { type: 'resumption'; key: string; suspensionKey: string; draft: ResumptionDraft }
  | { type: 'span'; event: SpanEvent }
  | { type: 'finding'; finding: ObserverFinding };

/** A pause that was observed and has not ended. */
export interface OpenSuspension {
  key: string;
  taskId: string;
  contextId: string | null;
  resumeTokenHash: string | null;
  pausedAt: string;
  pausedUntil: string | null;
  /** Seq of the entry that proved the pause. */
  provenSeq: number;
  span: SpanRef;
}

/** Control calls kept for attributing condition-fired resumes. */
const CONTROL_MEMORY = 64;
const { TASK_NOT_FOUND, INVALID_TASK_STATE, RESUME_TOKEN_MISMATCH } = JSON_RPC_ERRORS;

/**
 * Turns recording entries into receipt drafts and span events (docs/design.md §2, §6, §7). Feed every
 * entry once, in `seq` order, then call {@link finish}. Never throws: bad input becomes a
 * `finding` output and the observer carries on.
 */
export class PauseObserver {
  readonly #recordingId: string;
  readonly #exchanges = new Map<string, Exchange>();
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #open = new Set<Suspension>();
  readonly #resuming = new Set<Suspension>();
  readonly #orphans = new Set<string>();
  readonly #controls: ControlCall[] = [];
  readonly #clock = new PeerClock();
  #lastSeq = 0;
  #out: ObserverOutput[] = [];

  constructor(options: ObserverOptions) {
    this.#recordingId = options.recordingId;
  }

  /** Observes one entry; call once per entry, in `seq` order. */
  observe(entry: RecordingEntry): ObserverOutput[] {
    const out: ObserverOutput[] = [];
    this.#out = out;
    const problem = entryProblem(entry);
    if (problem !== undefined) {
      const seq = isRecord(entry) && typeof entry.seq === 'number' ? entry.seq : null;
      this.#finding('malformed-entry', seq, 'entry', `entry is not a recording entry: ${problem}`);
      return out;
    }
    try {
      if (entry.seq <= this.#lastSeq) {
        this.#finding(
          'out-of-order',
          entry.seq,
          'seq',
          `entry ${entry.seq} arrived after entry ${this.#lastSeq}: entries must be fed in seq order`,
        );
      } else {
        this.#lastSeq = entry.seq;
      }
      if (entry.kind === 'request') this.#declareOverdue(entry);
      switch (entry.kind) {
        case 'request':
          this.#onRequest(entry);
          break;
        case 'response':
          this.#onResponse(entry);
          break;
        case 'event':
          this.#onEvent(entry);
          break;
        case 'end':
        case 'error':
          this.#onEnd(entry);
          break;
        default: {
          const never: never = entry.kind;
          return never;
        }
      }
      this.#markOverdue(entry);
    } catch (error) {
      this.#finding(
        'observer-error',
        entry.seq,
        'entry',
        `could not observe entry ${entry.seq}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return out;
  }

  /**
   * The end of the recording or stream: every pause still open is lost (paused_until_passed,
   * stream_ended or recording_ended), racing resumes are settled, and every span still open is
   * ended. `at` is the time of the end (for replays, the last entry's `at`).
   */
  finish(at: string): ObserverOutput[] {
    const out: ObserverOutput[] = [];
    this.#out = out;
    try {
      const now = this.#clock.nowAt(at);
      for (const s of [...this.#open]) {
        const overdue = s.overdueSince !== undefined || (s.pausedUntilMs !== undefined && now > s.pausedUntilMs);
        const reason: LostPauseReason = overdue
          ? 'paused_until_passed'
          : s.streamEnded
            ? 'stream_ended'
            : 'recording_ended';
        this.#lose(s, reason, null, at);
      }
      for (const s of [...this.#resuming]) {
        const task = this.#tasks.get(s.taskId);
        const aw = s.awaiting;
        if (task && aw) this.#closeFromSignal(task, s, aw.signal, { seq: aw.seq, at: aw.at }, [aw.seq]);
      }
      for (const task of this.#tasks.values()) {
        for (const p of task.pendingPauses.values())
          this.#endPendingPause(p, at, 'no answer to the pause call before the recording ended');
        task.pendingPauses.clear();
        for (const c of task.closers.values()) {
          if (c.started && !c.ended)
            this.#endResume(
              c,
              at,
              {},
              `no answer to ${c.kind === 'resume' ? 'ResumeTask' : 'CancelTask'} before the recording ended`,
            );
        }
        task.closers.clear();
      }
      for (const task of this.#tasks.values()) {
        if (task.started && !task.ended) {
          task.ended = true;
          this.#span({
            type: 'task.end',
            key: taskSpanKey(task.taskId),
            at,
            attributes: taskAttributes(task.taskId, task.contextId, null),
          });
        }
      }
    } catch (error) {
      this.#finding(
        'observer-error',
        null,
        'finish',
        `could not finish: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return out;
  }

  /** Pauses observed and not ended, in the order they were proven. */
  openSuspensions(): ReadonlyArray<OpenSuspension> {
    return [...this.#open].map((s) => ({
      key: s.key,
      taskId: s.taskId,
      contextId: this.#tasks.get(s.taskId)?.contextId ?? null,
      resumeTokenHash: s.tokenHash,
      pausedAt: s.pausedAt,
      pausedUntil: s.pausedUntil,
      provenSeq: s.provenSeq,
      span: s.span,
    }));
  }

  // ---- outputs ----

  #span(event: SpanEvent): void {
    this.#out.push({ type: 'span', event });
  }

  #finding(code: FindingCode, seq: number | null, field: string, message: string, taskId?: string): void {
    const finding: ObserverFinding = { code, seq, field, message };
    if (taskId !== undefined) finding.taskId = taskId;
    this.#out.push({ type: 'finding', finding });
  }

  #issue(issue: SightingIssue, seq: number, taskId?: string): void {
    this.#finding(issue.code, seq, issue.field, issue.message, taskId);
  }

  // ---- tasks ----

  #task(taskId: string): TaskRecord {
    let task = this.#tasks.get(taskId);
    if (!task) {
      task = newTaskRecord(this.#recordingId, taskId);
      this.#tasks.set(taskId, task);
    }
    return task;
  }

  #startTask(task: TaskRecord, entry: RecordingEntry): void {
    if (task.started) return;
    task.started = true;
    this.#span({
      type: 'task.start',
      key: taskSpanKey(task.taskId),
      taskId: task.taskId,
      at: entry.at,
      span: task.span,
      attributes: taskAttributes(task.taskId, task.contextId, entry.seq),
    });
  }

  #endTask(task: TaskRecord, entry: RecordingEntry): void {
    task.terminal = true;
    if (!task.started || task.ended) return;
    task.ended = true;
    this.#span({
      type: 'task.end',
      key: taskSpanKey(task.taskId),
      at: entry.at,
      attributes: taskAttributes(task.taskId, task.contextId, entry.seq),
    });
  }

  // ---- entries ----

  #exchange(entry: RecordingEntry): Exchange | undefined {
    const ex = this.#exchanges.get(entry.xid);
    if (!ex && !this.#orphans.has(entry.xid)) {
      this.#orphans.add(entry.xid);
      this.#finding(
        'orphan-entry',
        entry.seq,
        'xid',
        `${entry.kind} entry ${entry.seq} belongs to exchange ${entry.xid}, which has no request`,
      );
    }
    return ex;
  }

  #onRequest(entry: RecordingEntry): void {
    if (this.#exchanges.has(entry.xid)) {
      this.#finding(
        'duplicate-request',
        entry.seq,
        'xid',
        `request entry ${entry.seq} reuses exchange id ${entry.xid}, already open`,
      );
      return;
    }
    const ex: Exchange = {
      xid: entry.xid,
      seq: entry.seq,
      at: entry.at,
      principal: entry.principal ?? null,
      parent: parseTraceparent(entry.http.headers?.traceparent),
      control: entry.http.path === CONTROL_PATH,
      rpcId: undefined,
      call: undefined,
      streaming: false,
      answered: false,
      carries: new Set(),
      lastState: new Map(),
    };
    this.#exchanges.set(entry.xid, ex);
    if (entry.body === undefined) {
      if (entry.bodyText !== undefined)
        this.#finding('malformed-json-rpc', entry.seq, 'bodyText', 'the request body is not JSON');
      return;
    }
    const message = parseJsonRpcMessage(entry.body);
    if (!message.ok) {
      this.#finding(
        'malformed-json-rpc',
        entry.seq,
        `body.${message.issue.field}`,
        `body.${formatIssue(message.issue)}`,
      );
      return;
    }
    const m = message.value;
    if (m.kind === 'notification') return;
    if (m.kind !== 'request') {
      this.#finding(
        'malformed-json-rpc',
        entry.seq,
        'body',
        'a request entry holds a JSON-RPC response, not a request',
      );
      return;
    }
    ex.rpcId = m.id;
    if ((CONTROL_METHODS as readonly string[]).includes(m.method)) ex.control = true;
    if (!isKnownMethod(m.method)) return;
    const call = parseMethodCall(m.method, m.params);
    if (!call.ok) {
      this.#finding(
        'malformed-params',
        entry.seq,
        `body.${call.issue.field}`,
        `body.${formatIssue(call.issue)}`,
        taskIdFromRaw(m.params),
      );
      return;
    }
    ex.call = call.value;
    const c = call.value;
    switch (c.method) {
      case 'PauseTask':
      case 'AwaitTaskResumption':
        this.#openPendingPause(
          ex,
          entry,
          c.params.taskId,
          c.method,
          c.method === 'PauseTask' ? c.params.mode : null,
          c.params.reason ?? null,
        );
        break;
      case 'ResumeTask': {
        const p = c.params;
        const task = this.#task(p.taskId);
        const tokenHash = tokenHashOf(p.resumeToken);
        const closer = newCloser(
          this.#recordingId,
          'resume',
          ex,
          entry,
          p.taskId,
          tokenHash,
          p.input,
          p.input !== undefined,
          p.continueTranscript,
        );
        closer.target = (tokenHash !== null ? task.byToken.get(tokenHash) : undefined) ?? task.open ?? task.last;
        task.closers.set(ex.xid, closer);
        if (closer.target) this.#startResume(closer, closer.target, closer.principal);
        break;
      }
      case 'CancelTask': {
        const task = this.#task(c.params.id);
        const closer = newCloser(this.#recordingId, 'cancel', ex, entry, c.params.id, null, undefined, false, null);
        closer.target = task.open;
        task.closers.set(ex.xid, closer);
        if (closer.target) this.#startResume(closer, closer.target, closer.principal);
        break;
      }
      case 'AdvanceClock':
        this.#remember({ seq: entry.seq, method: 'AdvanceClock', name: undefined, principal: ex.principal });
        break;
      case 'FireEvent':
        this.#remember({ seq: entry.seq, method: 'FireEvent', name: c.params.name, principal: ex.principal });
        break;
      case 'SendStreamingMessage':
      case 'SubscribeToTask':
        ex.streaming = true;
        break;
      case 'SendMessage':
      case 'GetTask':
      case 'ListTasks':
      case 'GetClock':
        break;
      default: {
        const never: never = c;
        return never;
      }
    }
  }

  #remember(call: ControlCall): void {
    this.#controls.push(call);
    if (this.#controls.length > CONTROL_MEMORY) this.#controls.shift();
  }

  #onResponse(entry: RecordingEntry): void {
    const ex = this.#exchange(entry);
    if (!ex) return;
    if (entry.body === undefined) {
      if (entry.bodyText === undefined) {
        ex.streaming = true;
        return;
      }
      if (ex.rpcId === undefined) return;
      ex.answered = true;
      this.#finding('malformed-json-rpc', entry.seq, 'bodyText', `the answer to exchange ${ex.xid} is not JSON`);
      this.#failCall(ex, entry, 'the answer is not JSON');
      return;
    }
    if (ex.rpcId === undefined) return;
    ex.answered = true;
    this.#onRpcAnswer(ex, entry, entry.body, false);
  }

  #onEvent(entry: RecordingEntry): void {
    const ex = this.#exchange(entry);
    if (!ex) return;
    ex.streaming = true;
    if (entry.body === undefined) {
      this.#finding('malformed-json-rpc', entry.seq, 'body', `SSE event ${entry.seq} has no JSON data`);
      return;
    }
    this.#onRpcAnswer(ex, entry, entry.body, true);
  }

  #onRpcAnswer(ex: Exchange, entry: RecordingEntry, body: unknown, isEvent: boolean): void {
    const message = parseJsonRpcMessage(body);
    if (!message.ok) {
      this.#finding(
        'malformed-json-rpc',
        entry.seq,
        `body.${message.issue.field}`,
        `body.${formatIssue(message.issue)}`,
      );
      if (!isEvent) this.#failCall(ex, entry, 'the answer is not a JSON-RPC response');
      return;
    }
    const m = message.value;
    if (m.kind === 'request' || m.kind === 'notification') {
      this.#finding(
        'malformed-json-rpc',
        entry.seq,
        'body',
        `${entry.kind} entry ${entry.seq} holds a JSON-RPC request, not a response`,
      );
      if (!isEvent) this.#failCall(ex, entry, 'the answer is not a JSON-RPC response');
      return;
    }
    if (m.id !== null && ex.rpcId !== undefined && m.id !== ex.rpcId) {
      this.#finding(
        'id-mismatch',
        entry.seq,
        'body.id',
        `body.id: expected ${JSON.stringify(ex.rpcId)} (the request's id); got ${JSON.stringify(m.id)}`,
      );
    }
    if (m.kind === 'error') {
      this.#onCallError(ex, entry, m.error);
      return;
    }
    if (ex.control) {
      this.#onControlResult(entry, m.result);
      return;
    }
    if (isEvent) {
      this.#onStreamResult(ex, entry, m.result);
      return;
    }
    this.#onCallResult(ex, entry, m.result);
  }

  #onControlResult(entry: RecordingEntry, result: unknown): void {
    if (!isRecord(result)) return;
    const now = result.now;
    if (typeof now === 'string') this.#clock.report(now, entry.at);
    else if (typeof now === 'number' && Number.isFinite(now)) this.#clock.report(new Date(now).toISOString(), entry.at);
  }

  #onStreamResult(ex: Exchange, entry: RecordingEntry, result: unknown): void {
    const field = 'body.result';
    const parsed = parseStreamResponse(result, field);
    if (!parsed.ok) {
      this.#issue(issueOf(codeForField(parsed.issue.field), parsed.issue), entry.seq, taskIdFromRaw(result));
      return;
    }
    const ev = parsed.value;
    switch (ev.kind) {
      case 'task': {
        const { sighting, issues } = sightTask(ev.task, `${field}.task`);
        this.#onSighting(entry, sighting, issues, { kind: 'stream', ex }, `${field}.task`);
        break;
      }
      case 'statusUpdate': {
        const { sighting, issues } = sightStatusUpdate(ev.statusUpdate, `${field}.statusUpdate`);
        this.#onSighting(entry, sighting, issues, { kind: 'stream', ex }, `${field}.statusUpdate`);
        break;
      }
      case 'artifactUpdate':
        this.#onWork(ex, entry, ev.artifactUpdate.taskId, ev.artifactUpdate.contextId);
        break;
      case 'message':
        break;
      default: {
        const never: never = ev;
        return never;
      }
    }
  }

  #onCallResult(ex: Exchange, entry: RecordingEntry, result: unknown): void {
    const call = ex.call;
    if (!call) return;
    const field = 'body.result';
    switch (call.method) {
      case 'SendMessage': {
        const parsed = parseSendMessageResult(result, field);
        if (!parsed.ok) this.#issue(issueOf(codeForField(parsed.issue.field), parsed.issue), entry.seq);
        else if ('task' in parsed.value) this.#onSnapshot(ex, entry, parsed.value.task, `${field}.task`, 'snapshot');
        break;
      }
      case 'SendStreamingMessage':
      case 'SubscribeToTask':
        // A JSON answer to a streaming method: the peer answered with one StreamResponse.
        this.#onStreamResult(ex, entry, result);
        break;
      case 'GetTask':
      case 'CancelTask': {
        const parsed = parseTask(result, field);
        if (!parsed.ok) {
          this.#issue(issueOf(codeForField(parsed.issue.field), parsed.issue), entry.seq, taskIdOfCall(call));
          this.#failCall(ex, entry, 'the answer is not a Task');
        } else {
          this.#onSnapshot(ex, entry, parsed.value, field, call.method === 'CancelTask' ? 'call' : 'snapshot');
          if (call.method === 'CancelTask') this.#cancelAnswered(ex, entry, parsed.value.status.state);
        }
        break;
      }
      case 'ListTasks': {
        if (!isRecord(result) || !Array.isArray(result.tasks)) {
          this.#finding('malformed-result', entry.seq, `${field}.tasks`, `${field}.tasks: expected an array of tasks`);
          break;
        }
        result.tasks.forEach((raw, i) => {
          const parsed = parseTask(raw, `${field}.tasks[${i}]`);
          if (!parsed.ok) this.#issue(issueOf(codeForField(parsed.issue.field), parsed.issue), entry.seq);
          else this.#onSnapshot(ex, entry, parsed.value, `${field}.tasks[${i}]`, 'snapshot');
        });
        break;
      }
      case 'PauseTask':
      case 'AwaitTaskResumption':
        this.#onPauseResult(ex, entry, call.params.taskId, result, field);
        break;
      case 'ResumeTask':
        this.#onResumeResult(ex, entry, call.params.taskId, result, field);
        break;
      case 'AdvanceClock':
      case 'FireEvent':
      case 'GetClock':
        this.#onControlResult(entry, result);
        break;
      default: {
        const never: never = call;
        return never;
      }
    }
  }

  #onSnapshot(
    ex: Exchange,
    entry: RecordingEntry,
    task: Parameters<typeof sightTask>[0],
    field: string,
    kind: 'snapshot' | 'call',
  ): void {
    const { sighting, issues } = sightTask(task, field);
    this.#onSighting(entry, sighting, issues, { kind, ex }, field);
  }

  #onEnd(entry: RecordingEntry): void {
    const ex = this.#exchange(entry);
    if (!ex) return;
    this.#exchanges.delete(ex.xid);
    if (!ex.answered && ex.rpcId !== undefined) {
      this.#failCall(
        ex,
        entry,
        entry.kind === 'error'
          ? `the exchange broke: ${entry.error ?? 'no reason given'}`
          : 'the exchange ended without an answer',
      );
    }
    for (const taskId of ex.carries) {
      const task = this.#tasks.get(taskId);
      if (!task) continue;
      task.streams.delete(ex.xid);
      if (task.open && task.streams.size === 0) task.open.streamEnded = true;
    }
  }

  // ---- sightings ----

  #onSighting(entry: RecordingEntry, sighting: Sighting, issues: SightingIssue[], origin: Origin, field: string): void {
    for (const issue of issues) this.#issue(issue, entry.seq, sighting.taskId);
    const task = this.#task(sighting.taskId);
    if (sighting.contextId !== null && sighting.contextId !== '' && task.contextId === null)
      task.contextId = sighting.contextId;
    this.#startTask(task, entry);
    if (sighting.timestamp !== undefined) this.#clock.report(sighting.timestamp, entry.at);
    if (sighting.resume) this.#clock.report(sighting.resume.resumedAt, entry.at);
    const state = sighting.state;
    if (origin.kind === 'stream') {
      const ex = origin.ex;
      ex.carries.add(task.taskId);
      if (!task.terminal && this.#exchanges.has(ex.xid)) task.streams.add(ex.xid);
      const prev = ex.lastState.get(task.taskId);
      if (prev !== undefined && prev !== state) {
        const verdict = checkTransition(prev, state);
        if (!verdict.allowed) {
          this.#finding(
            'impossible-transition',
            entry.seq,
            `${field}.status.state`,
            `task ${task.taskId} moved ${prev} -> ${state} on this stream: ${verdict.reason}`,
            task.taskId,
          );
        }
      }
      ex.lastState.set(task.taskId, state);
    }
    if (task.terminal) return;
    const authoritative = origin.kind !== 'snapshot' || task.streams.size === 0;
    if (state === 'TASK_STATE_PAUSED') {
      if (sighting.pause) this.#onPaused(entry, task, sighting.pause, sighting.legacy, origin);
      return;
    }
    if (!authoritative) return;
    const open = task.open;
    if (open) this.#onLeftPause(entry, task, open, sighting, origin, field);
    else if (sighting.resume && !task.last && !this.#hasResuming(task)) {
      this.#finding(
        'unmatched-resume',
        entry.seq,
        `${field}.metadata`,
        `task ${task.taskId} announces a resume, but no pause of it was observed`,
        task.taskId,
      );
    }
    if (TERMINAL_STATES.has(state)) this.#endTask(task, entry);
  }

  #hasResuming(task: TaskRecord): boolean {
    for (const s of this.#resuming) if (s.taskId === task.taskId) return true;
    return false;
  }

  #onWork(ex: Exchange, entry: RecordingEntry, taskId: string, contextId: string): void {
    const task = this.#task(taskId);
    if (contextId !== '' && task.contextId === null) task.contextId = contextId;
    this.#startTask(task, entry);
    ex.carries.add(taskId);
    if (!task.terminal && this.#exchanges.has(ex.xid)) task.streams.add(ex.xid);
    const open = task.open;
    if (open && open.caughtUp.has(ex.xid)) {
      this.#lose(
        open,
        'pause_ignored',
        entry,
        entry.at,
        `task ${taskId} delivered an artifact while PAUSED: the pause was ignored`,
      );
    }
  }

  #onLeftPause(
    entry: RecordingEntry,
    task: TaskRecord,
    s: Suspension,
    sighting: Sighting,
    origin: Origin,
    field: string,
  ): void {
    const caughtUp = origin.kind !== 'stream' || s.caughtUp.has(origin.ex.xid);
    const state = sighting.state;
    switch (state) {
      case 'TASK_STATE_WORKING':
        if (sighting.resume) this.#onResumeSignal(entry, task, s, sighting.resume);
        else if (caughtUp) {
          const how = origin.kind === 'stream' ? 'kept working' : 'is WORKING without an observed resume';
          this.#lose(s, 'pause_ignored', entry, entry.at, `task ${task.taskId} ${how} while PAUSED`);
        }
        return;
      case 'TASK_STATE_CANCELED': {
        const closer =
          (origin.kind === 'call' ? task.closers.get(origin.ex.xid) : undefined) ??
          [...task.closers.values()].find((c) => c.kind === 'cancel' && !c.closed);
        const facts = closingFacts(
          'canceled',
          'canceled',
          closer?.principal ?? null,
          sighting.timestamp ?? null,
          closer ? [closer.seq, entry.seq] : [entry.seq],
        );
        this.#close(task, s, closer ?? eventResumeSpan(this.#recordingId, entry), facts, entry);
        if (closer) closer.closed = s;
        return;
      }
      case 'TASK_STATE_FAILED': {
        const control = this.#attributeControl(s, 'timeout', entry.seq);
        const facts = closingFacts(
          'timeout',
          'failed',
          control?.principal ?? null,
          sighting.timestamp ?? null,
          control ? [control.seq, entry.seq] : [entry.seq],
        );
        this.#close(task, s, eventResumeSpan(this.#recordingId, entry), facts, entry);
        return;
      }
      case 'TASK_STATE_COMPLETED':
      case 'TASK_STATE_REJECTED':
        if (origin.kind !== 'stream') {
          const verdict = checkTransition('TASK_STATE_PAUSED', state);
          if (!verdict.allowed)
            this.#finding(
              'impossible-transition',
              entry.seq,
              `${field}.status.state`,
              `task ${task.taskId} is ${state} while PAUSED: ${verdict.reason}`,
              task.taskId,
            );
        }
        this.#lose(
          s,
          'pause_ignored',
          entry,
          entry.at,
          `task ${task.taskId} reached ${state} while PAUSED: the pause was ignored`,
        );
        return;
      case 'TASK_STATE_SUBMITTED':
      case 'TASK_STATE_INPUT_REQUIRED':
      case 'TASK_STATE_AUTH_REQUIRED':
      case 'TASK_STATE_UNSPECIFIED':
        if (caughtUp) {
          if (origin.kind !== 'stream') {
            const verdict = checkTransition('TASK_STATE_PAUSED', state);
            if (!verdict.allowed)
              this.#finding(
                'impossible-transition',
                entry.seq,
                `${field}.status.state`,
                `task ${task.taskId} is ${state} while PAUSED: ${verdict.reason}`,
                task.taskId,
              );
          }
          this.#lose(
            s,
            'pause_ignored',
            entry,
            entry.at,
            `task ${task.taskId} moved to ${state} while PAUSED without a resume`,
          );
        }
        return;
      case 'TASK_STATE_PAUSED':
        return;
      default: {
        const never: never = state;
        return never;
      }
    }
  }

  // ---- pauses ----

  #startSuspension(s: Suspension, task: TaskRecord): void {
    if (s.started) return;
    s.started = true;
    this.#span({
      type: 'suspension.start',
      key: s.key,
      taskId: s.taskId,
      at: s.openAt,
      span: s.span,
      parent: s.parent,
      attributes: suspensionStartAttributes(s.taskId, task.contextId, s.principal, s.openSeq),
    });
  }

  #openPendingPause(
    ex: Exchange,
    entry: RecordingEntry,
    taskId: string,
    method: PendingPause['method'],
    mode: PauseMode | null,
    reason: string | null,
  ): void {
    const task = this.#task(taskId);
    // A pause call on a finished or already paused task opens nothing: the peer refuses it or
    // answers with the pause in force.
    if (task.terminal || task.open) return;
    this.#startTask(task, entry);
    const s = newSuspension(this.#recordingId, task, entry, ex.parent, ex.principal);
    task.pendingPauses.set(ex.xid, {
      xid: ex.xid,
      seq: entry.seq,
      method,
      mode,
      reason,
      principal: ex.principal,
      suspension: s,
    });
    this.#startSuspension(s, task);
  }

  #endPendingPause(p: PendingPause, at: string, error: string): void {
    if (!p.suspension.started || p.suspension.status !== 'pending') return;
    p.suspension.status = 'closed';
    this.#span({
      type: 'suspension.end',
      key: p.suspension.key,
      at,
      attributes: suspensionStartAttributes(p.suspension.taskId, null, p.principal, p.seq),
      error,
    });
  }

  #onPauseResult(ex: Exchange, entry: RecordingEntry, taskId: string, result: unknown, field: string): void {
    const task = this.#task(taskId);
    const read = readPauseCallResult(result, field);
    if (!read.ok) {
      this.#issue(read.issue, entry.seq, taskId);
      this.#failCall(ex, entry, 'the answer does not carry a pause');
      return;
    }
    if (read.value.taskId !== taskId) {
      this.#finding(
        'malformed-result',
        entry.seq,
        `${field}.taskId`,
        `${field}.taskId: expected ${JSON.stringify(taskId)} (the request's); got ${JSON.stringify(read.value.taskId)}`,
        taskId,
      );
    }
    this.#startTask(task, entry);
    if (!task.terminal) this.#onPaused(entry, task, read.value.pause, read.value.legacy, { kind: 'call', ex });
    const left = task.pendingPauses.get(ex.xid);
    if (left) {
      task.pendingPauses.delete(ex.xid);
      this.#endPendingPause(left, entry.at, `task ${taskId} cannot be paused in its state`);
    }
  }

  #onPaused(entry: RecordingEntry, task: TaskRecord, pause: TaskPause, legacy: boolean, origin: Origin): void {
    this.#clock.report(pause.pausedAt, entry.at);
    const tokenHash = tokenHashOf(pause.resumeToken);
    const known = tokenHash !== null ? task.byToken.get(tokenHash) : undefined;
    const own = origin.kind === 'call' ? task.pendingPauses.get(origin.ex.xid) : undefined;
    if (known) {
      if (origin.kind === 'stream' && known.status === 'open') known.caughtUp.add(origin.ex.xid);
      if (own) {
        task.pendingPauses.delete(own.xid);
        if (own.suspension !== known && own.suspension.started && own.suspension.status === 'pending') {
          own.suspension.status = 'closed';
          this.#span({
            type: 'suspension.end',
            key: own.suspension.key,
            at: entry.at,
            attributes: suspensionStartAttributes(task.taskId, task.contextId, own.principal, entry.seq),
          });
        }
      }
      return;
    }
    if (task.open) {
      this.#finding(
        'impossible-transition',
        entry.seq,
        'pause.resumeToken',
        `task ${task.taskId} is PAUSED again with a new resume token, but the pause ` +
          `${task.open.key} was never seen to end`,
        task.taskId,
      );
      this.#lose(
        task.open,
        'pause_ignored',
        entry,
        entry.at,
        `task ${task.taskId} left pause ${task.open.key} without an observed resume`,
      );
    }
    const pending = own ?? [...task.pendingPauses.values()][0];
    const s = pending?.suspension ?? newSuspension(this.#recordingId, task, entry, origin.ex.parent, null);
    const via = legacy ? 'legacy-metadata' : pending ? pending.method : 'statusUpdate';
    const draft = buildSuspensionDraft({
      taskId: task.taskId,
      contextId: task.contextId,
      initiatedBy: pause.initiatedBy,
      principal: pending?.principal ?? null,
      via,
      reason: pause.reason ?? pending?.reason ?? null,
      mode: pending?.mode ?? null,
      conditions: pause.conditions ?? null,
      resumeToken: pause.resumeToken,
      pausedAt: pause.pausedAt,
      pausedUntil: pause.pausedUntil ?? null,
      observedAt: entry.at,
      entries: pending ? [pending.seq, entry.seq] : [entry.seq],
      span: s.span,
    });
    if (pending) task.pendingPauses.delete(pending.xid);
    s.status = 'open';
    s.tokenHash = tokenHash;
    s.pausedAt = pause.pausedAt;
    s.pausedUntil = pause.pausedUntil ?? null;
    s.pausedUntilMs = pausedUntilMs(pause);
    s.conditions = pause.conditions ?? null;
    s.provenSeq = entry.seq;
    if (origin.kind === 'stream') s.caughtUp.add(origin.ex.xid);
    task.open = s;
    task.last = s;
    if (tokenHash !== null) task.byToken.set(tokenHash, s);
    this.#open.add(s);
    this.#startSuspension(s, task);
    this.#span({
      type: 'suspension.end',
      key: s.key,
      at: entry.at,
      attributes: suspensionEndAttributes(draft, entry.seq),
    });
    this.#out.push({ type: 'suspension', key: s.key, draft });
  }

  // ---- resumes ----

  #startResume(r: ResumeSpan, s: Suspension, principal: string | null): void {
    if (r.started) return;
    r.started = true;
    const links = { suspension: s.span, pipeline: s.parent };
    this.#span({
      type: 'resume.start',
      key: r.key,
      suspensionKey: s.key,
      taskId: s.taskId,
      at: r.at,
      span: r.span,
      links,
      attributes: resumeStartAttributes(s.taskId, principal, links, r.seq),
    });
  }

  #endResume(r: ResumeSpan, at: string, attributes: Record<string, string | number | boolean>, error?: string): void {
    if (!r.started || r.ended) return;
    r.ended = true;
    const event: SpanEvent = { type: 'resume.end', key: r.key, at, attributes };
    if (error !== undefined) event.error = error;
    this.#span(event);
  }

  /** Emits a resumption for `s` (resume.start if needed → resume.end → draft); closes `s` unless rejected. */
  #close(
    task: TaskRecord,
    s: Suspension,
    r: ResumeSpan,
    facts: ClosingFacts,
    entry: { seq: number; at: string },
  ): void {
    const draft = buildResumptionDraft({
      taskId: s.taskId,
      cause: facts.cause,
      outcome: facts.outcome,
      errorCode: facts.errorCode,
      principal: facts.principal,
      input: facts.input,
      hadResumeInput: facts.hadResumeInput,
      continueTranscript: facts.continueTranscript,
      resumedAt: facts.resumedAt,
      observedAt: entry.at,
      entries: facts.entries,
      span: r.span,
      links: { suspension: s.span, pipeline: s.parent },
    });
    if (facts.outcome !== 'rejected') {
      s.status = 'closed';
      s.closedBy = r.key;
      s.awaiting = undefined;
      this.#open.delete(s);
      this.#resuming.delete(s);
      if (task.open === s) task.open = undefined;
    }
    this.#startResume(r, s, facts.principal);
    const error =
      facts.outcome === 'failed'
        ? `task ${s.taskId} failed while PAUSED (${facts.cause})`
        : facts.outcome === 'rejected'
          ? `resume of task ${s.taskId} rejected with ${facts.errorCode ?? 'an error'}`
          : undefined;
    this.#endResume(r, entry.at, resumeEndAttributes(draft, entry.seq), error);
    this.#out.push({ type: 'resumption', key: r.key, suspensionKey: s.key, draft });
  }

  #onResumeSignal(entry: RecordingEntry, task: TaskRecord, s: Suspension, signal: ResumeSignal): void {
    if (signal.cause === 'explicit_resume') {
      const candidates = [...task.closers.values()].filter(
        (c) => c.kind === 'resume' && !c.closed && (s.tokenHash === null || c.tokenHash === s.tokenHash),
      );
      const only = candidates.length === 1 ? candidates[0] : undefined;
      if (only) {
        only.closed = s;
        this.#close(
          task,
          s,
          only,
          closerFacts(only, signal.cause, 'resumed', signal.resumedAt, [only.seq, entry.seq]),
          entry,
        );
        return;
      }
      if (candidates.length > 1) {
        // Racing resumes: the task left PAUSED, but which call won is told by the answers.
        s.status = 'resuming';
        s.awaiting = { seq: entry.seq, at: entry.at, signal, candidates: new Set(candidates.map((c) => c.xid)) };
        this.#open.delete(s);
        this.#resuming.add(s);
        if (task.open === s) task.open = undefined;
        return;
      }
    }
    this.#closeFromSignal(task, s, signal, entry, [entry.seq]);
  }

  /** A resume known only from the peer's announcement (no ResumeTask of ours won it). */
  #closeFromSignal(
    task: TaskRecord,
    s: Suspension,
    signal: ResumeSignal,
    entry: { seq: number; at: string },
    entries: number[],
  ): void {
    const control = signal.cause === 'explicit_resume' ? undefined : this.#attributeControl(s, signal.cause, entry.seq);
    const facts: ClosingFacts = {
      cause: signal.cause,
      outcome: 'resumed',
      errorCode: null,
      principal: control?.principal ?? null,
      input: undefined,
      hadResumeInput: signal.hadResumeInput,
      continueTranscript: signal.continueTranscript,
      resumedAt: signal.resumedAt,
      entries: control ? [control.seq, ...entries] : entries,
    };
    this.#close(task, s, eventResumeSpan(this.#recordingId, entry), facts, entry);
  }

  /** The latest control call after the pause that can have fired a resume with `cause`. */
  #attributeControl(s: Suspension, cause: ResumeCause, beforeSeq: number): ControlCall | undefined {
    const calls = this.#controls.filter((c) => c.seq > s.openSeq && c.seq < beforeSeq).reverse();
    const advance = calls.find((c) => c.method === 'AdvanceClock');
    switch (cause) {
      case 'timeout':
        return advance;
      case 'condition_fired':
      case 'external_event': {
        const onEvent = s.conditions?.onEvent;
        const fired = calls.find((c) => c.method === 'FireEvent' && (onEvent === undefined || c.name === onEvent));
        if (fired) return fired;
        return cause === 'condition_fired' && s.conditions?.trigger ? advance : undefined;
      }
      case 'explicit_resume':
        return undefined;
      default: {
        const never: never = cause;
        return never;
      }
    }
  }

  #onResumeResult(ex: Exchange, entry: RecordingEntry, taskId: string, result: unknown, field: string): void {
    const task = this.#task(taskId);
    const closer = task.closers.get(ex.xid);
    task.closers.delete(ex.xid);
    const read = readResumeCallResult(result, field);
    if (!read.ok) {
      this.#issue(read.issue, entry.seq, taskId);
      if (closer) this.#endResume(closer, entry.at, {}, 'the ResumeTask answer is malformed');
      return;
    }
    this.#clock.report(read.value.resumedAt, entry.at);
    if (!closer) return;
    if (closer.closed) return; // the stream told first; this answer adds nothing
    const awaiting = [...this.#resuming].find((s) => s.taskId === taskId && s.awaiting?.candidates.has(ex.xid));
    if (awaiting?.awaiting) {
      closer.closed = awaiting;
      const aw = awaiting.awaiting;
      this.#close(
        task,
        awaiting,
        closer,
        closerFacts(closer, read.value.cause, 'resumed', read.value.resumedAt, [closer.seq, aw.seq, entry.seq]),
        entry,
      );
      return;
    }
    const s = task.open;
    if (!s) {
      this.#finding(
        'unmatched-resume',
        entry.seq,
        `${field}`,
        `ResumeTask on task ${taskId} succeeded, but no open pause of it was observed`,
        taskId,
      );
      this.#endResume(closer, entry.at, {});
      return;
    }
    if (closer.tokenHash !== null && s.tokenHash !== null && closer.tokenHash !== s.tokenHash) {
      this.#finding(
        'unmatched-resume',
        entry.seq,
        'body.params.resumeToken',
        `ResumeTask on task ${taskId} succeeded with a token that is not the token of pause ${s.key}`,
        taskId,
      );
    }
    closer.closed = s;
    this.#close(
      task,
      s,
      closer,
      closerFacts(closer, read.value.cause, 'resumed', read.value.resumedAt, [closer.seq, entry.seq]),
      entry,
    );
  }

  #cancelAnswered(ex: Exchange, entry: RecordingEntry, state: TaskState): void {
    const taskId = taskIdOfCall(ex.call);
    if (taskId === undefined) return;
    const task = this.#tasks.get(taskId);
    const closer = task?.closers.get(ex.xid);
    if (!task || !closer) return;
    task.closers.delete(ex.xid);
    if (!closer.closed)
      this.#endResume(
        closer,
        entry.at,
        {},
        state === 'TASK_STATE_CANCELED' ? undefined : `CancelTask answered ${state}`,
      );
  }

  // ---- failures and losses ----

  #onCallError(ex: Exchange, entry: RecordingEntry, error: JsonRpcErrorObject): void {
    if (ex.control) return;
    const taskId = taskIdOfCall(ex.call);
    if (taskId === undefined) return;
    const task = this.#tasks.get(taskId);
    if (!task) return;
    const method = ex.call?.method ?? 'the call';
    if (error.code === TASK_NOT_FOUND.code && task.open) {
      this.#lose(
        task.open,
        'task_gone',
        entry,
        entry.at,
        `${method} on task ${taskId} answered -32001 (task not found) while it was PAUSED`,
      );
    }
    const closer = task.closers.get(ex.xid);
    if (closer) {
      task.closers.delete(ex.xid);
      this.#closerFailed(task, closer, entry, error.code);
    }
    const pending = task.pendingPauses.get(ex.xid);
    if (pending) {
      task.pendingPauses.delete(ex.xid);
      this.#endPendingPause(pending, entry.at, `${method} failed with ${error.code}: ${error.message}`);
    }
  }

  #closerFailed(task: TaskRecord, closer: Closer, entry: RecordingEntry, code: number | undefined): void {
    const rejectable =
      closer.kind === 'resume' && (code === RESUME_TOKEN_MISMATCH.code || code === INVALID_TASK_STATE.code);
    const target = rejectable
      ? ((closer.tokenHash !== null ? task.byToken.get(closer.tokenHash) : undefined) ??
        closer.target ??
        task.open ??
        task.last)
      : undefined;
    if (target && code !== undefined) {
      this.#close(
        task,
        target,
        closer,
        closerFacts(closer, 'explicit_resume', 'rejected', null, [closer.seq, entry.seq], code),
        entry,
      );
    } else {
      const what = closer.kind === 'resume' ? 'ResumeTask' : 'CancelTask';
      this.#endResume(
        closer,
        entry.at,
        {},
        code === undefined ? `${what} got no answer` : `${what} failed with ${code}`,
      );
    }
    // A loser of a resume race is out; the last candidate standing won.
    for (const s of [...this.#resuming]) {
      const aw = s.awaiting;
      if (s.taskId !== task.taskId || !aw || !aw.candidates.delete(closer.xid)) continue;
      if (aw.candidates.size === 1) {
        const [xid] = aw.candidates;
        const winner = xid === undefined ? undefined : task.closers.get(xid);
        if (winner) {
          winner.closed = s;
          this.#close(
            task,
            s,
            winner,
            closerFacts(winner, aw.signal.cause, 'resumed', aw.signal.resumedAt, [winner.seq, aw.seq]),
            { seq: aw.seq, at: aw.at },
          );
        }
      } else if (aw.candidates.size === 0) {
        this.#closeFromSignal(task, s, aw.signal, { seq: aw.seq, at: aw.at }, [aw.seq]);
      }
    }
  }

  /** A call got no usable answer: its pending pause or resume span ends in error. */
  #failCall(ex: Exchange, entry: RecordingEntry, why: string): void {
    const taskId = taskIdOfCall(ex.call);
    if (taskId === undefined) return;
    const task = this.#tasks.get(taskId);
    if (!task) return;
    const pending = task.pendingPauses.get(ex.xid);
    if (pending) {
      task.pendingPauses.delete(ex.xid);
      this.#endPendingPause(pending, entry.at, why);
    }
    const closer = task.closers.get(ex.xid);
    if (closer) {
      task.closers.delete(ex.xid);
      this.#closerFailed(task, closer, entry, undefined);
    }
  }

  /** Declares an open pause lost: one `lost` span event and one finding, then it is closed. */
  #lose(s: Suspension, reason: LostPauseReason, entry: RecordingEntry | null, at: string, message?: string): void {
    if (s.status !== 'open') return;
    s.status = 'closed';
    this.#open.delete(s);
    const task = this.#tasks.get(s.taskId);
    if (task?.open === s) task.open = undefined;
    const key = lostKey(s.key);
    this.#span({
      type: 'lost',
      key,
      suspensionKey: s.key,
      taskId: s.taskId,
      at,
      span: rootSpan(this.#recordingId, key),
      link: s.span,
      reason,
      attributes: lostAttributes(s.taskId, reason, s.span, entry?.seq ?? null),
    });
    this.#finding(
      'lost-pause',
      entry?.seq ?? null,
      'entry',
      `pause ${s.key} of task ${s.taskId} is lost (${reason})${message ? `: ${message}` : ''}`,
      s.taskId,
    );
  }

  #markOverdue(entry: RecordingEntry): void {
    if (this.#open.size === 0) return;
    const now = this.#clock.nowAt(entry.at);
    if (Number.isNaN(now)) return;
    for (const s of this.#open) {
      if (s.pausedUntilMs !== undefined && s.overdueSince === undefined && now > s.pausedUntilMs)
        s.overdueSince = entry.seq;
    }
  }

  #declareOverdue(entry: RecordingEntry): void {
    for (const s of [...this.#open]) {
      if (s.overdueSince !== undefined && s.overdueSince < entry.seq) {
        this.#lose(
          s,
          'paused_until_passed',
          entry,
          entry.at,
          `pausedUntil ${s.pausedUntil ?? ''} passed without a resume`,
        );
      }
    }
  }
}
