/**
 * Hand-built recording entries for observer tests, shaped after the RFC's wire examples
 * (a2a-paused-state-rfc.md "Proposed wire format") and docs/design.md §5.
 */
import type { JsonObject, JsonValue } from '../../src/canonical/canonical-json.js';
import type { SuspensionSpanIds } from '../../src/observe/observer-spans.js';
import { PauseObserver } from '../../src/observe/pause-observer.js';
import type { ObserverOutput } from '../../src/observe/suspension.js';
import { legacyMetadata, pauseToLegacy } from '../../src/protocol/legacy.js';
import type { TaskPause } from '../../src/protocol/types.js';
import type { ResumptionDraft, SuspensionDraft } from '../../src/receipts/types.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import type { SpanEvent } from '../../src/tracing/span-events.js';

export const RECORDING_ID = 'rec-observe-test';
export const START_MS = Date.parse('2026-04-30T12:34:50.000Z');

export const iso = (ms: number): string => new Date(ms).toISOString();

interface RequestOptions {
  principal?: string;
  traceparent?: string;
  path?: string;
  id?: string | number;
}

/** Builds entries with increasing `seq` and `at` one second apart. */
export class Entries {
  readonly list: RecordingEntry[] = [];
  #seq = 0;
  #ids = new Map<string, string | number>();

  #push(entry: Omit<RecordingEntry, 'seq' | 'at'>): RecordingEntry {
    this.#seq += 1;
    const full = { seq: this.#seq, at: iso(START_MS + this.#seq * 1000), ...entry } as RecordingEntry;
    this.list.push(full);
    return full;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  request(xid: string, method: string, params: JsonValue, options: RequestOptions = {}): RecordingEntry {
    const id = options.id ?? `req-${xid}`;
    this.#ids.set(xid, id);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };
    if (options.traceparent !== undefined) headers.traceparent = options.traceparent;
    const entry: Omit<RecordingEntry, 'seq' | 'at'> = {
      xid,
      kind: 'request',
      http: { method: 'POST', path: options.path ?? '/', headers },
      body: { jsonrpc: '2.0', id, method, params },
    };
    if (options.principal !== undefined) entry.principal = options.principal;
    return this.#push(entry);
  }

  control(
    xid: string,
    method: 'AdvanceClock' | 'FireEvent' | 'GetClock',
    params: JsonValue,
    principal?: string,
  ): RecordingEntry {
    return this.request(xid, method, params, { path: '/control', ...(principal === undefined ? {} : { principal }) });
  }

  result(xid: string, result: JsonValue): RecordingEntry {
    return this.#push({
      xid,
      kind: 'response',
      http: { method: 'POST', path: '/', status: 200 },
      body: { jsonrpc: '2.0', id: this.#ids.get(xid) ?? null, result },
    });
  }

