/**
 * @module protocol/methods
 * JSON-RPC method names: A2A v1.0 core (spec §5.3, PascalCase), the pause extension, and the
 * `/control` channel of deterministic peers (docs/design.md §4).
 */

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
