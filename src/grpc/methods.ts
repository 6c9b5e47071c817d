/**
 * @module grpc/methods
 * The gRPC methods of A2A and of the pause extension (docs/design.md §16): for each method its
 * service, the request and response messages of the generated codec (src/grpc/gen), and whether
 * the server streams. The peer serves from this table; the recorder, the mock and the replayer
 * decode and encode recorded calls with it, so every part reads a call the same way. A2A v0.3's
 * service (package `a2a.v1`, docs/design.md §14.10) has its own table, with its own messages.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import {
  AgentCardSchema,
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksRequestSchema,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
} from './gen/lf/a2a/v1/a2a_pb.js';
import {
  AwaitTaskResumptionRequestSchema,
  AwaitTaskResumptionResponseSchema,
  ListTasksResponseSchema,
  PauseTaskRequestSchema,
  PauseTaskResponseSchema,
  ResumeTaskRequestSchema,
  ResumeTaskResponseSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
} from './gen/lf/a2a/v1/pause_pb.js';
import * as v03 from './gen/a2a/v1/a2a_pb.js';
import * as v03Pause from './gen/a2a/v1/pause_pb.js';
import type { CoreMethod, PauseMethod } from '../protocol/methods.js';
import {
  A2A_SERVICE,
  type A2A_V03_SERVICE,
  type A2A_V03_PAUSE_SERVICE,
  type GrpcVersion,
  PAUSE_SERVICE,
  type V03GrpcName,
  grpcCallOfPath,
  isV03GrpcName,
  v03ServiceOf,
} from './method-paths.js';

export interface GrpcMethod {
  service: typeof A2A_SERVICE | typeof PAUSE_SERVICE | typeof A2A_V03_SERVICE | typeof A2A_V03_PAUSE_SERVICE;
  request: DescMessage;
  response: DescMessage;
  stream: boolean;
}

/** Every method of both services, with the messages its call carries. */
export const GRPC_METHODS: { readonly [M in CoreMethod | PauseMethod]: GrpcMethod } = {
  SendMessage: {
    service: A2A_SERVICE,
    request: SendMessageRequestSchema,
    response: SendMessageResponseSchema,
    stream: false,
  },
  SendStreamingMessage: {
    service: A2A_SERVICE,
    request: SendMessageRequestSchema,
    response: StreamResponseSchema,
    stream: true,
  },
  GetTask: { service: A2A_SERVICE, request: GetTaskRequestSchema, response: TaskSchema, stream: false },
  ListTasks: {
    service: A2A_SERVICE,
    request: ListTasksRequestSchema,
    response: ListTasksResponseSchema,
    stream: false,
  },
  CancelTask: { service: A2A_SERVICE, request: CancelTaskRequestSchema, response: TaskSchema, stream: false },
  SubscribeToTask: {
    service: A2A_SERVICE,
    request: SubscribeToTaskRequestSchema,
    response: StreamResponseSchema,
    stream: true,
  },
  CreateTaskPushNotificationConfig: {
    service: A2A_SERVICE,
    request: TaskPushNotificationConfigSchema,
    response: TaskPushNotificationConfigSchema,
    stream: false,
  },
  GetTaskPushNotificationConfig: {
    service: A2A_SERVICE,
    request: GetTaskPushNotificationConfigRequestSchema,
    response: TaskPushNotificationConfigSchema,
    stream: false,
  },
  ListTaskPushNotificationConfigs: {
    service: A2A_SERVICE,
    request: ListTaskPushNotificationConfigsRequestSchema,
    response: ListTaskPushNotificationConfigsResponseSchema,
    stream: false,
  },
  DeleteTaskPushNotificationConfig: {
    service: A2A_SERVICE,
    request: DeleteTaskPushNotificationConfigRequestSchema,
    response: EmptySchema,
    stream: false,
  },
  GetExtendedAgentCard: {
    service: A2A_SERVICE,
    request: GetExtendedAgentCardRequestSchema,
    response: AgentCardSchema,
    stream: false,
  },
  PauseTask: {
    service: PAUSE_SERVICE,
    request: PauseTaskRequestSchema,
    response: PauseTaskResponseSchema,
    stream: false,
  },
  ResumeTask: {
    service: PAUSE_SERVICE,
    request: ResumeTaskRequestSchema,
    response: ResumeTaskResponseSchema,
    stream: false,
  },
  AwaitTaskResumption: {
    service: PAUSE_SERVICE,
    request: AwaitTaskResumptionRequestSchema,
    response: AwaitTaskResumptionResponseSchema,
    stream: false,
  },
};

