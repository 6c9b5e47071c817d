/**
 * @module a2a-replay/protocol
 * A2A v1.0 and the paused-state extension as data: types, constants, the error table and the
 * parsers that turn `unknown` JSON into typed messages at the edge (docs/design.md §3).
 */
export {
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  AGENT_CARD_PATH,
  PAUSE_EXTENSION_URI,
  type AgentCard,
  type Artifact,
  type Message,
  type Part,
  type Task,
  type TaskState,
  type TaskStatus,
  type TaskPause,
  type StreamResponse,
  type PauseMode,
  type PauseInitiator,
  type PauseTaskParams,
  type PauseTaskResult,
  type ResumeTaskParams,
  type ResumeTaskResult,
  type AwaitTaskResumptionParams,
  type ResumeConditions,
  type ResumeCause,
  TASK_STATES,
  TERMINAL_STATES,
  PAUSE_MODES,
} from '../protocol/types.js';
export { PAUSE_METHODS, CORE_METHODS } from '../protocol/methods.js';
export { JSON_RPC_ERRORS, type JsonRpcErrorCode, type ErrorInfo } from '../protocol/errors.js';
export { type JsonRpcRequest, type JsonRpcResponse, parseJsonRpcMessage } from '../protocol/json-rpc.js';
export { parseMethodCall } from '../protocol/params.js';
export { parseTask, parseStreamResponse } from '../protocol/parse-objects.js';
export { checkTransition, isTerminal } from '../protocol/state-machine.js';
export type { SendMessageParams } from '../protocol/types.js';
export { type RestRequest, readRestError, restRequestOf } from '../protocol/rest-binding.js';
