/**
 * @module observe/rules/routing
 * Precedence across the pause tables (docs/design.md §14.8), as data: for each kind of fact, the
 * tables that may decide it, each on which subject, in which order. Within a table the order of
 * its rows is the precedence; across tables it is the order of the routes here. A stage first does
 * the bookkeeping every fact of its kind does (a time the peer stated, a call taken out of those in
 * flight) and names the subjects it routes; each route reads its subject when its turn comes, so
 * what an earlier table decided is what a later one sees.
 */
import type { Fact, FactOf } from '../fact.js';
import type { ObservedTask } from '../observed-task.js';
import type { ObserverStore } from '../observer-store.js';
import type { Closer } from '../suspension.js';
import { TERMINAL_STATES } from '../../protocol/types.js';
import { RESUME_CALL_RULES, RESUMING_RULES } from './call-rules.js';
import { OPEN_RULES, aimsAt, authoritative } from './open-rules.js';
import { KEPT_ASIDE_RULES, PENDING_RULES, knownPause } from './pending-rules.js';
import { type RuleInput, type RuleTable, fire } from './rule.js';
import { TASK_RULES } from './task-rules.js';

/** One table a fact may reach, on the subject `subject` reads now; `otherwise` when it reads none. */
export interface Route<P> {
  readonly table: RuleTable<never>;
  readonly subject: (p: P) => object | undefined;
  readonly otherwise?: Route<P>;
}

/** A step of a fact's routing: its bookkeeping and subjects (none: nothing to decide), its routes, then `after`. */
export interface Stage<F extends Fact, P> {
  readonly prepare: (store: ObserverStore, fact: F) => Iterable<P>;
  readonly routes: readonly Route<P>[];
  /** What the tables fire on, when not the fact itself (a deadline the fact's clock reached). */
  readonly input?: (p: P, fact: F) => RuleInput;
  readonly after?: (store: ObserverStore, p: P, fact: F) => void;
}

type Routing = { readonly [T in Fact['type']]: ReadonlyArray<Stage<FactOf<T>, never>> };

/** A route to `table` (typed by its subject). */
function to<P, X extends object>(
  table: RuleTable<X>,
  subject: (p: P) => X | undefined,
  otherwise?: Route<P>,
): Route<P> {
  return { table: table as unknown as RuleTable<never>, subject, ...(otherwise ? { otherwise } : {}) };
}

function stage<F extends Fact, P>(s: Stage<F, P>): Stage<F, never> {
  return s as unknown as Stage<F, never>;
}

const NOTHING: readonly [] = [];
/** Bookkeeping only: the fact moves no suspension by a table. */
const only = <F extends Fact>(book: (store: ObserverStore, fact: F) => void): ReadonlyArray<Stage<F, never>> => [
  stage<F, never>({
    prepare: (store, fact) => {
      book(store, fact);
      return [];
    },
    routes: [],
  }),
];

interface OnTask {
  readonly task: ObservedTask;
}
const openOf = (p: OnTask) => (p.task.open ? { task: p.task, s: p.task.open } : undefined);
const taskOf = (p: OnTask) => ({ taskId: p.task.taskId, task: p.task });

interface OnCall extends OnTask {
  readonly xid: string | undefined;
}
const keptOf = (p: OnCall) => {
  const s = p.xid === undefined ? undefined : p.task.keptAside.get(p.xid);
  return s ? { task: p.task, s } : undefined;
};
const pendingOf = (p: OnCall) => {
  const s = p.xid === undefined ? undefined : p.task.pending.get(p.xid);
  return s ? { task: p.task, s } : undefined;
};

/** A task seen, unless it finished: the terminal task opens and ends nothing more. */
const liveTask = (store: ObserverStore, taskId: string): OnTask[] => {
  const task = store.task(taskId);
  return task.terminal ? [] : [{ task }];
};

interface OnPaused extends OnCall {
  /** The pause shown, when the task had it already (live or recently ended), read before any table fires. */
  readonly known: { key: string } | undefined;
}

/**
 * PAUSED was seen: a pause call kept aside or pending that it answers decides first, then the
 * open pause (the same pause seen again, or a new token that ended it), then the pending call it
 * proves, else the agent parked on its own.
 */