const v03Method = (name: V03GrpcName, request: DescMessage, response: DescMessage, stream = false): GrpcMethod => ({
  service: v03ServiceOf(name),
  request,
  response,
  stream,
});

/**
 * Every method of A2A v0.3's services by its v0.3 name (a2a.proto of package `a2a.v1`, and the pause
 * extension's `a2a.v1.pause`). Answers that carry a task are the extension's superset messages (the
 * same fields, with TASK_STATE_PAUSED named and `TaskStatus.pause`), which decode a stock v0.3
 * answer as a2a.v1's do (docs/design.md §4).
 */
export const GRPC_V03_METHODS: { readonly [M in V03GrpcName]: GrpcMethod } = {
  SendMessage: v03Method('SendMessage', v03.SendMessageRequestSchema, v03Pause.SendMessageResponseSchema),
  SendStreamingMessage: v03Method(
    'SendStreamingMessage',
    v03.SendMessageRequestSchema,
    v03Pause.StreamResponseSchema,
    true,
  ),
  GetTask: v03Method('GetTask', v03.GetTaskRequestSchema, v03Pause.TaskSchema),
  CancelTask: v03Method('CancelTask', v03.CancelTaskRequestSchema, v03Pause.TaskSchema),
  TaskSubscription: v03Method(
    'TaskSubscription',
    v03.TaskSubscriptionRequestSchema,
    v03Pause.StreamResponseSchema,
    true,
  ),
  CreateTaskPushNotificationConfig: v03Method(
    'CreateTaskPushNotificationConfig',
    v03.CreateTaskPushNotificationConfigRequestSchema,
    v03.TaskPushNotificationConfigSchema,
  ),
  GetTaskPushNotificationConfig: v03Method(
    'GetTaskPushNotificationConfig',
    v03.GetTaskPushNotificationConfigRequestSchema,
    v03.TaskPushNotificationConfigSchema,
  ),
  ListTaskPushNotificationConfig: v03Method(
    'ListTaskPushNotificationConfig',
    v03.ListTaskPushNotificationConfigRequestSchema,
    v03.ListTaskPushNotificationConfigResponseSchema,
  ),
  DeleteTaskPushNotificationConfig: v03Method(
    'DeleteTaskPushNotificationConfig',
    v03.DeleteTaskPushNotificationConfigRequestSchema,
    EmptySchema,
  ),
  GetAgentCard: v03Method('GetAgentCard', v03.GetAgentCardRequestSchema, v03.AgentCardSchema),
  PauseTask: v03Method('PauseTask', v03Pause.PauseTaskRequestSchema, v03Pause.PauseTaskResponseSchema),
  ResumeTask: v03Method('ResumeTask', v03Pause.ResumeTaskRequestSchema, v03Pause.ResumeTaskResponseSchema),
  AwaitTaskResumption: v03Method(
    'AwaitTaskResumption',
    v03Pause.AwaitTaskResumptionRequestSchema,
    v03Pause.AwaitTaskResumptionResponseSchema,
  ),
};

/**
 * The method a gRPC call's `:path` (`/<service>/<method>`) names, exactly, in either package: the
 * v1.0 method it is, the messages of its own package, and that package's version; undefined for
 * any other path.
 */
export function grpcMethodOfPath(
  path: string,
): { name: CoreMethod | PauseMethod; method: GrpcMethod; version: GrpcVersion } | undefined {
  const call = grpcCallOfPath(path);
  if (call === undefined) return undefined;
  if (call.version === '1.0') return { ...call, method: GRPC_METHODS[call.name] };
  const v03Name = path.slice(path.lastIndexOf('/') + 1);
  return isV03GrpcName(v03Name) ? { ...call, method: GRPC_V03_METHODS[v03Name] } : undefined;
}
