/**
 * @module observe/rules/rule
 * The shape of the observer's rules (docs/design.md §14.8): a table per suspension state, each row
 * `(state, fact, guard) → rule id → transition`. The first row whose fact and guard match fires;
 * the order of the rows is their precedence. A rule's id is stable: verdicts, spans, `lost
 * --explain` and the design's list name it.
 */
import type { ControlCall, EntryRef, Fact } from '../fact.js';
import type { FiredRule } from '../observed-task.js';
import type { ObserverStore } from '../observer-store.js';

/** The recording ended: what is still open is decided (docs/design.md §14.5). */
export interface RecordingEnded {
  readonly type: 'RecordingEnded';
  readonly at: string;
  /** The peer's clock at the end, as estimated (NaN before any report). */
  readonly now: number;
}

/** A control answer moved the peer's clock past a deadline of an open pause (docs/design.md §14.4). */
export interface DeadlineDue {
  readonly type: 'DeadlineDue';
  readonly entry: EntryRef;
  readonly call: ControlCall;
  readonly which: 'trigger' | 'timeout';
}

/** What a rule fires on: a fact, a deadline the clock reached, or the end of the recording. */
export type RuleInput = Fact | DeadlineDue | RecordingEnded;
export type RuleInputType = RuleInput['type'];
export type InputOf<T extends RuleInputType> = Extract<RuleInput, { type: T }>;

/** What a row reads: the store, the table's subject (a task, a suspension in its state) and the input. */
export type Case<X, F extends RuleInput = RuleInput> = X & { readonly store: ObserverStore; readonly fact: F };

/** One row of a table. */
export interface Rule<X> {
  /** `<state>/<name>`: stable, cited by verdicts and listed in docs/design.md §14.8. */
  readonly id: string;
  readonly on: RuleInputType;
  /** One line: why the row does what it does. */
  readonly reason: string;
  readonly when: (c: Case<X>) => boolean;
  readonly then: (c: Case<X>) => void;
}

/** The rows of one state, in precedence order. */
export interface RuleTable<X> {
  readonly state: string;
  readonly rows: readonly Rule<X>[];
  /** The suspension a row decides for, to name it in {@link FiredRule}. */
  readonly subject: (x: X) => { taskId: string; suspension: string | undefined };
}

/** A row: on `on`, when `when` holds (always when `true`), do `then`. */
export function rule<X, T extends RuleInputType>(
  id: string,
  on: T,
  reason: string,
  when: true | ((c: Case<X, InputOf<T>>) => boolean),
  then: (c: Case<X, InputOf<T>>) => void,
): Rule<X> {
  // The table only calls a row with an input of type `on` (fire), so the narrowing holds.
  const narrow = (c: Case<X>): Case<X, InputOf<T>> => c as Case<X, InputOf<T>>;
  return {
    id,
    on,
    reason,
    when: when === true ? () => true : (c) => when(narrow(c)),
    then: (c) => then(narrow(c)),
  };
}

/**
 * Fires the first row of `table` whose input type and guard match, recording it in the store (so
 * what it emits names it); returns its id, undefined when no row matched.
 */
export function fire<X extends object>(
  store: ObserverStore,
  table: RuleTable<X>,
  x: X,
  fact: RuleInput,
): string | undefined {
  const c = { ...x, store, fact } as Case<X>;
  for (const row of table.rows) {
    if (row.on !== fact.type || !row.when(c)) continue;
    const { taskId, suspension } = table.subject(x);
    const fired: FiredRule = {
      rule: row.id,
      fact: fact.type === 'DeadlineDue' ? 'ControlAnswered' : fact.type,
      seq: fact.type === 'RecordingEnded' ? null : fact.entry.seq,
      taskId,
      suspension,
    };
    store.firing(fired, () => row.then(c));
    return row.id;
  }
  return undefined;
}
