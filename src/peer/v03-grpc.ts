/**
 * @module peer/v03-grpc
 * A2A v0.3 over gRPC at the reference peer's edge (docs/design.md §4 "Two dialects", §16): a call
 * of v0.3's service (package `a2a.v1`) is read into the v1.0 call the {@link RequestHandler}
 * knows, and its v1.0 result or stream event goes out as ProtoJSON of the v0.3 proto, by the same
 * conversion as v0.3 HTTP+JSON (src/peer/v03-proto.ts: `content` parts, `data.data`,
 * `TASK_STATE_CANCELLED`, `final` on the status update that ends the stream). What is gRPC's own
 * is here: tasks named by resource name (`name: "tasks/{id}"`, read as the observer reads them,
 * src/observe/v03-dialect.ts), push configs as named resources, and only what the v0.3 messages
 * can encode. Pure.
 *
 * v0.3's proto has no pause extension: this project's (proto/a2a/v1/pause.proto, docs/design.md
 * §4) serves PauseTask, ResumeTask and AwaitTaskResumption as `a2a.v1.pause.A2APauseService`, with
 * the RFC's params and results, and a task's answers go out in its superset messages:
 * TASK_STATE_PAUSED (9) and `TaskStatus.pause` (field 4), which a stock v0.3 client reads as a
 * state it has no name for and skips.
 */
import type { JsonObject, JsonValue } from '../canonical/canonical-json.js';
import { v03GrpcParams } from '../observe/v03-dialect.js';
import type { StreamResponse } from '../protocol/types.js';
import { eventToV03Proto, paramsFromV03Proto, resultToV03Proto } from './v03-proto.js';

type Obj = { [key: string]: JsonValue };

function asObj(value: unknown): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
}

/** The v1.0 params of a v0.3 gRPC call to `method` (its v1.0 name), from the request's ProtoJSON. */
export function grpcParamsFromV03(method: string, params: JsonValue): unknown {
  return method === 'SendMessage' || method === 'SendStreamingMessage'
    ? paramsFromV03Proto(method, params)
    : v03GrpcParams(method, params);
}

/** A v1.0 push config as v0.3's named resource `tasks/{taskId}/pushNotificationConfigs/{id}`. */
function pushConfigToV03(value: JsonValue): JsonValue {
  const c = asObj(value);
  if (c === undefined) return value;
  const { taskId, tenant: _tenant, ...config } = c;
  const id = typeof config.id === 'string' ? config.id : '';
  const task = typeof taskId === 'string' ? taskId : '';
  return { name: `tasks/${task}/pushNotificationConfigs/${id}`, pushNotificationConfig: config };
}

/**
 * A v1.0 StreamResponse as v0.3's (`final` on the status update that ends the stream), the superset
 * StreamResponse carrying a paused task's state and pause.
 */
export function grpcEventToV03(event: StreamResponse): JsonObject {
  return eventToV03Proto(event);
}

/**
 * A v1.0 result of `method` as ProtoJSON of the v0.3 method's response message (a task's in the
 * superset Task, its pause kept; the pause methods' results as the RFC's).
 */
export function grpcResultToV03(method: string, result: unknown): unknown {
  const r = asObj(resultToV03Proto(method, result));
  if (r === undefined) return result;
  switch (method) {
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return pushConfigToV03(r);
    case 'ListTaskPushNotificationConfigs':
      return { ...r, configs: Array.isArray(r.configs) ? r.configs.map(pushConfigToV03) : [] };
    default:
      return r;
  }
}
