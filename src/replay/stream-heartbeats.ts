/**
 * @module replay/stream-heartbeats
 * A stream compared by what it carries (docs/design.md §8, "Streams"): the sequence of task
 * states and artifacts its events carry, not how many times it repeated a state. A **heartbeat**
 * is a status update that repeats the state its stream last showed (a WORKING after a WORKING,
 * artifact events between them or not) and carries nothing else: no status message, no metadata.
 * How many of them a peer sends depends on how long it worked, not on what it did; an update that
 * says something (the peer's "pause requested" message on a WORKING) is content, compared as
 * such. Pure.
 *
 * Pairing the live events of a stream with the recorded ones (src/replay/ledger.ts):
 * - a live heartbeat pairs with the next recorded event when that is a heartbeat too; else it is
 *   one more than recorded and is dropped, neither kept nor drift;
 * - any other live event passes over the recorded heartbeats of another state before it (fewer
 *   than recorded), and pairs with the next recorded event;
 * - once a live event paired, the recorded heartbeats right after it that repeat its state are
 *   *covered*: what waits for them (a request the client sent after the fifth heartbeat) need
 *   not wait for a live fifth; a live heartbeat that comes still pairs with them.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import type { PlannedExchange } from './lanes.js';

function obj(value: JsonValue | undefined): { [key: string]: JsonValue } | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/**
 * What a stream event says of its task: the state it shows, whether it is a status update, and
 * whether it is a bare one (no status message, no metadata: nothing but its state).
 */
export interface EventCarriage {
  state: string | null;
  statusUpdate: boolean;
  bare: boolean;
}

/** Reads an event's body in any binding (v1.0 StreamResponse members; v0.3 `kind`). */
export function carriageOf(body: JsonValue | undefined): EventCarriage {
  const envelope = obj(body);
  const result = envelope && 'jsonrpc' in envelope ? obj(envelope.result) : envelope;
  if (!result) return { state: null, statusUpdate: false, bare: false };
  const update = obj(result.statusUpdate) ?? (result.kind === 'status-update' ? result : undefined);
  if (update) return { state: stateOf(update), statusUpdate: true, bare: isBare(update) };
  const task = obj(result.task) ?? (result.kind === 'task' || obj(result.status) ? result : undefined);
  return { state: task ? stateOf(task) : null, statusUpdate: false, bare: false };
}

/** A status update that says nothing but its state: no status message, no metadata. */
function isBare(update: { [key: string]: JsonValue }): boolean {
  const status = obj(update.status);
  const metadata = obj(update.metadata);
  return status?.message === undefined && (metadata === undefined || Object.keys(metadata).length === 0);
}

function stateOf(holder: { [key: string]: JsonValue }): string | null {
  const state = obj(holder.status)?.state;
  return typeof state === 'string' ? state : null;
}

/** Which of a list of event bodies are heartbeats, and the state each leaves its stream in. */
function heartbeatsOf(bodies: readonly (JsonValue | undefined)[]): { beat: boolean; state: string | null }[] {
  let state: string | null = null;
  return bodies.map((body) => {
    const carried = carriageOf(body);
    const beat = carried.bare && carried.state !== null && carried.state === state;
    if (carried.state !== null) state = carried.state;
    return { beat, state };
  });
}

/** Where a live event goes: the index of the recorded event it pairs with, or dropped. */
export type Placement = { kind: 'pair'; index: number } | { kind: 'drop' };

/** The heartbeat bookkeeping of a replay's streams (see the module doc). */
export class StreamHeartbeats {
  /** Per exchange: each recorded event's heartbeat flag and state. */
  readonly #recorded = new Map<string, { beat: boolean; state: string | null }[]>();
  /** Per exchange: the state the live stream last showed. */
  readonly #live = new Map<string, string | null>();

  #recordedOf(ex: PlannedExchange): { beat: boolean; state: string | null }[] {
    let list = this.#recorded.get(ex.xid);
    if (!list) {
      list = heartbeatsOf(ex.events.map((e) => e.body));
      this.#recorded.set(ex.xid, list);
    }
    return list;
  }

  /**
   * Where the live event `body` of `ex` goes, the recorded events before `next` being paired or
   * passed over already (an index past the recorded events pairs with none: an extra).
   */
  place(ex: PlannedExchange, next: number, body: JsonValue | undefined): Placement {
    const recorded = this.#recordedOf(ex);
    const carried = carriageOf(body);
    const previous = this.#live.get(ex.xid) ?? null;
    if (carried.state !== null) this.#live.set(ex.xid, carried.state);
    const beat = carried.bare && carried.state !== null && carried.state === previous;
    if (beat) return recorded[next]?.beat === true ? { kind: 'pair', index: next } : { kind: 'drop' };
    let index = next;
    while (recorded[index]?.beat === true && recorded[index]?.state !== carried.state) index++;
    return { kind: 'pair', index };
  }

  /** The recorded heartbeats right after `index` that repeat the state the live stream shows now. */
  covered(ex: PlannedExchange, index: number): number[] {
    const recorded = this.#recordedOf(ex);
    const state = this.#live.get(ex.xid) ?? null;
    const out: number[] = [];
    for (let i = index + 1; recorded[i]?.beat === true && recorded[i]?.state === state; i++) out.push(i);
    return out;
  }
}
