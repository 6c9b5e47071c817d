/**
 * @module mock/pause-fallback
 * The answer the RFC prescribes to a pause call the recording holds no case for (docs/design.md
 * §13), from what the client has been shown of the task: a ResumeTask on a task that is not PAUSED
 * (a second resume of a consumed token, a resume after the end) is -32010, one with a token that is
 * not the current pause's is -32011, a PauseTask on a task in a terminal or interrupted state is
 * -32010 — the checks and order of the reference peer (design §3). Anything else the mock cannot
 * invent, so it is left to the no-recorded-exchange answer. Pure: the error is named, the engine
 * sends it in the request's binding (a JSON-RPC error, or an HTTP+JSON status and body, design §15).
 */
import type { JsonRpcErrorName } from '../protocol/errors.js';
import type { MockTaskView } from './mock-script.js';

/** An error of the one table (src/protocol/errors.ts), by name, with its message and ErrorInfo metadata. */
export interface PauseRefusal {
  name: Extract<JsonRpcErrorName, 'INVALID_TASK_STATE' | 'RESUME_TOKEN_MISMATCH'>;
  message: string;
  metadata: Record<string, string>;
}

const NOT_PAUSABLE: ReadonlySet<string> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/**
 * The RFC's error for `method` on a task the client was shown as `view`, or undefined when the
 * call would succeed (and so needs a recorded answer). `token` is the client's resume token in
 * recorded form; `taskId` is named in the message and the ErrorInfo.
 */
export function pauseFallback(
  method: string,
  taskId: string,
  view: MockTaskView,
  token: string | undefined,
): PauseRefusal | undefined {
  const metadata = { taskId };
  if (method === 'ResumeTask') {
    if (view.state !== 'TASK_STATE_PAUSED')
      return {
        name: 'INVALID_TASK_STATE',
        message: `task ${taskId} is ${view.state}, not PAUSED: nothing to resume`,
        metadata,
      };
    if (token !== view.resumeToken)
      return {
        name: 'RESUME_TOKEN_MISMATCH',
        message: `params.resumeToken does not match the current pause of task ${taskId} (tokens are consume-once)`,
        metadata,
      };
    return undefined;
  }
  if (method === 'PauseTask' && NOT_PAUSABLE.has(view.state))
    return { name: 'INVALID_TASK_STATE', message: `task ${taskId} is ${view.state}: it cannot be paused`, metadata };
  return undefined;
}
