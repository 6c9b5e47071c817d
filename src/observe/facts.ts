/**
 * @module observe/facts
 * Reads recording entries into typed facts (docs/design.md §14.2): what a request asked for, what
 * an answer or a stream event showed about a task, which call failed, what the control channel
 * did. It follows each exchange from its request to its end (and forgets it there), checks the
 * JSON-RPC envelopes and parses params and results at this edge, and reports what it cannot read
 * as findings. All three bindings are read into one call view first (observe/call-view), so they
 * give the same facts, each naming its binding. Pauses are decided elsewhere (observe/lifecycle).
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { describeError } from '../errors.js';
import { parseJsonRpcMessage } from '../protocol/json-rpc.js';
import { CONTROL_METHODS } from '../protocol/methods.js';
import { isKnownMethod, parseMethodCall } from '../protocol/params.js';
import { parseSendMessageResult, parseStreamResponse, parseTask } from '../protocol/parse-objects.js';
import { formatIssue, isRecord } from '../protocol/read.js';
import { checkTransition } from '../protocol/state-machine.js';
import type { Task } from '../protocol/types.js';
import type { RecordingEntry } from '../recording/format.js';
import { BoundedMap } from '../bounded-map.js';
import { readGrpcAnswer, readRestAnswer } from './call-view.js';
import { type ObservedRequest, readObservedRequest, requestProblem } from './dialect-view.js';
import {
  type ObservedExchange,
  bindingOf,
  callFact,
  controlAnswerFact,
  openExchange,
  readAnswer,
  ref,
  resultField,
} from './observed-exchange.js';
import type { Fact, Origin, ReadItem, TaskRef } from './fact.js';
import { entryIncompleteness, entryProblem, taskIdFromRaw, taskIdOfCall } from './entry-reads.js';
import type { FindingCode, ObserverFinding } from './findings.js';
import { scanCallResult, scanStreamResult } from './scan.js';
import { type Sighting, type SightingIssue, codeForField, issueOf } from './sightings.js';
import { readPauseCallResult, readResumeCallResult, sightStatusUpdate, sightTask } from './sightings.js';

/** Exchanges remembered after their answer, so a trailing `end` is no orphan. */
const FINISHED_MEMORY = 4096;
/** Exchange ids already reported as orphans. */
const ORPHAN_MEMORY = 1024;

/**
 * Turns entries into facts. Holds only the exchanges in flight (a unary exchange is forgotten at
 * its answer, a stream at its end) and two bounded memories; see {@link FactReader.size}.
 */
export class FactReader {
  readonly #exchanges = new Map<string, ObservedExchange>();
  readonly #finished = new BoundedMap<string, true>(FINISHED_MEMORY);
  readonly #orphans = new BoundedMap<string, true>(ORPHAN_MEMORY);
  #lastSeq = 0;
  #out: ReadItem[] = [];

  /** `scan` false reads every answer in full, never by the scan path (docs/design.md §14.11). */
  constructor(private readonly scan = true) {}

  /** Exchanges in flight and the two memories, for stats. */
  get size(): { exchanges: number; finishedExchanges: number } {
    return { exchanges: this.#exchanges.size, finishedExchanges: this.#finished.size };
  }

  /** Reads one entry (in `seq` order) into facts and findings; `request` is readObservedRequest(entry) if read. */
  read(entry: RecordingEntry, request?: ObservedRequest): ReadItem[] {
    const out: ReadItem[] = [];
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
      this.#checkComplete(entry);
      switch (entry.kind) {
        case 'request':
          this.#onRequest(entry, request);
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
    } catch (error) {
      this.#finding(
        'observer-error',
        entry.seq,
        'entry',
        `could not observe entry ${entry.seq}: ${describeError(error)}`,
      );
    }
    return out;
  }

