/**
 * @module observe/verdict-chains
 * Why each pause was declared lost (docs/design.md §14.8): a PauseObserver run over a recording
 * whose fired rules are kept per suspension, so each lost pause comes with the chain that led to
 * it — each fact's entry (file line, seq), its type and the rule it fired. What is kept of a
 * pause is dropped once it closes.
 */
import type { RecordingEntry } from '../recording/format.js';
import { ATTR_RULE } from '../tracing/attributes.js';
import type { LostPauseReason } from './lost-pause-reasons.js';
import { type FiredRule, PauseObserver } from './pause-observer.js';
import type { ObserverOutput } from './suspension.js';

/** One step of a chain: a fact read from an entry and the rule it fired. */
export interface ChainStep {
  /** Line of the entry in the recording file; null at the recording's end. */
  readonly line: number | null;
  readonly seq: number | null;
  readonly fact: FiredRule['fact'];
  readonly rule: string;
}

/** A lost pause and the chain of rules that led to it. */
export interface LostChain {
  readonly taskId: string;
  readonly suspension: string;
  readonly reason: LostPauseReason;
  readonly rule: string | null;
  readonly steps: readonly ChainStep[];
}

export class VerdictChains {
  readonly #observer: PauseObserver;
  readonly #steps = new Map<string, ChainStep[]>();
  readonly #lost: LostChain[] = [];

  constructor(recordingId: string) {
    this.#observer = new PauseObserver({ recordingId });
  }

  /** Observes the entry read from line `line` of the recording. */
  observe(entry: RecordingEntry, line: number): void {
    const out = this.#observer.observe(entry);
    this.#take(out, line);
  }

  finish(at: string): void {
    this.#take(this.#observer.finish(at), null);
  }

  /** Lost pauses in the order they were declared, each with its chain. */
  get lost(): readonly LostChain[] {
    return this.#lost;
  }

  #take(out: readonly ObserverOutput[], line: number | null): void {
    for (const f of this.#observer.firedRules) {
      if (f.suspension === undefined) continue;
      let steps = this.#steps.get(f.suspension);
      if (!steps) this.#steps.set(f.suspension, (steps = []));
      steps.push({ line, seq: f.seq, fact: f.fact, rule: f.rule });
    }
    for (const o of out) {
      if (o.type === 'resumption' && o.suspensionKey !== null && o.draft.outcome !== 'rejected')
        this.#steps.delete(o.suspensionKey);
      if (o.type !== 'span' || o.event.type !== 'lost') continue;
      const e = o.event;
      const rule = e.attributes[ATTR_RULE];
      this.#lost.push({
        taskId: e.taskId,
        suspension: e.suspensionKey,
        reason: e.reason,
        rule: typeof rule === 'string' ? rule : null,
        steps: this.#steps.get(e.suspensionKey) ?? [],
      });
      this.#steps.delete(e.suspensionKey);
    }
  }
}
