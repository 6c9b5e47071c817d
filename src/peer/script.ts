/**
 * @module peer/script
 * The scripted agent's language (docs/design.md §4): the first text part of the user message is a
 * whitespace-separated list of directives, run in order.
 *
 * - `work:N` — N work steps, one artifactUpdate each (N from 0 to 10000);
 * - `await:EVENT[:MINUTES[:fail|resume]]` — self-park (PAUSE_INITIATOR_AGENT) until FireEvent
 *   `EVENT`; with MINUTES a timeout whose action defaults to `fail`. EVENT holds no `:`;
 * - `sleep-until:TIME` — self-park until the RFC 3339 instant TIME (`conditions.trigger.at`);
 *   a TIME that is not in the future parks nothing;
 * - `input` — TASK_STATE_INPUT_REQUIRED until the next message on the task (`message.taskId`);
 * - `auth` — TASK_STATE_AUTH_REQUIRED (credentials needed) until the next message on the task;
 * - `fail` — TASK_STATE_FAILED.
 *
 * The end of the script completes the task. Text that is not a script at all (any word that is
 * not one of the directives above) means `work:3`; a directive with malformed arguments is a
 * -32602 naming the part and the directive.
 */
import { type FieldIssue, describeValue } from '../protocol/read.js';
import type { OnTimeout, Part, TaskState } from '../protocol/types.js';

/** The states a task waits in until the next message on it (A2A v1.0 interrupted states). */
export type InterruptState = Extract<TaskState, 'TASK_STATE_INPUT_REQUIRED' | 'TASK_STATE_AUTH_REQUIRED'>;

/** The directive words that interrupt the task until the next message, and the state each holds. */
const INTERRUPT_WORDS: ReadonlyMap<string, InterruptState> = new Map<string, InterruptState>([
  ['input', 'TASK_STATE_INPUT_REQUIRED'],
  ['auth', 'TASK_STATE_AUTH_REQUIRED'],
]);

export type Directive =
  | { kind: 'work'; steps: number }
  | { kind: 'await'; event: string; timeout?: { durationMinutes: number; onTimeout: OnTimeout } }
  | { kind: 'sleep-until'; at: string; atMs: number }
  | { kind: 'interrupt'; state: InterruptState }
  | { kind: 'fail' };

export type ScriptResult = { ok: true; directives: Directive[] } | { ok: false; issue: FieldIssue };

/** The script used for any text that is not a script. */
export const DEFAULT_SCRIPT: readonly Directive[] = [{ kind: 'work', steps: 3 }];

const MAX_STEPS = 10_000;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const DIRECTIVE_WORD = /^(work|await|sleep-until):/;

function looksLikeDirective(word: string): boolean {
  return INTERRUPT_WORDS.has(word) || word === 'fail' || DIRECTIVE_WORD.test(word);
}

/** Parses one directive word; a string is the expectation it failed. */
function parseDirective(word: string): Directive | string {
  const interrupt = INTERRUPT_WORDS.get(word);
  if (interrupt !== undefined) return { kind: 'interrupt', state: interrupt };
  if (word === 'fail') return { kind: 'fail' };
  const colon = word.indexOf(':');
  const name = word.slice(0, colon);
  const rest = word.slice(colon + 1);
  switch (name) {
    case 'work': {
      if (!/^\d+$/.test(rest) || Number(rest) > MAX_STEPS) return `work:N with N a step count from 0 to ${MAX_STEPS}`;
      return { kind: 'work', steps: Number(rest) };
    }
    case 'await': {
      const [event, minutes, action, ...extra] = rest.split(':');
      if (!event) return 'await:EVENT[:MINUTES[:fail|resume]] with a non-empty EVENT';
      if (extra.length > 0) return 'await:EVENT[:MINUTES[:fail|resume]] (EVENT holds no ":")';
      if (minutes === undefined) return { kind: 'await', event };
      if (!/^\d+$/.test(minutes) || Number(minutes) < 1) return 'await:EVENT:MINUTES with MINUTES a positive integer';
      if (action !== undefined && action !== 'fail' && action !== 'resume') {
        return 'await:EVENT:MINUTES:ACTION with ACTION "fail" or "resume"';
      }
      return { kind: 'await', event, timeout: { durationMinutes: Number(minutes), onTimeout: action ?? 'fail' } };
    }
    case 'sleep-until': {
      const atMs = Date.parse(rest);
      if (!RFC3339.test(rest) || Number.isNaN(atMs))
        return 'sleep-until:TIME with TIME an RFC 3339 timestamp such as 2026-01-01T09:00:00Z';
      return { kind: 'sleep-until', at: rest, atMs };
    }
    default:
      return 'a directive';
  }
}

/**
 * The script carried by a message's parts. `field` names the parts (e.g. `params.message.parts`)
 * so that a malformed directive's issue names `params.message.parts[i].text`.
 */
export function parseScript(parts: readonly Part[], field: string): ScriptResult {
  const index = parts.findIndex((p) => typeof p.text === 'string');
  const text = index < 0 ? undefined : parts[index]?.text;
  if (text === undefined) return { ok: true, directives: [...DEFAULT_SCRIPT] };
  const words = text.split(/\s+/).filter((w) => w.length > 0);
  if (words.length === 0 || !words.every(looksLikeDirective)) return { ok: true, directives: [...DEFAULT_SCRIPT] };
  const directives: Directive[] = [];
  for (const word of words) {
    const parsed = parseDirective(word);
    if (typeof parsed === 'string') {
      return {
        ok: false,
        issue: { field: `${field}[${index}].text`, expected: parsed, got: `directive ${describeValue(word)}` },
      };
    }
    directives.push(parsed);
  }
  return { ok: true, directives };
}
