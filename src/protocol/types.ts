/**
 * @module protocol/types
 * A2A v1.0 ProtoJSON shapes (specification/a2a.proto, package lf.a2a.v1) that this project
 * reads and writes, plus the pause extension of the paused-state RFC. Wire names exactly as
 * ProtoJSON renders them: lowerCamelCase fields, SCREAMING_SNAKE_CASE enum strings.
 */
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';

/** a2a.proto `TaskState` plus the RFC's `TASK_STATE_PAUSED = 9`. */
export const TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_PAUSED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** Terminal states (a2a.proto comments): no transition leaves them. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

export const ROLES = ['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT'] as const;
export type Role = (typeof ROLES)[number];

/** a2a.proto `Part`: exactly one of `text`, `raw` (base64), `url`, `data`. */
export interface Part {
  text?: string;
  raw?: string;
  url?: string;
  data?: JsonValue;
  metadata?: JsonObject;
  filename?: string;
  mediaType?: string;
}

export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

// ---- the pause extension (RFC "Proposed wire format") ----

export const PAUSE_INITIATORS = [
  'PAUSE_INITIATOR_UNSPECIFIED',
  'PAUSE_INITIATOR_CLIENT',
  'PAUSE_INITIATOR_AGENT',
] as const;
export type PauseInitiator = (typeof PAUSE_INITIATORS)[number];

export const RESUME_MODES = [
  'RESUME_MODE_UNSPECIFIED',
  'RESUME_MODE_CLIENT_MESSAGE',
  'RESUME_MODE_EXTERNAL_EVENT',
  'RESUME_MODE_TIMEOUT',
] as const;
export type ResumeMode = (typeof RESUME_MODES)[number];

/** PauseTask `mode`; `finish_step` is the default (RFC open question 3, docs/design.md §3). */
export const PAUSE_MODES = ['interrupt_immediate', 'finish_step', 'wait_for_completion'] as const;
export type PauseMode = (typeof PAUSE_MODES)[number];
export const DEFAULT_PAUSE_MODE: PauseMode = 'finish_step';

/** Resume event `metadata.cause`, verbatim from the ACP sibling RFC. */
export const RESUME_CAUSES = ['explicit_resume', 'condition_fired', 'timeout', 'external_event'] as const;
export type ResumeCause = (typeof RESUME_CAUSES)[number];

export const ON_TIMEOUT_ACTIONS = ['fail', 'resume'] as const;
export type OnTimeout = (typeof ON_TIMEOUT_ACTIONS)[number];

/** RFC `conditions`: at least one key (docs/design.md §3). */
export interface ResumeConditions {
  onEvent?: string;
  trigger?: { at: string };
  timeout?: { durationMinutes: number; onTimeout: OnTimeout };
}

/** RFC `TaskPause`, attached as `TaskStatus.pause`. */
export interface TaskPause {
  initiatedBy: PauseInitiator;
  reason?: string;
  pausedAt: string;
  pausedUntil?: string;
  resumeToken: string;
  resumable: boolean;
  conditions?: ResumeConditions;
  resumeMode?: ResumeMode;
}

/** a2a.proto `TaskStatus` plus the RFC's `pause`. */
export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp?: string;
  pause?: TaskPause;
}

export interface Task {
  id: string;
  contextId?: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: JsonObject;
}

/** RFC resume event `metadata` on the WORKING status update that leaves PAUSED. */
export interface ResumeEventMetadata {
  previousState: 'TASK_STATE_PAUSED';
  cause: ResumeCause;
  hadResumeInput: boolean;
  continueTranscript: boolean;
  resumedAt: string;
}

export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: JsonObject;
}

export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** a2a.proto `StreamResponse` oneof, discriminated on the wire by the member present. */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

/** The same oneof as a tagged union, for exhaustive switches inside the project. */
export type StreamEvent =
  | { kind: 'task'; task: Task }
  | { kind: 'message'; message: Message }
  | { kind: 'statusUpdate'; statusUpdate: TaskStatusUpdateEvent }
  | { kind: 'artifactUpdate'; artifactUpdate: TaskArtifactUpdateEvent };

// ---- requests ----

export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  historyLength?: number;
  returnImmediately?: boolean;
  taskPushNotificationConfig?: JsonObject;
}

export interface SendMessageParams {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration;
  metadata?: JsonObject;
}

/** `SendMessageResponse` oneof. */
export type SendMessageResult = { task: Task } | { message: Message };

export interface GetTaskParams {
  tenant?: string;
  id: string;
  historyLength?: number;
}

export interface ListTasksParams {
  tenant?: string;
  contextId?: string;
  status?: TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

export interface ListTasksResult {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export interface CancelTaskParams {
  tenant?: string;
  id: string;
  metadata?: JsonObject;
}

export interface SubscribeToTaskParams {
  tenant?: string;
  id: string;
}

/** RFC `PauseTask` params. */
export interface PauseTaskParams {
  taskId: string;
  reason?: string;
  mode: PauseMode;
  metadata?: JsonObject;
}

/** RFC `AwaitTaskResumption` params: the agent-initiated dual of PauseTask. */
export interface AwaitTaskResumptionParams {
  taskId: string;
  reason?: string;
  conditions: ResumeConditions;
  summary?: string;
  metadata?: JsonObject;
}

/** RFC `ResumeTask` params; `continueTranscript` defaults to true (RFC open question 5). */
export interface ResumeTaskParams {
  taskId: string;
  resumeToken: string;
  input?: JsonValue;
  continueTranscript: boolean;
  metadata?: JsonObject;
}

/** Result of PauseTask and AwaitTaskResumption (not a Task). */
export interface PauseTaskResult {
  taskId: string;
  state: 'TASK_STATE_PAUSED';
  pause: TaskPause;
}

/** Result of ResumeTask (docs/design.md §3). */
export interface ResumeTaskResult {
  taskId: string;
  state: 'TASK_STATE_WORKING';
  previousState: 'TASK_STATE_PAUSED';
  cause: ResumeCause;
  resumedAt: string;
}

// ---- agent card ----

export interface AgentInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
}

export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
  /** RFC flat capability fields. */
  supportsPause?: boolean;
  supportsAwaitResumption?: boolean;
  resumeCauses?: ResumeCause[];
}

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
}

export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: { url: string; organization: string };
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
}

/** The URI under which the pause extension is declared in `capabilities.extensions`. */
export const PAUSE_EXTENSION_URI = 'https://a2a-replay.dev/extensions/paused-state/v1';
export const A2A_PROTOCOL_VERSION = '1.0';
export const A2A_VERSION_HEADER = 'A2A-Version';
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
