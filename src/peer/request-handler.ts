/**
 * @module peer/request-handler
 * The reference peer's transport-agnostic request handler (docs/design.md §4, §15): a method name
 * and its raw params in; a result, a stream or a typed error ({@link RpcFailure}) out, through the
 * {@link Reply} the binding's adapter gives. It knows neither HTTP nor JSON-RPC: the JSON-RPC
 * adapter (src/peer/jsonrpc-adapter.ts) and the HTTP+JSON adapter (src/peer/rest-adapter.ts) put
 * what it answers on the wire.
 *
 * Checks run in this order: method (-32601; control methods only where the adapter allows them),
 * methods the peer declines (push configs -32003, the extended card -32004), params (-32602 naming
 * the field), ranges (-32602 naming the field and its range, src/protocol/bounds.ts), then the
 * method's own errors.
 *
 * Order: answers of calls that cause events (ResumeTask, PauseTask, CancelTask, AdvanceClock,
 * FireEvent, ...) are sent only after those events were written to every open stream, so a recorder
 * sees a stable order. An AdvanceClock answers after the answers it let happen (a PauseTask that
 * waited for a step).
 */
import { isoAt } from '../clock.js';
import { errorMessage } from '../errors.js';
import { checkCallRanges } from '../protocol/bounds.js';
import { A2A_PROTOCOL_VERSION } from '../protocol/types.js';
import { type MethodCall, isKnownMethod, parseMethodCall } from '../protocol/params.js';
import { formatIssue } from '../protocol/read.js';
import { isTerminal } from '../protocol/state-machine.js';
import { RpcFailure } from './rpc-failure.js';
import { type AdvanceResult, type Scheduler, VirtualScheduler } from './scheduler.js';
import { type A2aVersionSetting, V03_PROTOCOL_VERSION } from './v03-dialect.js';
import type { Caller, Subscriber, TaskEngine } from './task-engine.js';

/** A stream the adapter opened for a call. */
export interface StreamSink extends Subscriber {
  /** Called once when the stream is over (ended, or the client left). */
  onClose(listener: () => void): void;
}

/** How the handler answers one call; the adapter puts it on the wire in its binding. */
export interface Reply {
  /** Sends the call's result (once). */
  result(value: unknown): void;
  /** Opens the call's stream of StreamResponses. */
  openStream(): StreamSink;
  /** Sends the call's error: a whole answer before the stream opened, a last frame after. */
  fail(failure: RpcFailure): void;
}

export interface RequestHandlerOptions {
  engine: TaskEngine;
  scheduler: Scheduler;
  log: (line: string) => void;
}

/** Which methods a call may name where it arrived. */
export type MethodScope = 'a2a' | 'control';

/**
 * The A2A-Version check of a v1.0 call (spec §3.6): the value a request carried, or '' for none
 * (meaning 0.3). A peer set to serve v0.3 only (`--a2a-version 0.3`) refuses every v1.0 call.
 */
export function versionFailure(version: string, setting: A2aVersionSetting = '1.0'): RpcFailure | undefined {
  if (setting === '0.3') {
    return new RpcFailure(
      'VERSION_NOT_SUPPORTED',
      `this peer speaks A2A ${V03_PROTOCOL_VERSION} only (--a2a-version 0.3): call its v0.3 methods ` +
        '(message/send, tasks/get, ...) without an A2A-Version header',
    );
  }
  if (version === A2A_PROTOCOL_VERSION) return undefined;
  const shown = version === '' ? 'none (which means 0.3)' : JSON.stringify(version);
  return new RpcFailure(
    'VERSION_NOT_SUPPORTED',
    `A2A-Version ${shown} is not supported; this peer speaks ${A2A_PROTOCOL_VERSION}: send ` +
      `the header A2A-Version: ${A2A_PROTOCOL_VERSION}`,
  );
}

/** The peer's methods, one {@link Reply} per call. */
export class RequestHandler {
  readonly #engine: TaskEngine;
  readonly #scheduler: Scheduler;
  readonly #log: (line: string) => void;
  /** Answers of event-causing calls being sent; AdvanceClock answers after those it let happen. */
  readonly #answers = new Set<Promise<void>>();
  readonly #streams = new Set<StreamSink>();

  constructor(options: RequestHandlerOptions) {
    this.#engine = options.engine;
    this.#scheduler = options.scheduler;
    this.#log = options.log;
  }

