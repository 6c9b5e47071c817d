/**
 * @module observe/rules/tables
 * Every rule table of the observer (docs/design.md §14.8), in one list: the design's rule list, the
 * coverage test and `lost --explain` read the ids from here.
 */
import { RESUME_CALL_RULES, RESUMING_RULES } from './call-rules.js';
import { INTERRUPTED_RULES, NOT_INTERRUPTED_RULES } from './interruption-rules.js';
import { OPEN_RULES } from './open-rules.js';
import { KEPT_ASIDE_RULES, PENDING_RULES } from './pending-rules.js';
import type { NextState, RuleInputType } from './rule.js';
import { TASK_RULES } from './task-rules.js';

/** A rule as listed: its id, its state, what it fires on, the state it leaves its subject in, and why. */
export interface RuleListing {
  readonly id: string;
  readonly state: string;
  readonly on: RuleInputType;
  readonly next: readonly NextState[];
  readonly reason: string;
}

const TABLES = [
  TASK_RULES,
  KEPT_ASIDE_RULES,
  PENDING_RULES,
  OPEN_RULES,
  RESUMING_RULES,
  RESUME_CALL_RULES,
  NOT_INTERRUPTED_RULES,
  INTERRUPTED_RULES,
] as const;

/** Every rule, table by table, each table in precedence order. */
export const OBSERVER_RULES: readonly RuleListing[] = TABLES.flatMap((table) =>
  table.rows.map((row) => ({ id: row.id, state: table.state, on: row.on, next: row.next, reason: row.reason })),
);
