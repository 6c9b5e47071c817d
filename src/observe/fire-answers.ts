/**
 * @module observe/fire-answers
 * What FireEvent answers said they resumed (docs/design.md §14.3): a FireEvent whose answer listed
 * other tasks only did not resume a task's pause, whatever came after, so it is no evidence of how
 * that pause ended. Bounded: the answers of the latest calls are kept.
 */
import { BoundedMap } from '../bounded-map.js';
import type { ControlCall } from './fact.js';

export class FireAnswers {
  /** The tasks each answered FireEvent resumed, by the call's seq. */
  readonly #resumed: BoundedMap<number, ReadonlySet<string>>;

  constructor(capacity: number) {
    this.#resumed = new BoundedMap(capacity);
  }

  /** A FireEvent's answer listed the tasks it resumed (`resumed`), and no other. */
  answered(call: ControlCall, resumed: readonly string[]): void {
    if (call.method === 'FireEvent') this.#resumed.set(call.seq, new Set(resumed));
  }

  /** `call` as evidence of an end of `taskId`'s pause: undefined when its answer did not list the task. */
  evidenceFor(call: ControlCall | undefined, taskId: string): ControlCall | undefined {
    if (call === undefined) return undefined;
    const resumed = this.#resumed.peek(call.seq);
    return resumed === undefined || resumed.has(taskId) ? call : undefined;
  }
}