  /**
   * Handles `method(params)` from `caller`; never rejects (every failure goes to `reply.fail`).
   * `method` is known to exist in `scope` (the adapter checked it).
   */
  async call(method: string, params: unknown, caller: Caller, reply: Reply): Promise<void> {
    if (!isKnownMethod(method)) {
      reply.fail(
        method === 'GetExtendedAgentCard'
          ? new RpcFailure('UNSUPPORTED_OPERATION', 'this peer declares no extended agent card')
          : new RpcFailure(
              'PUSH_NOTIFICATION_NOT_SUPPORTED',
              `${method}: this peer does not support push notifications`,
            ),
      );
      return;
    }
    const call = parseMethodCall(method, params);
    if (!call.ok) {
      reply.fail(new RpcFailure('INVALID_PARAMS', formatIssue(call.issue), { field: call.issue.field }));
      return;
    }
    const outOfRange = checkCallRanges(call.value);
    if (outOfRange) {
      reply.fail(new RpcFailure('INVALID_PARAMS', formatIssue(outOfRange), { field: outOfRange.field }));
      return;
    }
    try {
      await this.#dispatch(call.value, caller, reply);
    } catch (error) {
      let failure =
        error instanceof RpcFailure
          ? error
          : new RpcFailure('INTERNAL', `internal error in ${method}: ${errorMessage(error)}`);
      // An error may show a task's state too (data.state): no sooner than the store holds it.
      await this.#engine.durable().catch((cause: unknown) => {
        failure = new RpcFailure('INTERNAL', `internal error in ${method}: ${errorMessage(cause)}`);
      });
      if (failure.errorName === 'INTERNAL') this.#log(`peer: ${method} failed: ${failure.message}`);
      reply.fail(failure);
    }
  }

  /** Ends every open stream (the peer is closing). */
  closeStreams(): void {
    for (const stream of this.#streams) stream.close();
  }

  /**
   * Moves a virtual clock by `ms` (AdvanceClock, and `run`'s replay of a real-time session): every
   * due timer fires at its own instant, then the answers the move let happen (a PauseTask that
   * waited for a step) go out before this resolves.
   */
  async advanceClock(scheduler: VirtualScheduler, ms: number): Promise<AdvanceResult> {
    const moved = await scheduler.advance(ms);
    if (moved.kind === 'past-limit') return moved;
    await this.#engine.flushed();
    await Promise.all([...this.#answers]);
    return moved;
  }

  /** Sends a result once every event so far reached its streams (docs/design.md §4 "Order"). */
  #answerAfterEvents(reply: Reply, result: unknown): Promise<void> {
    const sent = this.#engine.flushed().then(() => reply.result(result));
    this.#answers.add(sent);
    // The call's own await sees a failure; this copy of it must not go unhandled.
    const forget = (): void => {
      this.#answers.delete(sent);
    };
    void sent.then(forget, forget);
    return sent;
  }

  /**
   * Sends a view of tasks (GetTask, ListTasks) once every change so far is on disk: with a store,
   * a pause, a resume or an end it shows (and a resume token) is durable before a client sees it,
   * as for the answers of the calls that made it (docs/design.md §4 "The store").
   */
  async #answerWhenDurable(reply: Reply, result: unknown): Promise<void> {
    await this.#engine.durable();
    reply.result(result);
  }

  #openStream(reply: Reply, taskId: string): void {
    const stream = reply.openStream();
    this.#streams.add(stream);
    const off = this.#engine.subscribe(taskId, stream);
    stream.onClose(() => {
      this.#streams.delete(stream);
      off();
    });
  }

  async #dispatch(call: MethodCall, caller: Caller, reply: Reply): Promise<void> {
    const engine = this.#engine;
    switch (call.method) {
      case 'SendMessage': {
        const historyLength = call.params.configuration?.historyLength;
        const taskId = engine.accept(call.params, caller);
        engine.start(taskId, caller);
        const task =
          call.params.configuration?.returnImmediately === true
            ? engine.getTask(taskId, historyLength)
            : await engine.untilSettled(taskId, historyLength);
        await this.#answerAfterEvents(reply, { task });
        return;
      }
      case 'SendStreamingMessage': {
        const taskId = engine.accept(call.params, caller);
        this.#openStream(reply, taskId);
        engine.start(taskId, caller);
        return;
      }
      case 'GetTask':
        await this.#answerWhenDurable(reply, engine.getTask(call.params.id, call.params.historyLength));
        return;
      case 'ListTasks':
        await this.#answerWhenDurable(reply, engine.listTasks(call.params));
        return;
      case 'CancelTask':
        await this.#answerAfterEvents(reply, engine.cancel(call.params.id, caller));
        return;
      case 'SubscribeToTask': {
        const state = engine.taskState(call.params.id);
        if (isTerminal(state)) {
          throw new RpcFailure(
            'UNSUPPORTED_OPERATION',
            `task ${call.params.id} is ${state}: a terminal task cannot be subscribed to`,
            { taskId: call.params.id, state },
          );
        }
        this.#openStream(reply, call.params.id);
        return;
      }
      case 'PauseTask':
        await this.#answerAfterEvents(reply, await engine.pause(call.params, caller));
        return;
      case 'AwaitTaskResumption':
        await this.#answerAfterEvents(reply, await engine.awaitResumption(call.params, caller));
        return;
      case 'ResumeTask':
        await this.#answerAfterEvents(reply, await engine.resume(call.params, caller));
        return;
      case 'AdvanceClock': {
        const scheduler = this.#scheduler;
        if (!(scheduler instanceof VirtualScheduler)) {
          throw new RpcFailure(
            'UNSUPPORTED_OPERATION',
            'AdvanceClock needs a deterministic peer (--deterministic): this peer runs on the real clock',
          );
        }
        const moved = await this.advanceClock(scheduler, call.params.ms);
        if (moved.kind === 'past-limit') {
          throw new RpcFailure(
            'INVALID_PARAMS',
            `params.ms: expected at most ${moved.limit - moved.now} (the virtual clock stands at ` +
              `${isoAt(moved.now)} and never passes ${isoAt(moved.limit)}); got ${call.params.ms}`,
            { field: 'params.ms' },
          );
        }
        reply.result({ now: isoAt(moved.now) });
        return;
      }
      case 'FireEvent':
        await this.#answerAfterEvents(reply, {
          resumed: engine.fireEvent(call.params.name, call.params.payload, caller),
        });
        return;
      case 'GetClock':
        reply.result({ now: isoAt(this.#scheduler.clock.now()) });
        return;
      default: {
        const never: never = call;
        throw new Error(`unhandled method ${JSON.stringify(never)}`);
      }
    }
  }
}
