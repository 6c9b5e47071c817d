/**
 * Rule coverage (docs/design.md §14.8), as Temporal's `transition_coverage`: the observer's test
 * files run here again, every rule the observer fires while they run is recorded, and the last
 * test fails naming each row of the tables that no test fired. A row added without a test that
 * fires it fails here. (observer-scale is left out: 20,000 pairs of the rows the others fire.)
 */
import { describe, expect, it } from 'vitest';
import { PauseObserver } from '../../src/observe/pause-observer.js';
import { OBSERVER_RULES } from '../../src/observe/rules/tables.js';
import type { ObserverOutput } from '../../src/observe/suspension.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import './call-view.test.js';
import './interruption-rules.test.js';
import './client-styles.test.js';
import './lost-rules.test.js';
import './pause-observer.test.js';
import './peer-traffic.test.js';
import './pipeline.test.js';
import './rule-rows.test.js';

const fired = new Set<string>();
type Observe = (this: PauseObserver, entry: RecordingEntry) => ObserverOutput[];
type Finish = (this: PauseObserver, at: string) => ObserverOutput[];
const proto = PauseObserver.prototype;
const observe = Object.getOwnPropertyDescriptor(proto, 'observe')?.value as Observe;
const finish = Object.getOwnPropertyDescriptor(proto, 'finish')?.value as Finish;
proto.observe = function (this: PauseObserver, entry: RecordingEntry) {
  const out = observe.call(this, entry);
  for (const f of this.firedRules) fired.add(f.rule);
  return out;
};
proto.finish = function (this: PauseObserver, at: string) {
  const out = finish.call(this, at);
  for (const f of this.firedRules) fired.add(f.rule);
  return out;
};

describe('rule coverage', () => {
  it('fires every rule of the observer tables in some test', () => {
    const unfired = OBSERVER_RULES.filter((r) => !fired.has(r.id)).map((r) => `${r.id} (${r.on})`);
    expect(unfired, 'rules no test fires').toEqual([]);
  });
});