  error(xid: string, code: number, message = 'failed'): RecordingEntry {
    return this.#push({
      xid,
      kind: 'response',
      http: { method: 'POST', path: '/', status: 200 },
      body: { jsonrpc: '2.0', id: this.#ids.get(xid) ?? null, error: { code, message } },
    });
  }

  /** The head of an SSE response (no body). */
  sseHead(xid: string): RecordingEntry {
    return this.#push({
      xid,
      kind: 'response',
      http: { method: 'POST', path: '/', status: 200, headers: { 'content-type': 'text/event-stream' } },
    });
  }

  event(xid: string, streamResponse: JsonValue): RecordingEntry {
    return this.#push({
      xid,
      kind: 'event',
      http: { method: 'POST', path: '/' },
      body: { jsonrpc: '2.0', id: this.#ids.get(xid) ?? null, result: streamResponse },
    });
  }

  end(xid: string): RecordingEntry {
    return this.#push({ xid, kind: 'end', http: { method: 'POST', path: '/' } });
  }

  broke(xid: string, why: string): RecordingEntry {
    return this.#push({ xid, kind: 'error', http: { method: 'POST', path: '/' }, error: why });
  }

  /** Any entry, for garbage tests. */
  raw(entry: Partial<RecordingEntry> & Record<string, unknown>): RecordingEntry {
    return this.#push(entry as Omit<RecordingEntry, 'seq' | 'at'>);
  }

  /** `at` of the entry after the last one. */
  nextAt(): string {
    return iso(START_MS + (this.#seq + 1) * 1000);
  }
}

// ---- payloads (RFC examples) ----

export const TASK = 'task-019abf6b-7d51-7c1d-bb02-0001';
export const CTX = 'ctx-019abf6b-0001';
export const TOKEN = 'suspend-019abf6b-0001';

export function userMessage(text: string, taskId?: string): JsonObject {
  const message: JsonObject = { messageId: `msg-${text}`, role: 'ROLE_USER', parts: [{ text }] };
  if (taskId !== undefined) message.taskId = taskId;
  return { message };
}

export function clientPause(overrides: Partial<TaskPause> = {}): TaskPause {
  return {
    initiatedBy: 'PAUSE_INITIATOR_CLIENT',
    resumeToken: TOKEN,
    pausedAt: '2026-04-30T12:34:56.789Z',
    reason: 'operator review',
    resumable: true,
    ...overrides,
  };
}

export function agentPause(overrides: Partial<TaskPause> = {}): TaskPause {
  return {
    initiatedBy: 'PAUSE_INITIATOR_AGENT',
    resumeToken: TOKEN,
    pausedAt: '2026-04-30T12:34:56.789Z',
    reason: 'waiting on ci/build:1234',
    conditions: { onEvent: 'ci.build.completed:1234', timeout: { durationMinutes: 30, onTimeout: 'fail' } },
    resumable: true,
    ...overrides,
  };
}

const asJson = (value: unknown): JsonObject => value as JsonObject;

export function task(state: string, extra: JsonObject = {}, taskId = TASK): JsonObject {
  return { task: { id: taskId, contextId: CTX, status: { state }, ...extra } };
}

export function taskObject(state: string, pause?: TaskPause, taskId = TASK): JsonObject {
  const status: JsonObject = { state };
  if (pause) status.pause = asJson(pause);
  return { id: taskId, contextId: CTX, status };
}

export function working(taskId = TASK): JsonObject {
  return { statusUpdate: { taskId, contextId: CTX, status: { state: 'TASK_STATE_WORKING' } } };
}

export function paused(pause: TaskPause, taskId = TASK): JsonObject {
  return { statusUpdate: { taskId, contextId: CTX, status: { state: 'TASK_STATE_PAUSED', pause: asJson(pause) } } };
}

export function legacyPaused(pause: TaskPause, taskId = TASK, mode?: 'finish_step'): JsonObject {
  return {
    statusUpdate: {
      taskId,
      contextId: CTX,
      status: { state: 'TASK_STATE_WORKING' },
      metadata: legacyMetadata(pauseToLegacy(pause, mode)),
    },
  };
}

export interface ResumeMeta {
  cause: 'explicit_resume' | 'condition_fired' | 'timeout' | 'external_event';
  resumedAt: string;
  hadResumeInput?: boolean;
  continueTranscript?: boolean;
}

function resumeMetadata(meta: ResumeMeta): JsonObject {
  return {
    previousState: 'TASK_STATE_PAUSED',
    cause: meta.cause,
    hadResumeInput: meta.hadResumeInput ?? false,
    continueTranscript: meta.continueTranscript ?? true,
    resumedAt: meta.resumedAt,
  };
}

export function resumed(meta: ResumeMeta, taskId = TASK): JsonObject {
  return {
    statusUpdate: { taskId, contextId: CTX, status: { state: 'TASK_STATE_WORKING' }, metadata: resumeMetadata(meta) },
  };
}

export function legacyResumed(meta: ResumeMeta, taskId = TASK): JsonObject {
  const m = resumeMetadata(meta) as Record<string, JsonValue>;
  return {
    statusUpdate: {
      taskId,
      contextId: CTX,
      status: { state: 'TASK_STATE_WORKING' },
      metadata: {
        harn: {
          pause: {
            state: 'resumed',
            cause: m.cause ?? null,
            resumedAt: m.resumedAt ?? null,
            hadResumeInput: m.hadResumeInput ?? null,
            continueTranscript: m.continueTranscript ?? null,
          },
        },
      },
    },
  };
}

export function statusOf(state: string, timestamp?: string, taskId = TASK): JsonObject {
  const status: JsonObject = { state };
  if (timestamp !== undefined) status.timestamp = timestamp;
  return { statusUpdate: { taskId, contextId: CTX, status } };
}

export function artifact(n: number, taskId = TASK): JsonObject {
  return {
    artifactUpdate: { taskId, contextId: CTX, artifact: { artifactId: `a-${n}`, parts: [{ text: `step ${n}` }] } },
  };
}

export function pauseResult(pause: TaskPause, taskId = TASK): JsonObject {
  return { taskId, state: 'TASK_STATE_PAUSED', pause: asJson(pause) };
}

export function legacyPauseResult(pause: TaskPause, taskId = TASK, mode?: 'finish_step'): JsonObject {
  return { taskId, state: 'TASK_STATE_WORKING', metadata: legacyMetadata(pauseToLegacy(pause, mode)) };
}

export function resumeResult(resumedAt: string, cause = 'explicit_resume', taskId = TASK): JsonObject {
  return { taskId, state: 'TASK_STATE_WORKING', previousState: 'TASK_STATE_PAUSED', cause, resumedAt };
}

export function legacyResumeResult(resumedAt: string, cause = 'explicit_resume', taskId = TASK): JsonObject {
  return {
    taskId,
    state: 'TASK_STATE_WORKING',
    metadata: {
      harn: { pause: { state: 'resumed', cause, resumedAt, hadResumeInput: false, continueTranscript: true } },
    },
  };
}

// ---- running and reading outputs ----

/** Feeds every entry, then finishes at the next tick; returns all outputs in order. */
export function observeAll(
  entries: readonly RecordingEntry[],
  finishAt?: string,
  recordingId = RECORDING_ID,
  suspensionSpans: SuspensionSpanIds = 'pause',
): ObserverOutput[] {
  const observer = new PauseObserver({ recordingId, suspensionSpans });
  const out: ObserverOutput[] = [];
  for (const entry of entries) out.push(...observer.observe(entry));
  const last = entries.at(-1);
  out.push(...observer.finish(finishAt ?? (last ? iso(Date.parse(last.at) + 1000) : iso(START_MS))));
  return out;
}

export const suspensions = (out: readonly ObserverOutput[]): SuspensionDraft[] =>
  out.flatMap((o) => (o.type === 'suspension' ? [o.draft] : []));

export const resumptions = (out: readonly ObserverOutput[]): ResumptionDraft[] =>
  out.flatMap((o) => (o.type === 'resumption' ? [o.draft] : []));

export const spans = (out: readonly ObserverOutput[], type?: SpanEvent['type']): SpanEvent[] =>
  out.flatMap((o) => (o.type === 'span' && (type === undefined || o.event.type === type) ? [o.event] : []));

export const findings = (out: readonly ObserverOutput[]) =>
  out.flatMap((o) => (o.type === 'finding' ? [o.finding] : []));

export const lost = (out: readonly ObserverOutput[]) =>
  out.flatMap((o) => (o.type === 'span' && o.event.type === 'lost' ? [o.event] : []));

/** Output kinds in order, e.g. `span:suspension.end`, `suspension`. */
export const shape = (out: readonly ObserverOutput[]): string[] =>
  out.map((o) => (o.type === 'span' ? `span:${o.event.type}` : o.type));