  /** An entry without all the peer sent makes the reading incomplete (§14); a cut one with its body is whole. */
  #checkComplete(entry: RecordingEntry): void {
    const missing = entryIncompleteness(entry);
    if (missing !== undefined) this.#finding('incomplete-entry', entry.seq, missing.field, missing.why);
  }

  // ---- output ----

  #fact(fact: Fact): void {
    this.#out.push(fact);
  }

  #finding(code: FindingCode, seq: number | null, field: string, message: string, taskId?: string): void {
    const finding: ObserverFinding = { code, seq, field, message };
    if (taskId !== undefined) finding.taskId = taskId;
    this.#out.push({ type: 'finding', finding });
  }

  #issue(issue: SightingIssue, seq: number, taskId?: string): void {
    this.#finding(issue.code, seq, issue.field, issue.message, taskId);
  }

  // ---- exchanges ----

  #exchange(entry: RecordingEntry): ObservedExchange | undefined {
    const ex = this.#exchanges.get(entry.xid);
    if (ex) return ex;
    if (entry.kind === 'end' && this.#finished.delete(entry.xid)) return undefined;
    if (this.#finished.has(entry.xid)) {
      this.#finding(
        'orphan-entry',
        entry.seq,
        'xid',
        `${entry.kind} entry ${entry.seq} belongs to exchange ${entry.xid}, which was already answered`,
      );
      return undefined;
    }
    if (!this.#orphans.has(entry.xid)) {
      this.#orphans.set(entry.xid, true);
      this.#finding(
        'orphan-entry',
        entry.seq,
        'xid',
        `${entry.kind} entry ${entry.seq} belongs to exchange ${entry.xid}, which has no request`,
      );
    }
    return undefined;
  }

  /** A unary answer completes its exchange: it is forgotten, and what it carried ends with it. */
  #complete(ex: ObservedExchange, entry: RecordingEntry): void {
    this.#exchanges.delete(ex.xid);
    this.#finished.set(ex.xid, true);
    if (ex.carries.size > 0)
      this.#fact({ type: 'StreamEnded', entry: ref(entry), xid: ex.xid, tasks: [...ex.carries] });
  }

  #onRequest(entry: RecordingEntry, request: ObservedRequest | undefined): void {
    if (this.#exchanges.has(entry.xid) || this.#finished.has(entry.xid)) {
      this.#finding(
        'duplicate-request',
        entry.seq,
        'xid',
        `request entry ${entry.seq} reuses exchange id ${entry.xid}, already ${
          this.#exchanges.has(entry.xid) ? 'open' : 'used'
        }`,
      );
      return;
    }
    const ex = openExchange(entry);
    this.#exchanges.set(entry.xid, ex);
    const view = request ?? readObservedRequest(entry);
    if (view.kind === 'none') return;
    if (view.kind !== 'call') {
      const { code, field, message } = requestProblem(view);
      return this.#finding(code, entry.seq, field, message);
    }
    ex.binding = view.binding;
    ex.rpcId = view.rpcId;
    ex.version = view.version;
    if ((CONTROL_METHODS as readonly string[]).includes(view.method)) ex.control = true;
    if (!isKnownMethod(view.method)) return;
    const call = parseMethodCall(view.method, view.params);
    if (!call.ok) {
      // JSON-RPC params sit in the body; HTTP+JSON params come from path, query and body.
      const at = view.binding === 'JSONRPC' ? 'body.' : '';
      this.#finding(
        'malformed-params',
        entry.seq,
        `${at}${call.issue.field}`,
        `${at}${formatIssue(call.issue)}`,
        taskIdFromRaw(view.params),
      );
      return;
    }
    ex.call = call.value;
    const fact = callFact(ex, entry, call.value, view.binding);
    if (fact) this.#fact(fact);
  }

  #onResponse(entry: RecordingEntry): void {
    const ex = this.#exchange(entry);
    if (!ex) return;
    if (ex.binding === 'GRPC') {
      // A gRPC answer without a message is its status (docs/design.md §16).
      this.#onAnswer(ex, entry, entry.body, false);
      this.#complete(ex, entry);
      return;
    }
    if (entry.body === undefined) {
      if (entry.bodyText === undefined) return; // the head of an SSE stream
      if (ex.binding !== undefined) {
        this.#finding('malformed-json-rpc', entry.seq, 'bodyText', `the answer to exchange ${ex.xid} is not JSON`);
        this.#callFailed(ex, entry, undefined, 'the answer is not JSON');
      }
      this.#complete(ex, entry);
      return;
    }
    if (ex.binding !== undefined) this.#onAnswer(ex, entry, entry.body, false);
    this.#complete(ex, entry);
  }

  #onEvent(entry: RecordingEntry): void {
    const ex = this.#exchange(entry);
    if (!ex) return;
    if (entry.body === undefined) {
      this.#finding('malformed-json-rpc', entry.seq, 'body', `SSE event ${entry.seq} has no JSON data`);
      return;
    }
    this.#onAnswer(ex, entry, entry.body, true);
  }

  #onEnd(entry: RecordingEntry): void {
    const ex = this.#exchange(entry);
    if (!ex) return;
    this.#exchanges.delete(ex.xid);
    const grpcError = ex.binding === 'GRPC' && entry.kind === 'end' ? readGrpcAnswer(entry) : undefined;
    if (grpcError?.kind === 'error') {
      this.#callFailed(ex, entry, grpcError.code, `${ex.call?.method ?? 'the call'} failed with ${grpcError.message}`);
    } else if (ex.binding !== undefined) {
      this.#callFailed(
        ex,
        entry,
        undefined,
        entry.kind === 'error'
          ? `the exchange broke: ${entry.error ?? 'no reason given'}`
          : 'the exchange ended without an answer',
      );
    }
    if (ex.carries.size > 0)
      this.#fact({ type: 'StreamEnded', entry: ref(entry), xid: ex.xid, tasks: [...ex.carries] });
  }

  #callFailed(
    ex: ObservedExchange,
    entry: RecordingEntry,
    code: number | undefined,
    why: string,
    unreadable = false,
  ): void {
    if (ex.control) return;
    const taskId = taskIdOfCall(ex.call);
    if (taskId === undefined) return;
    this.#fact({
      type: 'CallFailed',
      entry: ref(entry),
      xid: ex.xid,
      taskId,
      method: ex.call?.method ?? 'the call',
      code,
      why,
      unreadable,
    });
  }

  /** An answer (a unary body or one SSE event) in the exchange's binding. */
  #onAnswer(ex: ObservedExchange, entry: RecordingEntry, body: unknown, isEvent: boolean): void {
    if (ex.binding === 'HTTP+JSON' || ex.binding === 'GRPC') {
      const view = ex.binding === 'GRPC' ? readGrpcAnswer(entry) : readRestAnswer(entry);
      if (view.kind === 'none') return;
      if (view.kind === 'error') {
        this.#callFailed(ex, entry, view.code, `${ex.call?.method ?? 'the call'} failed with ${view.message}`);
        return;
      }
      this.#onResult(ex, entry, view.result, isEvent);
      return;
    }
    this.#onRpcAnswer(ex, entry, body, isEvent);
  }

  #onRpcAnswer(ex: ObservedExchange, entry: RecordingEntry, body: unknown, isEvent: boolean): void {
    const message = parseJsonRpcMessage(body);
    if (!message.ok) {
      this.#finding(
        'malformed-json-rpc',
        entry.seq,
        `body.${message.issue.field}`,
        `body.${formatIssue(message.issue)}`,
      );
      if (!isEvent) this.#callFailed(ex, entry, undefined, 'the answer is not a JSON-RPC response');
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
      if (!isEvent) this.#callFailed(ex, entry, undefined, 'the answer is not a JSON-RPC response');
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
      const method = ex.call?.method ?? 'the call';
      this.#callFailed(ex, entry, m.error.code, `${method} failed with ${m.error.code}: ${m.error.message}`);
      return;
    }
    this.#onResult(ex, entry, m.result, isEvent);
  }

  #onResult(ex: ObservedExchange, entry: RecordingEntry, answer: unknown, isEvent: boolean): void {
    const result = readAnswer(ex, answer);
    if (ex.control) this.#onControlResult(ex, entry, result);
    else if (isEvent) this.#onStreamResult(ex, entry, result);
    else this.#onCallResult(ex, entry, result);
  }

  #onControlResult(ex: ObservedExchange, entry: RecordingEntry, result: unknown): void {
    const fact = controlAnswerFact(ex, entry, result);
    if (fact) this.#fact(fact);
  }

  #onStreamResult(ex: ObservedExchange, entry: RecordingEntry, result: unknown): void {
    const field = resultField(ex);
    const origin: Origin = { kind: 'stream', xid: ex.xid, opened: ex.seq };
    const scanned = this.scan ? scanStreamResult(result, field) : undefined;
    if (scanned?.kind === 'sighting') return this.#sighting(ex, entry, scanned.sighting, [], origin, scanned.field);
    if (scanned) return this.#work(ex, entry, scanned.taskId, scanned.contextId);
    const parsed = parseStreamResponse(result, field);
    if (!parsed.ok) {
      this.#issue(issueOf(codeForField(parsed.issue.field), parsed.issue), entry.seq, taskIdFromRaw(result));
      return;
    }
    const ev = parsed.value;
    switch (ev.kind) {
      case 'task': {
        const { sighting, issues } = sightTask(ev.task, `${field}.task`);
        this.#sighting(ex, entry, sighting, issues, origin, `${field}.task`);
        break;
      }
      case 'statusUpdate': {
        const { sighting, issues } = sightStatusUpdate(ev.statusUpdate, `${field}.statusUpdate`);
        this.#sighting(ex, entry, sighting, issues, origin, `${field}.statusUpdate`);
        break;
      }
      case 'artifactUpdate':
        this.#work(ex, entry, ev.artifactUpdate.taskId, ev.artifactUpdate.contextId);
        break;
      case 'message':
        break;
      default: {
        const never: never = ev;
        return never;
      }
    }
  }

  /** An artifact update on a stream: work done on the task. */
  #work(ex: ObservedExchange, entry: RecordingEntry, taskId: string, contextId: string): void {
    const task: TaskRef = { taskId, contextId: contextId === '' ? null : contextId };
    ex.carries.add(taskId);
    this.#fact({ type: 'TaskSeen', entry: ref(entry), task, stream: ex.xid, times: [], binding: bindingOf(ex) });
    this.#fact({ type: 'WorkSeen', entry: ref(entry), task, stream: ex.xid });
  }

  #onCallResult(ex: ObservedExchange, entry: RecordingEntry, result: unknown): void {
    const call = ex.call;
    if (!call) return;
    const field = resultField(ex);
    const scanned = this.scan ? scanCallResult(call.method, result, field) : undefined;
    const snapshot: Origin = { kind: 'snapshot', xid: ex.xid, multi: false };
    if (scanned) return this.#sighting(ex, entry, scanned.sighting, [], snapshot, scanned.field);
    switch (call.method) {
      case 'SendMessage': {
        const parsed = parseSendMessageResult(result, field);
        if (!parsed.ok) this.#issue(issueOf(codeForField(parsed.issue.field), parsed.issue), entry.seq);
        else if ('task' in parsed.value) this.#snapshot(ex, entry, parsed.value.task, `${field}.task`, false);
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
          this.#callFailed(ex, entry, undefined, 'the answer is not a Task');
          break;
        }
        if (call.method === 'GetTask') {
          this.#snapshot(ex, entry, parsed.value, field, false);
          break;
        }
        const { sighting, issues } = sightTask(parsed.value, field);
        this.#sighting(ex, entry, sighting, issues, { kind: 'answer', xid: ex.xid }, field);
        this.#fact({
          type: 'CancelAnswered',
          entry: ref(entry),
          xid: ex.xid,
          taskId: call.params.id,
          state: parsed.value.status.state,
        });
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
          else this.#snapshot(ex, entry, parsed.value, `${field}.tasks[${i}]`, true);
        });
        break;
      }
      case 'PauseTask':
      case 'AwaitTaskResumption':
        this.#onPauseResult(ex, entry, call.params.taskId, result, field);
        break;
      case 'ResumeTask': {
        const taskId = call.params.taskId;
        const read = readResumeCallResult(result, field);
        if (!read.ok) {
          this.#issue(read.issue, entry.seq, taskId);
          this.#callFailed(ex, entry, undefined, 'the ResumeTask answer is malformed', true);
          break;
        }
        this.#fact({
          type: 'ResumeAnswered',
          entry: ref(entry),
          xid: ex.xid,
          taskId,
          cause: read.value.cause,
          resumedAt: read.value.resumedAt,
        });
        break;
      }
      case 'AdvanceClock':
      case 'FireEvent':
      case 'GetClock':
        this.#onControlResult(ex, entry, result);
        break;
      default: {
        const never: never = call;
        return never;
      }
    }
  }

  #onPauseResult(ex: ObservedExchange, entry: RecordingEntry, taskId: string, result: unknown, field: string): void {
    const read = readPauseCallResult(result, field);
    if (!read.ok) {
      this.#issue(read.issue, entry.seq, taskId);
      this.#callFailed(ex, entry, undefined, 'the answer does not carry a pause');
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
    const at = ref(entry);
    const task: TaskRef = { taskId, contextId: null };
    this.#fact({ type: 'TaskSeen', entry: at, task, stream: undefined, times: [], binding: bindingOf(ex) });
    this.#fact({
      type: 'PausedSeen',
      entry: at,
      task,
      pause: read.value.pause,
      legacy: read.value.legacy,
      origin: { kind: 'answer', xid: ex.xid },
      parent: ex.parent,
    });
    this.#fact({ type: 'PauseAnswered', entry: at, xid: ex.xid, taskId });
  }

  #snapshot(ex: ObservedExchange, entry: RecordingEntry, task: Task, field: string, multi: boolean): void {
    const { sighting, issues } = sightTask(task, field);
    this.#sighting(ex, entry, sighting, issues, { kind: 'snapshot', xid: ex.xid, multi }, field);
  }

  /** One sighting: its issues, the task seen, the stream's transition check, then what it showed. */
  #sighting(
    ex: ObservedExchange,
    entry: RecordingEntry,
    sighting: Sighting,
    issues: SightingIssue[],
    origin: Origin,
    field: string,
  ): void {
    for (const issue of issues) this.#issue(issue, entry.seq, sighting.taskId);
    const at = ref(entry);
    const task: TaskRef = {
      taskId: sighting.taskId,
      contextId: sighting.contextId === '' ? null : sighting.contextId,
    };
    const times: string[] = [];
    if (sighting.timestamp !== undefined) times.push(sighting.timestamp);
    if (sighting.resume) times.push(sighting.resume.resumedAt);
    const state = sighting.state;
    this.#fact({
      type: 'TaskSeen',
      entry: at,
      task,
      stream: origin.kind === 'stream' ? ex.xid : undefined,
      times,
      binding: bindingOf(ex),
    });
    if (origin.kind === 'stream') {
      ex.carries.add(task.taskId);
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
    if (state === 'TASK_STATE_PAUSED') {
      if (sighting.pause)
        this.#fact({
          type: 'PausedSeen',
          entry: at,
          task,
          pause: sighting.pause,
          legacy: sighting.legacy,
          origin,
          parent: ex.parent,
        });
      return;
    }
    if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') {
      const prompt = sighting.message;
      this.#fact({
        type: 'InterruptedSeen',
        entry: at,
        task,
        state,
        prompt: prompt === undefined ? null : (prompt.parts as unknown as JsonValue),
        timestamp: sighting.timestamp,
        origin,
      });
    }
    if (sighting.resume && state === 'TASK_STATE_WORKING') {
      this.#fact({ type: 'ResumeAnnounced', entry: at, task, signal: sighting.resume, origin, field });
      return;
    }
    this.#fact({ type: 'StateSeen', entry: at, task, state, timestamp: sighting.timestamp, origin, field });
  }
}
