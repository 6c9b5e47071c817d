/**
 * @module observe/rules/rule
 * The shape of the observer's rules (docs/design.md §14.8): a table per suspension state, each row
 * `(state, fact, guard) → rule id → next state, transition`. The first row whose fact and guard
 * match fires; the order of the rows is their precedence. A row acts through the actions port
 * ({@link PauseActions}), never on the store. A rule's id is stable: verdicts, spans, `lost
 * --explain` and the design's list name it.
 */
import type { ControlCall, EntryRef, Fact } from '../fact.js';
import type { FiredRule } from '../observed-task.js';
import type { PauseActions } from '../pause-actions.js';

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

/** What a row reads: its subject (a task, a suspension in its state) and the input, and the port it acts through. */
export type Case<X, F extends RuleInput = RuleInput> = X & { readonly acts: PauseActions; readonly fact: F };

/**
 * The state a row leaves its subject in (docs/design.md §14.1, §14.9): a pause `pending`, `kept-aside`,
 * `open`, `resuming`, `ended` (a ResumptionReceipt) or `lost` (a LostPause); `task` (no pause of the
 * task the fact is about), `dropped` (a pause call that opened nothing), `done` (a resume or cancel
 * call whose span ended); an interruption `not-interrupted`, `interrupted`, `continued` or `lost`.
 */
export type NextState =
  | 'task'
  | 'pending'
  | 'kept-aside'
  | 'dropped'
  | 'open'
  | 'resuming'
  | 'ended'
  | 'lost'
  | 'done'
  | 'not-interrupted'
  | 'interrupted'
  | 'continued';

/** One row of a table. */
export interface Rule<X> {
  /** `<state>/<name>`: stable, cited by verdicts and listed in docs/design.md §14.8. */
  readonly id: string;
  readonly on: RuleInputType;
  /** The states the row can leave its subject in (one, but for a row whose guard or re-routing decides). */
  readonly next: readonly NextState[];
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

/** A row: on `on`, when `when` holds (always when `true`), do `then`, leaving the subject in `next`. */
export function rule<X, T extends RuleInputType>(
  id: string,
  on: T,
  next: NextState | readonly NextState[],
  reason: string,
  when: true | ((c: Case<X, InputOf<T>>) => boolean),
  then: (c: Case<X, InputOf<T>>) => void,
): Rule<X> {
  // The table only calls a row with an input of type `on` (fire), so the narrowing holds.
  const narrow = (c: Case<X>): Case<X, InputOf<T>> => c as Case<X, InputOf<T>>;
  return {
    id,
    on,
    next: typeof next === 'string' ? [next] : next,
    reason,
    when: when === true ? () => true : (c) => when(narrow(c)),
    then: (c) => then(narrow(c)),
  };
}

/** The rows of each table by the input type they fire on, each list in the table's order. */
const ROWS_BY_INPUT = new WeakMap<RuleTable<never>, ReadonlyMap<RuleInputType, readonly Rule<never>[]>>();
const NO_ROWS: readonly Rule<never>[] = [];

/**
 * The rows of `table` that fire on `type`, in precedence order: the table indexed by input type
 * once, so a fact costs a lookup and a walk over its own rows, not over the whole table.
 */
function rowsOn<X>(table: RuleTable<X>, type: RuleInputType): readonly Rule<X>[] {
  const key = table as unknown as RuleTable<never>;
  let index = ROWS_BY_INPUT.get(key);
  if (index === undefined) {
    const byType = new Map<RuleInputType, Rule<never>[]>();
    for (const row of table.rows as readonly Rule<never>[]) {
      const rows = byType.get(row.on);
      if (rows) rows.push(row);
      else byType.set(row.on, [row]);
    }
    index = byType;
    ROWS_BY_INPUT.set(key, index);
  }
  return (index.get(type) ?? NO_ROWS) as readonly Rule<X>[];
}

/**
 * Fires the first row of `table` whose input type and guard match, recording it through `acts` (so
 * what it emits names it); returns its id, undefined when no row matched.
 */
export function fire<X extends object>(
  acts: PauseActions,
  table: RuleTable<X>,
  x: X,
  fact: RuleInput,
): string | undefined {
  const rows = rowsOn(table, fact.type);
  if (rows.length === 0) return undefined;
  const c = { ...x, acts, fact } as Case<X>;
  for (const row of rows) {
    if (!row.when(c)) continue;
    const { taskId, suspension } = table.subject(x);
    const fired: FiredRule = {
      rule: row.id,
      fact: fact.type === 'DeadlineDue' ? 'ControlAnswered' : fact.type,
      seq: fact.type === 'RecordingEnded' ? null : fact.entry.seq,
      taskId,
      suspension,
    };
    acts.firing(fired, () => row.then(c));
    return row.id;
  }
  return undefined;
}
