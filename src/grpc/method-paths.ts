/**
 * @module grpc/method-paths
 * Which A2A method a gRPC call's `:path` names (docs/design.md §16), with no message codec: the
 * observer reads calls by their method and needs no protobuf schema to do so, so that everything
 * that observes (record, run, audit, lost, report) starts without loading the generated codec.
 * src/grpc/methods.ts adds each method's messages. Both packages are read: `lf.a2a.v1` (v1.0) and
 * `a2a.v1` (v0.3, docs/design.md §14.10), with each one's pause extension (`lf.a2a.v1.pause`,
 * `a2a.v1.pause`), whose methods are named here by the v1.0 method each is.
 */
import type { CoreMethod, PauseMethod } from '../protocol/methods.js';

/** The service of the A2A core methods (a2a.proto). */
export const A2A_SERVICE = 'lf.a2a.v1.A2AService';
/** The service of the pause extension's methods (pause.proto, docs/design.md §16). */
export const PAUSE_SERVICE = 'lf.a2a.v1.pause.A2APauseService';

/** The service of A2A v0.3's methods (package `a2a.v1`, docs/design.md §14.10). */
export const A2A_V03_SERVICE = 'a2a.v1.A2AService';
/** The service of the pause extension over v0.3 gRPC (proto/a2a/v1/pause.proto, docs/design.md §4). */
export const A2A_V03_PAUSE_SERVICE = 'a2a.v1.pause.A2APauseService';

/** The A2A versions a gRPC call may speak: its package decides. */
export type GrpcVersion = '0.3' | '1.0';

/**
 * The v0.3 services' methods by their v0.3 names, each the v1.0 method it is: `a2a.v1.A2AService`'s,
 * and the pause extension's (`a2a.v1.pause.A2APauseService`, this project's proposal). v0.3 has no
 * ListTasks (docs/design.md §14.10).
 */
export const V03_GRPC_METHODS = {
  SendMessage: 'SendMessage',
  SendStreamingMessage: 'SendStreamingMessage',
  GetTask: 'GetTask',
  CancelTask: 'CancelTask',
  TaskSubscription: 'SubscribeToTask',
  CreateTaskPushNotificationConfig: 'CreateTaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'GetTaskPushNotificationConfig',
  ListTaskPushNotificationConfig: 'ListTaskPushNotificationConfigs',
  DeleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfig',
  GetAgentCard: 'GetExtendedAgentCard',
  PauseTask: 'PauseTask',
  ResumeTask: 'ResumeTask',
  AwaitTaskResumption: 'AwaitTaskResumption',
} as const satisfies { readonly [name: string]: CoreMethod | PauseMethod };

/** A method name of v0.3's gRPC service. */
export type V03GrpcName = keyof typeof V03_GRPC_METHODS;

/** Whether `name` is a method of v0.3's gRPC service. */
export function isV03GrpcName(name: string): name is V03GrpcName {
  return Object.hasOwn(V03_GRPC_METHODS, name);
}

/** The v0.3 service of a v0.3 method: the pause extension's for its three methods. */
export function v03ServiceOf(name: V03GrpcName): typeof A2A_V03_SERVICE | typeof A2A_V03_PAUSE_SERVICE {
  return GRPC_SERVICE_OF[V03_GRPC_METHODS[name]] === PAUSE_SERVICE ? A2A_V03_PAUSE_SERVICE : A2A_V03_SERVICE;
}

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

/** A gRPC call's method as the v1.0 method it is, and the version its package speaks. */
export interface GrpcCallName {
  name: CoreMethod | PauseMethod;
  version: GrpcVersion;
}

const NAME_BY_PATH = new Map<string, GrpcCallName>([
  ...(Object.entries(GRPC_SERVICE_OF) as [CoreMethod | PauseMethod, string][]).map(
    ([name, service]): [string, GrpcCallName] => [`/${service}/${name}`, { name, version: '1.0' }],
  ),
  ...(Object.entries(V03_GRPC_METHODS) as [V03GrpcName, CoreMethod | PauseMethod][]).map(
    ([v03, name]): [string, GrpcCallName] => [`/${v03ServiceOf(v03)}/${v03}`, { name, version: '0.3' }],
  ),
]);

/**
 * The method a gRPC call's `:path` (`/<service>/<method>`) names, exactly, as its v1.0 method and
 * its package's version; undefined for any other path.
 */
export function grpcCallOfPath(path: string): GrpcCallName | undefined {
  return NAME_BY_PATH.get(path);
}

/** The v1.0 method a gRPC call's `:path` names, in either package; undefined for any other path. */
export function grpcMethodNameOfPath(path: string): CoreMethod | PauseMethod | undefined {
  return NAME_BY_PATH.get(path)?.name;
}

/** The `:path` of `name` in the service of `version`, or undefined when that version has no such method. */
export function grpcPathOf(name: CoreMethod | PauseMethod, version: GrpcVersion): string | undefined {
  if (version === '1.0') return `/${GRPC_SERVICE_OF[name]}/${name}`;
  const v03 = (Object.keys(V03_GRPC_METHODS) as V03GrpcName[]).find((k) => V03_GRPC_METHODS[k] === name);
  return v03 === undefined ? undefined : `/${v03ServiceOf(v03)}/${v03}`;
}
