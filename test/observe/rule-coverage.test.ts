/**
 * Rule coverage (docs/design.md §14.8), as Temporal's `transition_coverage`: the observer's test
 * files run here again, every rule the observer fires while they run is recorded, and the last
 * test fails naming each row of the tables that no test fired. A row added without a test that
 * fires it fails here. (observer-scale is left out: 20,000 pairs of the rows the others fire.)
 */
import { describe, expect, it } from 'vitest';
import { PauseObserver } from '../../src/observe/pause-observer.js';
import type { NextState } from '../../src/observe/rules/rule.js';
import { OBSERVER_RULES } from '../../src/observe/rules/tables.js';
import type { ObserverOutput } from '../../src/observe/suspension.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { ATTR_RULE } from '../../src/tracing/attributes.js';
import './call-view.test.js';
import './interruption-rules.test.js';
import './client-styles.test.js';
import './lost-rules.test.js';
import './pause-observer.test.js';
import './peer-traffic.test.js';
import './pipeline.test.js';
import './rule-rows.test.js';

const fired = new Set<string>();
const NEXT = new Map(OBSERVER_RULES.map((r) => [r.id, r.next]));
/** Verdicts whose kind is not a state their row names, as `rule → state`. */
const mismatched = new Set<string>();
let verdicts = 0;

/** The state a verdict shows its rule left the subject in: a receipt, a continuation, a loss. */
function verdictState(o: ObserverOutput): { rule: string; state: NextState } | undefined {
  switch (o.type) {
    case 'suspension':
      return o.rule === undefined ? undefined : { rule: o.rule, state: 'open' };
    case 'resumption':
      return o.rule === undefined || o.draft.outcome === 'rejected' ? undefined : { rule: o.rule, state: 'ended' };
    case 'interruption':
      return o.rule === undefined ? undefined : { rule: o.rule, state: 'interrupted' };
    case 'continuation':
      return o.rule === undefined ? undefined : { rule: o.rule, state: 'continued' };
    case 'interruption-lost':
      return o.rule === undefined ? undefined : { rule: o.rule, state: 'lost' };
    case 'span': {
      const rule = o.event.type === 'lost' ? o.event.attributes[ATTR_RULE] : undefined;
      return typeof rule === 'string' ? { rule, state: 'lost' } : undefined;
    }
    default:
      return undefined;
  }
}

function checkNext(out: readonly ObserverOutput[]): void {
  for (const o of out) {
    const v = verdictState(o);
    if (!v) continue;
    verdicts += 1;
    if (!NEXT.get(v.rule)?.includes(v.state)) mismatched.add(`${v.rule} → ${v.state}`);
  }
}
type Observe = (this: PauseObserver, entry: RecordingEntry) => ObserverOutput[];
type Finish = (this: PauseObserver, at: string) => ObserverOutput[];
const proto = PauseObserver.prototype;
const observe = Object.getOwnPropertyDescriptor(proto, 'observe')?.value as Observe;
const finish = Object.getOwnPropertyDescriptor(proto, 'finish')?.value as Finish;
proto.observe = function (this: PauseObserver, entry: RecordingEntry) {
  const out = observe.call(this, entry);
  for (const f of this.firedRules) fired.add(f.rule);
  checkNext(out);
  return out;
};
proto.finish = function (this: PauseObserver, at: string) {
  const out = finish.call(this, at);
  for (const f of this.firedRules) fired.add(f.rule);
  checkNext(out);
  return out;
};

describe('rule coverage', () => {
  it('fires every rule of the observer tables in some test', () => {
    const unfired = OBSERVER_RULES.filter((r) => !fired.has(r.id)).map((r) => `${r.id} (${r.on})`);
    expect(unfired, 'rules no test fires').toEqual([]);
  });

  it('sees every verdict leave its subject in a state its row names (docs/design.md §14.8)', () => {
    expect(verdicts).toBeGreaterThan(100);
    expect([...mismatched], 'verdicts their row does not name').toEqual([]);
  });
});
