/**
 * @module protocol/methods
 * JSON-RPC method names: A2A v1.0 core (spec §5.3, PascalCase), the pause extension, and the
 * `/control` channel of deterministic peers (docs/design.md §4); and the A2A v0.3 names of the
 * methods and task states.
 */
import type { TaskState } from './types.js';

export const CORE_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const;
export type CoreMethod = (typeof CORE_METHODS)[number];

export const PAUSE_METHODS = ['PauseTask', 'ResumeTask', 'AwaitTaskResumption'] as const;
export type PauseMethod = (typeof PAUSE_METHODS)[number];

export const CONTROL_METHODS = ['AdvanceClock', 'FireEvent', 'GetClock'] as const;
export type ControlMethod = (typeof CONTROL_METHODS)[number];

/** Methods whose response is an SSE stream of `StreamResponse`s. */
export const STREAMING_METHODS: ReadonlySet<string> = new Set(['SendStreamingMessage', 'SubscribeToTask']);

/** The path of the control channel. */
export const CONTROL_PATH = '/control';

/**
 * A2A v0.3 JSON-RPC method names and the v1.0 methods they are (the SDKs' `compat/v0_3` names them
 * alike), with this project's v0.3 names for the pause extension (`tasks/pause`, `tasks/resume`,
 * `tasks/awaitResumption`; docs/design.md §4). One table for the peer, the mock and the observer.
 */
export const V03_METHODS: { readonly [name: string]: CoreMethod | PauseMethod } = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
  'tasks/pause': 'PauseTask',
  'tasks/resume': 'ResumeTask',
  'tasks/awaitResumption': 'AwaitTaskResumption',
};

/**
 * A2A v0.3 JSON-RPC task states and the v1.0 states they are: lowercase kebab names, `unknown` for
 * UNSPECIFIED, and `paused`, this project's v0.3 name for the pause extension's state
 * (docs/design.md §4). One table for the peer, the mock and the observer.
 */
const V03_STATES: { readonly [state: string]: TaskState } = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  paused: 'TASK_STATE_PAUSED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

const V03_NAMES: ReadonlyMap<string, string> = new Map(Object.entries(V03_STATES).map(([v03, v1]) => [v1, v03]));

/** A v0.3 state's v1.0 name (`input-required` is `TASK_STATE_INPUT_REQUIRED`); any other text stays. */
export function stateFromV03(state: string): string {
  return Object.hasOwn(V03_STATES, state) ? (V03_STATES[state] as TaskState) : state;
}

/** A v1.0 state's v0.3 name (`TASK_STATE_INPUT_REQUIRED` is `input-required`); any other text stays. */
export function stateToV03(state: string): string {
  return V03_NAMES.get(state) ?? state;
}
