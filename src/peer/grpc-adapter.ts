/**
 * @module peer/grpc-adapter
 * The reference peer's gRPC binding (docs/design.md §16): `lf.a2a.v1.A2AService` and the pause
 * extension's `lf.a2a.v1.pause.A2APauseService`, and A2A v0.3's `a2a.v1.A2AService` with its pause
 * extension's `a2a.v1.pause.A2APauseService` (converted at the edge by src/peer/v03-grpc.ts; each
 * served as `--a2a-version` says) on grpc-js, over connections the peer's port hands it
 * (src/http/transport-sniff.ts). Each call's message is decoded with the generated codec
 * (src/grpc/gen), turned into its ProtoJSON, which is the JSON-RPC `params`, and handed to the
 * same {@link RequestHandler} as the JSON-RPC and HTTP+JSON adapters; results and stream events
 * are ProtoJSON encoded with the pause extension's superset messages, so TASK_STATE_PAUSED and
 * `TaskStatus.pause` reach the client. Streams stay open across PAUSED, as in the JSON bindings.
 *
 * Checks before the handler's: the message decodes (INVALID_ARGUMENT), its size is within the
 * body limit (grpc-js answers RESOURCE_EXHAUSTED), `a2a-version` metadata is 1.0 (-32009). Errors
 * are gRPC statuses with the ErrorInfo in `grpc-status-details-bin` (src/grpc/grpc-status.ts).
 */
