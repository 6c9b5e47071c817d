/**
 * Hand-built recording entries (docs/design.md §5) for pause stories on one streaming task, to feed the
 * real PauseObserver and render its span events.
 */
import type { JsonObject, JsonValue } from '../../src/canonical/canonical-json.js';
import type { RecordingEntry, RecordingHeader } from '../../src/recording/format.js';
import { at } from './memory-tracing.js';

export const RECORDING: RecordingHeader = {
  type: 'recording',
  version: 1,
  id: 'rec-tracing-0001',
  createdAt: at(0),
  target: { url: 'http://127.0.0.1:4000' },
  tool: 'a2a-replay@0.1.0',
};

export const TASK_ID = 'task-7';
export const CONTEXT_ID = 'ctx-7';
export const TOKEN = 'tok-1';

/** Builds entries in order; `at(s)` times, one JSON-RPC id per exchange. */
export class EntryScript {
  readonly entries: RecordingEntry[] = [];
  #rpc = 0;

  #push(entry: Omit<RecordingEntry, 'seq'>): this {
    this.entries.push({ seq: this.entries.length + 1, ...entry });
    return this;
  }

  request(
    seconds: number,
    xid: string,
    method: string,
    params: JsonObject,
    headers: Record<string, string> = {},
  ): this {
    return this.#push({
      at: at(seconds),
      xid,
      kind: 'request',
      http: { method: 'POST', path: '/', headers: { 'content-type': 'application/json', ...headers } },
      body: { jsonrpc: '2.0', id: `${xid}-${++this.#rpc}`, method, params },
      principal: 'bearer:sha256:0badc0de',
    });
  }

  result(seconds: number, xid: string, result: JsonValue): this {
    return this.#push({
      at: at(seconds),
      xid,
      kind: 'response',
      http: { method: 'POST', path: '/', status: 200 },
      body: { jsonrpc: '2.0', id: this.#idOf(xid), result },
    });
  }

  error(seconds: number, xid: string, code: number, message: string): this {
    return this.#push({
      at: at(seconds),
      xid,
      kind: 'response',
      http: { method: 'POST', path: '/', status: 200 },
      body: { jsonrpc: '2.0', id: this.#idOf(xid), error: { code, message } },
    });
  }

  /** The head of an SSE answer. */
  streamHead(seconds: number, xid: string): this {
    return this.#push({
      at: at(seconds),
      xid,
      kind: 'response',
      http: { method: 'POST', path: '/', status: 200, headers: { 'content-type': 'text/event-stream' } },
    });
  }

  event(seconds: number, xid: string, result: JsonObject): this {
    return this.#push({
      at: at(seconds),
      xid,
      kind: 'event',
      http: { method: 'POST', path: '/' },
      body: { jsonrpc: '2.0', id: this.#idOf(xid), result },
    });
  }

  end(seconds: number, xid: string): this {
    return this.#push({ at: at(seconds), xid, kind: 'end', http: { method: 'POST', path: '/' } });
  }

  #idOf(xid: string): string {
    const request = this.entries.find((e) => e.xid === xid && e.kind === 'request');
    const body = request?.body as { id?: string } | undefined;
    return body?.id ?? 'unknown';
  }

  // ---- story steps on TASK_ID ----

  /** A SendStreamingMessage at `s` whose stream says WORKING at s+1. */
  openStream(seconds: number, xid = 'x-stream'): this {
    return this.request(seconds, xid, 'SendStreamingMessage', {
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
    })
      .streamHead(seconds, xid)
      .event(seconds + 1, xid, {
        task: {
          id: TASK_ID,
          contextId: CONTEXT_ID,
          status: { state: 'TASK_STATE_WORKING', timestamp: at(seconds + 1) },
        },
      });
  }

  status(seconds: number, xid: string, status: JsonObject, metadata?: JsonObject): this {
    return this.event(seconds, xid, {
      statusUpdate: { taskId: TASK_ID, contextId: CONTEXT_ID, status, ...(metadata ? { metadata } : {}) },
    });
  }

  artifact(seconds: number, xid: string): this {
    return this.event(seconds, xid, {
      artifactUpdate: {
        taskId: TASK_ID,
        contextId: CONTEXT_ID,
        artifact: { artifactId: 'a-1', parts: [{ text: 'step' }] },
      },
    });
  }

  /** A client PauseTask at `s`, answered PAUSED at s+1; the stream shows PAUSED at s+1 too. */
  clientPause(
    seconds: number,
    options: { pausedUntil?: string; traceparent?: string; stream?: string; token?: string } = {},
  ): this {
    const pause = this.pauseObject('PAUSE_INITIATOR_CLIENT', seconds + 1, options.pausedUntil, options.token);
    this.request(
      seconds,
      'x-pause',
      'PauseTask',
      { taskId: TASK_ID, reason: 'needs approval', mode: 'finish_step' },
      options.traceparent ? { traceparent: options.traceparent } : {},
    );
    if (options.stream)
      this.status(seconds + 1, options.stream, { state: 'TASK_STATE_PAUSED', timestamp: at(seconds + 1), pause });
    return this.result(seconds + 1, 'x-pause', { taskId: TASK_ID, state: 'TASK_STATE_PAUSED', pause }).end(
      seconds + 1,
      'x-pause',
    );
  }

  pauseObject(initiatedBy: string, seconds: number, pausedUntil?: string, token = TOKEN): JsonObject {
    return {
      initiatedBy,
      reason: 'needs approval',
      pausedAt: at(seconds),
      ...(pausedUntil ? { pausedUntil } : {}),
      resumeToken: token,
      resumable: true,
    };
  }

  /** A ResumeTask at `s`, answered at s+1, the stream back to WORKING at s+1. */
  resume(seconds: number, stream: string): this {
    this.request(seconds, 'x-resume', 'ResumeTask', { taskId: TASK_ID, resumeToken: TOKEN, continueTranscript: true });
    this.status(
      seconds + 1,
      stream,
      { state: 'TASK_STATE_WORKING', timestamp: at(seconds + 1) },
      {
        previousState: 'TASK_STATE_PAUSED',
        cause: 'explicit_resume',
        hadResumeInput: false,
        continueTranscript: true,
        resumedAt: at(seconds + 1),
      },
    );
    return this.result(seconds + 1, 'x-resume', {
      taskId: TASK_ID,
      state: 'TASK_STATE_WORKING',
      previousState: 'TASK_STATE_PAUSED',
      cause: 'explicit_resume',
      resumedAt: at(seconds + 1),
    }).end(seconds + 1, 'x-resume');
  }
}
