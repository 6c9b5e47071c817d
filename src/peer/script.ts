/**
 * @module peer/script
 * The scripted agent's language (docs/design.md §4): the first text part of the user message is a
 * whitespace-separated list of directives, run in order. Every count, duration and instant has
 * its range in the one table of src/protocol/bounds.ts.
 *
 * - `work:N` — N work steps (N from 0 to 10,000), one artifactUpdate at the end of each;
 * - `tool:N` — one tool call that takes N steps (N from 1 to 10,000) and yields one
 *   artifactUpdate when its last step ends (what the pause modes tell apart, see task-engine);
 * - `await:EVENT[:MINUTES[:fail|resume]]` — self-park (PAUSE_INITIATOR_AGENT) until FireEvent
 *   `EVENT`; with MINUTES (1 to 525,600, a year) a timeout whose action defaults to `fail`.
 *   EVENT holds no `:`;
 * - `sleep-until:TIME` — self-park until the RFC 3339 instant TIME (`conditions.trigger.at`), a
 *   real instant from year 0000 up to one year before the end of 9999 (what the virtual clock can
 *   reach); a TIME that is not in the future parks nothing;
 * - `input` — TASK_STATE_INPUT_REQUIRED until the next message on the task (`message.taskId`);
 * - `auth` — TASK_STATE_AUTH_REQUIRED (credentials needed) until the next message on the task;
 * - `ask:PROMPT` — TASK_STATE_INPUT_REQUIRED with PROMPT (`_` read as a space) as the status
 *   message's text, until the next message on the task, whose parts are the step's input (they
 *   join the history); with `peer --bypass-ask-after MS` the step moves on with no input MS
 *   clock ms later (a gate walked past);
 * - `auth:PROMPT` — TASK_STATE_AUTH_REQUIRED with PROMPT, continued by the next message on the
 *   task or out of band: FireEvent `credentials` with `payload.taskId` naming the task;
 * - `fail` — TASK_STATE_FAILED.
 *
 * At most 1,000 directives. The end of the script completes the task. Text that is not a script
 * at all (any word that is not one of the directives above) means `work:3`; a directive with
 * malformed or out-of-range arguments is a -32602 naming the part, the directive and its
 * position (`directive 2 of 3`), so SendMessage refuses it before any task exists.
 */
import { BOUNDS, MAX_CLOCK_MS, WAKE_UP_EXPECTED, describeBound, instantOf, withinBound } from '../protocol/bounds.js';
import { type FieldIssue, describeValue } from '../protocol/read.js';
import type { Artifact, OnTimeout, Part, TaskState } from '../protocol/types.js';

/** The states a task waits in until the next message on it (A2A v1.0 interrupted states). */
export type InterruptState = Extract<TaskState, 'TASK_STATE_INPUT_REQUIRED' | 'TASK_STATE_AUTH_REQUIRED'>;

/** The directive words that interrupt the task until the next message, and the state each holds. */
const INTERRUPT_WORDS: ReadonlyMap<string, InterruptState> = new Map<string, InterruptState>([
  ['input', 'TASK_STATE_INPUT_REQUIRED'],
  ['auth', 'TASK_STATE_AUTH_REQUIRED'],
]);

export type Directive =
  | { kind: 'work'; steps: number }
  | { kind: 'tool'; steps: number }
  | { kind: 'await'; event: string; timeout?: { durationMinutes: number; onTimeout: OnTimeout } }
  | { kind: 'sleep-until'; at: string; atMs: number }
  | { kind: 'interrupt'; state: InterruptState; prompt?: string }
  | { kind: 'fail' };

export type ScriptResult = { ok: true; directives: Directive[] } | { ok: false; issue: FieldIssue };

/** The script used for any text that is not a script. */
export const DEFAULT_SCRIPT: readonly Directive[] = [{ kind: 'work', steps: 3 }];

const DIRECTIVE_WORD = /^(work|tool|await|sleep-until|ask|auth):/;

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
    case 'work':
    case 'tool': {
      const bound = name === 'work' ? BOUNDS.workSteps : BOUNDS.toolSteps;
      if (!/^\d+$/.test(rest) || !withinBound(Number(rest), bound)) return `${name}:N with N ${describeBound(bound)}`;
      return { kind: name, steps: Number(rest) };
    }
    case 'await': {
      const [event, minutes, action, ...extra] = rest.split(':');
      if (!event) return 'await:EVENT[:MINUTES[:fail|resume]] with a non-empty EVENT';
      if (extra.length > 0) return 'await:EVENT[:MINUTES[:fail|resume]] (EVENT holds no ":")';
      if (minutes === undefined) return { kind: 'await', event };
      if (!/^\d+$/.test(minutes) || !withinBound(Number(minutes), BOUNDS.durationMinutes)) {
        return `await:EVENT:MINUTES with MINUTES ${describeBound(BOUNDS.durationMinutes)}`;
      }
      if (action !== undefined && action !== 'fail' && action !== 'resume') {
        return 'await:EVENT:MINUTES:ACTION with ACTION "fail" or "resume"';
      }
      return { kind: 'await', event, timeout: { durationMinutes: Number(minutes), onTimeout: action ?? 'fail' } };
    }
    case 'ask':
    case 'auth': {
      if (rest === '') return `${name}:PROMPT with a non-empty PROMPT`;
      const state = name === 'ask' ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_AUTH_REQUIRED';
      return { kind: 'interrupt', state, prompt: rest.replaceAll('_', ' ') };
    }
    case 'sleep-until': {
      const instant = instantOf(rest, MAX_CLOCK_MS);
      if (!instant.ok) return `sleep-until:TIME with TIME ${WAKE_UP_EXPECTED}; this one is ${instant.why}`;
      return { kind: 'sleep-until', at: rest, atMs: instant.ms };
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
  const at = `${field}[${index}].text`;
  if (words.length > BOUNDS.scriptDirectives.max) {
    return {
      ok: false,
      issue: {
        field: at,
        expected: `a script of at most ${BOUNDS.scriptDirectives.max} directives`,
        got: `${words.length} directives`,
      },
    };
  }
  const directives: Directive[] = [];
  for (const [i, word] of words.entries()) {
    const parsed = parseDirective(word);
    if (typeof parsed === 'string') {
      return {
        ok: false,
        issue: { field: at, expected: parsed, got: `directive ${i + 1} of ${words.length}, ${describeValue(word)}` },
      };
    }
    directives.push(parsed);
  }
  return { ok: true, directives };
}

/**
 * The artifact step `k` of the `work` or `tool` directive at index `pc` yields: one per work
 * step, one at the last step of a tool call, none otherwise.
 */
export function stepArtifact(
  d: Extract<Directive, { kind: 'work' | 'tool' }>,
  pc: number,
  k: number,
): Artifact | undefined {
  if (d.kind === 'work') {
    return {
      artifactId: `artifact-${pc + 1}-${k}`,
      name: `step ${k} of ${d.steps}`,
      parts: [{ text: `directive ${pc + 1} (work:${d.steps}): step ${k} done` }],
    };
  }
  if (k !== d.steps) return undefined;
  return {
    artifactId: `artifact-${pc + 1}-tool`,
    name: `tool call of ${d.steps} steps`,
    parts: [{ text: `directive ${pc + 1} (tool:${d.steps}): tool call complete` }],
  };
}
