/**
 * @module observe/span-conventions
 * The OTel A2A and GenAI semantic-convention attributes of the pause and interruption spans
 * (docs/design.md §7), added to the span events an entry caused, in one place: `a2a.task.state` (the
 * state the entry showed the task in), `a2a.method.name` (the A2A method of the entry that opened
 * the span), `gen_ai.conversation.id` (the task's context) and `gen_ai.agent.name` (from the agent
 * card the recording holds). What a span event already says is kept; what is not known is left out.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import {
  ATTR_CONTEXT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_METHOD_NAME,
  ATTR_TASK_ID,
  ATTR_TASK_STATE,
} from '../tracing/attributes.js';
import type { SpanAttributes, SpanEvent } from '../tracing/span-events.js';
import type { ReadItem } from './fact.js';
import type { ObserverOutput } from './suspension.js';

/** What the conventions read of the entry observed (none of it at the end of a recording). */
export interface EntryConventions {
  /** The A2A method of the entry's exchange, when it is an A2A call. */
  readonly method: string | undefined;
  /** The state the entry showed each task in, the last one when it showed several. */
  readonly states: ReadonlyMap<string, string>;
  /** The context of a task the observer follows, null when unknown. */
  contextOf(taskId: string): string | null;
  /** The agent's name, from the recording's agent card. */
  readonly agentName: string | undefined;
}

/** The state each task was shown in by the facts of one entry, the last one when several. */
export function statesShownIn(items: readonly ReadItem[]): Map<string, string> {
  const states = new Map<string, string>();
  for (const item of items) {
    if (item.type === 'StateSeen') states.set(item.task.taskId, item.state);
    else if (item.type === 'PausedSeen') states.set(item.task.taskId, 'TASK_STATE_PAUSED');
    // A resume is announced on a WORKING status only (observe/facts).
    else if (item.type === 'ResumeAnnounced') states.set(item.task.taskId, 'TASK_STATE_WORKING');
    else if (item.type === 'CancelAnswered') states.set(item.taskId, item.state);
  }
  return states;
}

/** The agent card's `name`, when the card is an object with a non-empty one. */
export function agentNameOf(card: JsonValue | undefined): string | undefined {
  if (card === null || typeof card !== 'object' || Array.isArray(card)) return undefined;
  const name = card.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * The span events of `out` with the convention attributes added (docs/design.md §7): every span of
 * a pause or an interruption gets the task's state when the entry showed it; the events that open
 * a span also get the method, the conversation and the agent. Task spans are left as they are.
 */
export function withConventions(out: ObserverOutput[], entry: EntryConventions): void {
  for (let n = 0; n < out.length; n++) {
    const o = out[n];
    if (o?.type !== 'span') continue;
    const added = conventionAttributes(o.event, entry);
    if (added === undefined) continue;
    // The event's own attributes after the added ones, a value it states kept: `{...added, ...own}`
    // into the object just made, not a copy of it.
    out[n] = { type: 'span', event: { ...o.event, attributes: Object.assign(added, o.event.attributes) } };
  }
}

function conventionAttributes(event: SpanEvent, entry: EntryConventions): SpanAttributes | undefined {
  const opens = opensSpan(event);
  if (opens === undefined) return undefined;
  const taskId = 'taskId' in event ? event.taskId : event.attributes[ATTR_TASK_ID];
  const added: SpanAttributes = {};
  const state = typeof taskId === 'string' ? entry.states.get(taskId) : undefined;
  if (state !== undefined) added[ATTR_TASK_STATE] = state;
  if (!opens) return added;
  if (entry.method !== undefined) added[ATTR_METHOD_NAME] = entry.method;
  if (entry.agentName !== undefined) added[ATTR_GEN_AI_AGENT_NAME] = entry.agentName;
  const contextId = typeof taskId === 'string' ? entry.contextOf(taskId) : null;
  if (contextId !== null) {
    added[ATTR_CONTEXT_ID] = contextId;
    added[ATTR_GEN_AI_CONVERSATION_ID] = contextId;
  }
  return added;
}

/** True for an event that opens a span, false for one that ends it, undefined for the Task span's. */
function opensSpan(event: SpanEvent): boolean | undefined {
  switch (event.type) {
    case 'suspension.start':
    case 'resume.start':
    case 'interruption.start':
    case 'continuation.start':
    case 'lost':
    case 'interruption.lost':
      return true;
    case 'suspension.end':
    case 'resume.end':
    case 'interruption.end':
    case 'continuation.end':
      return false;
    case 'task.start':
    case 'task.end':
      return undefined;
    default: {
      const never: never = event;
      return never;
    }
  }
}