const PAUSED_SEEN = stage<FactOf<'PausedSeen'>, OnPaused>({
  prepare: (store, fact) => {
    const task = store.task(fact.task.taskId);
    if (task.terminal) return [];
    store.reportTime(fact.pause.pausedAt, fact.entry.at);
    const xid = fact.origin.kind === 'answer' ? fact.origin.xid : undefined;
    return [{ task, xid, known: knownPause(store, task, fact) }];
  },
  routes: [
    to(KEPT_ASIDE_RULES, keptOf),
    // A pause the task had already: the call it answers ends, and the open pause is that pause seen again.
    to(PENDING_RULES, (p) => (p.known ? pendingOf(p) : undefined)),
    to(OPEN_RULES, (p) => (p.known && p.task.open?.key === p.known.key ? openOf(p) : undefined)),
    // A new pause: the open one ended unseen, then the call it answers (or any in flight) proves it, else a self-park.
    to(OPEN_RULES, (p) => (p.known ? undefined : openOf(p))),
    to(
      PENDING_RULES,
      (p) => {
        if (p.known) return undefined;
        const s = pendingOf(p)?.s ?? p.task.pending.values().next().value;
        return s ? { task: p.task, s } : undefined;
      },
      to(TASK_RULES, (p) => (p.known ? undefined : taskOf(p))),
    ),
  ],
});

interface OnAnswer extends OnTask {
  readonly closer: Closer;
}

/** A ResumeTask answered: the race it is in decides, else the open pause it aims at, else the call alone. */
const RESUME_ANSWERED = stage<FactOf<'ResumeAnswered'>, OnAnswer>({
  prepare: (store, fact) => {
    const task = store.task(fact.taskId);
    const closer = store.takeCall(task, fact.xid);
    store.reportTime(fact.resumedAt, fact.entry.at);
    // The stream told first: this answer adds nothing.
    return !closer || closer.settled !== undefined ? [] : [{ task, closer }];
  },
  routes: [
    to(
      RESUMING_RULES,
      (p) => {
        const s = p.task.resuming.find((r) => r.race.candidates.has(p.closer.xid));
        return s ? { task: p.task, s, closer: p.closer } : undefined;
      },
      to(
        OPEN_RULES,
        (p) =>
          p.task.open && aimsAt(p.closer, p.task.open) ? { task: p.task, s: p.task.open, closer: p.closer } : undefined,
        to(RESUME_CALL_RULES, (p) => p),
      ),
    ),
  ],
});

interface OnFailed extends OnCall {
  readonly closer: Closer | undefined;
}

interface OnDeadline extends OnTask {
  readonly key: string;
  readonly which: 'trigger' | 'timeout';
}

/** The peer's clock moved: every open pause whose deadline it reached gets that proof (docs/design.md §14.4). */
const DEADLINES_DUE = stage<FactOf<'ControlAnswered'>, OnDeadline>({
  *prepare(store, fact) {
    if (fact.now === undefined) return;
    store.reportTime(fact.now, fact.entry.at);
    for (const due of store.dueDeadlines()) {
      const task = store.followed(due.taskId);
      if (!task || task.open?.key !== due.key) continue;
      store.touch(task);
      yield { task, key: due.key, which: due.which };
    }
  },
  input: (p, fact) => ({ type: 'DeadlineDue', entry: fact.entry, call: fact.call, which: p.which }),
  routes: [to(OPEN_RULES, (p) => (p.task.open?.key === p.key ? openOf(p) : undefined))],
});