import { type DescMessage, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import {
  type ConnectionInjector,
  Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { errorMessage } from '../errors.js';
import { GRPC_STATUS_DETAILS_KEY, grpcError } from '../grpc/grpc-status.js';
import { GRPC_METHODS, GRPC_V03_METHODS, type GrpcMethod } from '../grpc/methods.js';
import { V03_GRPC_METHODS, type V03GrpcName } from '../grpc/method-paths.js';
import type { CoreMethod, PauseMethod } from '../protocol/methods.js';
import type { StreamResponse } from '../protocol/types.js';
import { principalOf } from '../recording/principal.js';
import { type Reply, type RequestHandler, type StreamSink, versionFailure } from './request-handler.js';
import { RpcFailure } from './rpc-failure.js';
import type { Caller } from './task-engine.js';
import {
  type A2aVersionSetting,
  type Dialect,
  V03_PROTOCOL_VERSION,
  asksForV03,
  endsV03Stream,
  serves,
} from './v03-dialect.js';
import { grpcEventToV03, grpcParamsFromV03, grpcResultToV03 } from './v03-grpc.js';

export interface GrpcAdapterOptions {
  handler: RequestHandler;
  /** Largest request message accepted, bytes (the peer's body limit). */
  messageLimitBytes: number;
  log: (line: string) => void;
  /** The dialects served (`peer --a2a-version`): v1.0's services, v0.3's, or both; default both. */
  a2aVersion?: A2aVersionSetting;
}

/** The peer's gRPC server: hand it h2c connections; close it with the peer. */
export interface GrpcAdapter {
  injectConnection: ConnectionInjector['injectConnection'];
  close(): void;
}

type AnyCall = ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>;

function firstValue(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

function callerOf(metadata: Metadata, method: string): Caller {
  const auth = firstValue(metadata, 'authorization');
  return { method, principal: auth === undefined ? null : (principalOf({ authorization: auth }) ?? null) };
}

function serviceError(failure: RpcFailure): { code: number; details: string; metadata: Metadata } {
  const answer = grpcError(failure.errorName, failure.message, failure.metadata);
  const metadata = new Metadata();
  metadata.set(GRPC_STATUS_DETAILS_KEY, Buffer.from(answer.statusDetails));
  return { code: answer.code, details: answer.details, metadata };
}

/** `value` (ProtoJSON) as the bytes of `schema`; throws an INTERNAL failure when it does not fit. */
function encode(schema: DescMessage, value: unknown, what: string): Buffer {
  try {
    return Buffer.from(toBinary(schema, fromJson(schema, value as JsonValue)));
  } catch (error) {
    throw new RpcFailure('INTERNAL', `${what} does not fit ${schema.typeName}: ${errorMessage(error)}`);
  }
}

function streamSink(
  call: ServerWritableStream<Buffer, Buffer>,
  method: GrpcMethod,
  log: (line: string) => void,
): StreamSink {
  const listeners: (() => void)[] = [];
  let closed = false;
  const closeOnce = (): void => {
    if (closed) return;
    closed = true;
    for (const listener of listeners) listener();
  };
  call.once('cancelled', closeOnce);
  call.once('close', closeOnce);
  call.once('finish', closeOnce);
  return {
    send(event: StreamResponse): Promise<void> {
      if (closed) return Promise.resolve();
      let bytes: Buffer;
      try {
        bytes = encode(method.response, event, 'a stream event');
      } catch (error) {
        log(`peer: cannot encode a stream event: ${errorMessage(error)}`);
        call.emit('error', serviceError(new RpcFailure('INTERNAL', 'a stream event could not be encoded')));
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        call.write(bytes, () => resolve());
      });
    },
    close(): void {
      if (!closed && !call.writableEnded) call.end();
    },
    onClose(listener: () => void): void {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
}

/** One method the server serves: its name in its service, the v1.0 method it is, its dialect. */
interface ServedMethod {
  name: string;
  v1: CoreMethod | PauseMethod;
  method: GrpcMethod;
  dialect: Dialect;
}

/** The methods of the dialects `setting` serves: v1.0's two services, v0.3's two (`a2a.v1`, `a2a.v1.pause`). */
function servedMethods(setting: A2aVersionSetting): ServedMethod[] {
  const v10 = (Object.entries(GRPC_METHODS) as [CoreMethod | PauseMethod, GrpcMethod][]).map(
    ([name, method]): ServedMethod => ({ name, v1: name, method, dialect: '1.0' }),
  );
  const v03 = (Object.entries(GRPC_V03_METHODS) as [V03GrpcName, GrpcMethod][]).map(([name, method]): ServedMethod => ({
    name,
    v1: V03_GRPC_METHODS[name],
    method,
    dialect: '0.3',
  }));
  return [...(serves(setting, '1.0') ? v10 : []), ...(serves(setting, '0.3') ? v03 : [])];
}

/** Why a call in `dialect` with `version` (its `a2a-version` metadata, '' for none) is refused, if it is. */
function refusal(dialect: Dialect, version: string): RpcFailure | undefined {
  if (dialect === '1.0') return versionFailure(version);
  if (asksForV03(version)) return undefined;
  return new RpcFailure(
    'VERSION_NOT_SUPPORTED',
    `a call of a2a.v1.A2AService is A2A ${V03_PROTOCOL_VERSION}; it names A2A-Version ${JSON.stringify(version)}: ` +
      'call lf.a2a.v1.A2AService for 1.0, or send no A2A-Version',
  );
}

/** A v0.3 stream: each event converted, closed after the status update that is `final`. */
function v03Sink(sink: StreamSink): StreamSink {
  return {
    send: (event) => {
      const sent = sink.send(grpcEventToV03(event) as unknown as StreamResponse);
      return endsV03Stream(event) ? sent.then(() => sink.close()) : sent;
    },
    close: () => sink.close(),
    onClose: (listener) => sink.onClose(listener),
  };
}

/** The handler of one served method: decodes, converts in its dialect, calls `handler`, answers. */
function serveMethod(served: ServedMethod, handler: RequestHandler, log: (line: string) => void) {
  const { name, v1, method, dialect } = served;
  const v03 = dialect === '0.3';
  return (call: AnyCall, done: sendUnaryData<Buffer> | undefined): void => {
    const fail = (failure: RpcFailure): void => {
      if (done) done(serviceError(failure));
      else call.emit('error', serviceError(failure));
    };
    const refused = refusal(dialect, (firstValue(call.metadata, 'a2a-version') ?? '').trim());
    if (refused) return fail(refused);
    let params: unknown;
    try {
      const json = toJson(method.request, fromBinary(method.request, call.request));
      params = v03 ? grpcParamsFromV03(v1, json) : json;
    } catch (error) {
      return fail(
        new RpcFailure(
          'INVALID_REQUEST',
          `the ${name} request is not a valid ${method.request.typeName}: ${errorMessage(error)}`,
        ),
      );
    }
    const reply: Reply = {
      result(value: unknown): void {
        if (!done) return;
        let bytes: Buffer;
        try {
          bytes = encode(method.response, v03 ? grpcResultToV03(v1, value) : value, `the ${name} result`);
        } catch (error) {
          const failure = error instanceof RpcFailure ? error : new RpcFailure('INTERNAL', errorMessage(error));
          log(`peer: ${failure.message}`);
          done(serviceError(failure));
          return;
        }
        done(null, bytes);
      },
      openStream: () => {
        const sink = streamSink(call as ServerWritableStream<Buffer, Buffer>, method, log);
        return v03 ? v03Sink(sink) : sink;
      },
      fail,
    };
    void handler.call(v1, params, callerOf(call.metadata, v1), reply);
  };
}

/** Builds the peer's gRPC server over `options.handler`, serving the dialects `options.a2aVersion` names. */
export function createGrpcAdapter(options: GrpcAdapterOptions): GrpcAdapter {
  const { handler, log } = options;
  const server = new Server({
    'grpc.max_receive_message_length': options.messageLimitBytes,
  });
  const definitions = new Map<string, Record<string, ServiceDefinition[string]>>();
  const implementations = new Map<string, UntypedServiceImplementation>();
  const raw = (bytes: Buffer): Buffer => bytes;

  for (const served of servedMethods(options.a2aVersion ?? 'both')) {
    const { name, method } = served;
    const definition = definitions.get(method.service) ?? {};
    definitions.set(method.service, definition);
    definition[name] = {
      path: `/${method.service}/${name}`,
      requestStream: false,
      responseStream: method.stream,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    };
    const serve = serveMethod(served, handler, log);
    const implementation = implementations.get(method.service) ?? {};
    implementations.set(method.service, implementation);
    implementation[name] = method.stream
      ? (call: ServerWritableStream<Buffer, Buffer>) => serve(call, undefined)
      : (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) => serve(call, done);
  }
  for (const [service, definition] of definitions) server.addService(definition, implementations.get(service) ?? {});
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  return {
    injectConnection: (connection) => injector.injectConnection(connection),
    close(): void {
      injector.destroy();
      server.forceShutdown();
    },
  };
}
