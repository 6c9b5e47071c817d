/**
 * @module grpc/methods
 * The gRPC methods of A2A and of the pause extension (docs/design.md §16): for each method its
 * service, the request and response messages of the generated codec (src/grpc/gen), and whether
 * the server streams. The peer serves from this table; the recorder, the mock and the replayer
 * decode and encode recorded calls with it, so every part reads a call the same way.
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
import type { CoreMethod, PauseMethod } from '../protocol/methods.js';
import { A2A_SERVICE, PAUSE_SERVICE, grpcMethodNameOfPath } from './method-paths.js';

export interface GrpcMethod {
  service: typeof A2A_SERVICE | typeof PAUSE_SERVICE;
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

/** The method a gRPC call's `:path` (`/<service>/<method>`) names, exactly; undefined for any other path. */
export function grpcMethodOfPath(path: string): { name: CoreMethod | PauseMethod; method: GrpcMethod } | undefined {
  const name = grpcMethodNameOfPath(path);
  return name === undefined ? undefined : { name, method: GRPC_METHODS[name] };
}
