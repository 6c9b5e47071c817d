/**
 * @module grpc/method-paths
 * Which A2A method a gRPC call's `:path` names (docs/design.md §16), with no message codec: the
 * observer reads calls by their method and needs no protobuf schema to do so, so that everything
 * that observes (record, run, audit, lost, report) starts without loading the generated codec.
 * src/grpc/methods.ts adds each method's messages.
 */
import type { CoreMethod, PauseMethod } from '../protocol/methods.js';

/** The service of the A2A core methods (a2a.proto). */
export const A2A_SERVICE = 'lf.a2a.v1.A2AService';
/** The service of the pause extension's methods (pause.proto, docs/design.md §16). */
export const PAUSE_SERVICE = 'lf.a2a.v1.pause.A2APauseService';

/** The service of each method. */
export const GRPC_SERVICE_OF: { readonly [M in CoreMethod | PauseMethod]: typeof A2A_SERVICE | typeof PAUSE_SERVICE } =
  {
    SendMessage: A2A_SERVICE,
    SendStreamingMessage: A2A_SERVICE,
    GetTask: A2A_SERVICE,
    ListTasks: A2A_SERVICE,
    CancelTask: A2A_SERVICE,
    SubscribeToTask: A2A_SERVICE,
    CreateTaskPushNotificationConfig: A2A_SERVICE,
    GetTaskPushNotificationConfig: A2A_SERVICE,
    ListTaskPushNotificationConfigs: A2A_SERVICE,
    DeleteTaskPushNotificationConfig: A2A_SERVICE,
    GetExtendedAgentCard: A2A_SERVICE,
    PauseTask: PAUSE_SERVICE,
    ResumeTask: PAUSE_SERVICE,
    AwaitTaskResumption: PAUSE_SERVICE,
  };

const NAME_BY_PATH = new Map<string, CoreMethod | PauseMethod>(
  (Object.entries(GRPC_SERVICE_OF) as [CoreMethod | PauseMethod, string][]).map(([name, service]) => [
    `/${service}/${name}`,
    name,
  ]),
);

/** The method a gRPC call's `:path` (`/<service>/<method>`) names, exactly; undefined for any other path. */
export function grpcMethodNameOfPath(path: string): CoreMethod | PauseMethod | undefined {
  return NAME_BY_PATH.get(path);
}