/** Which tables decide each fact, in which order (docs/design.md §14.8). */
export const PAUSE_ROUTING: Routing = {
  MessageSent: NOTHING, // interruptions only
  InterruptedSeen: NOTHING,
  PauseRequested: [
    stage<FactOf<'PauseRequested'>, OnTask>({
      prepare: (store, fact) => [{ task: store.pauseCalled(fact) }],
      routes: [to(OPEN_RULES, (p) => (p.task.terminal ? undefined : openOf(p)), to(TASK_RULES, taskOf))],
    }),
  ],
  ResumeCalled: only((store, fact) => store.closerCalled(fact)),
  CancelCalled: only((store, fact) => store.closerCalled(fact)),
  ControlCalled: only((store, fact) => store.controlCalled(fact.call)),
  TaskSeen: only((store, fact) => store.taskSeen(fact)),
  PausedSeen: [PAUSED_SEEN],
  ResumeAnnounced: [
    stage<FactOf<'ResumeAnnounced'>, OnTask>({
      prepare: (store, fact) => liveTask(store, fact.task.taskId),
      routes: [to(OPEN_RULES, openOf, to(TASK_RULES, taskOf))],
    }),
  ],
  StateSeen: [
    stage<FactOf<'StateSeen'>, OnTask>({
      prepare: (store, fact) => liveTask(store, fact.task.taskId),
      routes: [to(OPEN_RULES, openOf)],
      after: (store, p, fact) => {
        if (TERMINAL_STATES.has(fact.state) && authoritative(p.task, fact.origin)) store.endTask(p.task, fact.entry);
      },
    }),
  ],
  WorkSeen: [
    stage<FactOf<'WorkSeen'>, OnTask>({
      prepare: (store, fact) => [{ task: store.task(fact.task.taskId) }],
      routes: [to(OPEN_RULES, openOf)],
    }),
  ],
  PauseAnswered: [
    stage<FactOf<'PauseAnswered'>, OnCall>({
      prepare: (store, fact) => [{ task: store.task(fact.taskId), xid: fact.xid }],
      routes: [to(KEPT_ASIDE_RULES, keptOf), to(PENDING_RULES, pendingOf)],
    }),
  ],
  ResumeAnswered: [RESUME_ANSWERED],
  CancelAnswered: [
    stage<FactOf<'CancelAnswered'>, OnAnswer>({
      prepare: (store, fact) => {
        const task = store.followed(fact.taskId);
        const closer = task && store.takeCall(task, fact.xid);
        if (!task || !closer) return [];
        store.touch(task);
        return [{ task, closer }];
      },
      routes: [to(RESUME_CALL_RULES, (p) => p)],
    }),
  ],
  // A call on the task failed: the open pause (task gone), the resume or cancel call, the pause call it was.
  CallFailed: [
    stage<FactOf<'CallFailed'>, OnFailed>({
      prepare: (store, fact) => {
        const task = store.known(fact.taskId);
        return task ? [{ task, xid: fact.xid, closer: store.takeCall(task, fact.xid) }] : [];
      },
      routes: [
        to(OPEN_RULES, openOf),
        to(RESUME_CALL_RULES, (p) => (p.closer ? { task: p.task, closer: p.closer } : undefined)),
        to(KEPT_ASIDE_RULES, keptOf),
        to(PENDING_RULES, pendingOf),
      ],
    }),
  ],
  // The deadlines the answer's clock reached, then the tasks a FireEvent answer resumed.
  ControlAnswered: [
    DEADLINES_DUE,
    stage<FactOf<'ControlAnswered'>, { taskId: string; task: ObservedTask | undefined }>({
      *prepare(store, fact) {
        if (fact.resumed === undefined) return;
        store.controlCalled(fact.call, fact.resumed);
        for (const taskId of new Set(fact.resumed)) yield { taskId, task: store.known(taskId) };
      },
      routes: [
        to(
          OPEN_RULES,
          (p) => (p.task?.open ? { task: p.task, s: p.task.open } : undefined),
          to(TASK_RULES, (p) => p),
        ),
      ],
    }),
  ],
  StreamEnded: [
    stage<FactOf<'StreamEnded'>, OnTask>({
      *prepare(store, fact) {
        for (const taskId of fact.tasks) {
          const task = store.followed(taskId);
          if (!task) continue;
          store.streamEnded(task, fact.xid);
          yield { task };
        }
      },
      routes: [to(OPEN_RULES, openOf)],
    }),
  ],
};

/** Routes `fact` to the tables that decide it, in the order of {@link PAUSE_ROUTING}. */
export function routeFact(store: ObserverStore, fact: Fact): void {
  const stages = PAUSE_ROUTING[fact.type] as unknown as ReadonlyArray<Stage<Fact, unknown>>;
  for (const s of stages) {
    for (const p of s.prepare(store, fact)) {
      const input = s.input ? s.input(p, fact) : fact;
      for (const route of s.routes) take(store, route, p, input);
      s.after?.(store, p, fact);
    }
  }
}

function take<P>(store: ObserverStore, route: Route<P>, p: P, input: RuleInput): void {
  const x = route.subject(p);
  if (x !== undefined) fire(store, route.table as RuleTable<object>, x, input);
  else if (route.otherwise) take(store, route.otherwise, p, input);
}
