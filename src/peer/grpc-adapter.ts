/**
 * @module peer/grpc-adapter
 * The reference peer's gRPC binding (docs/design.md §16): `lf.a2a.v1.A2AService` and the pause
 * extension's `lf.a2a.v1.pause.A2APauseService` on grpc-js, over connections the peer's port
 * hands it (src/http/transport-sniff.ts). Each call's message is decoded with the generated codec
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
import { GRPC_METHODS, type GrpcMethod } from '../grpc/methods.js';
import type { CoreMethod, PauseMethod } from '../protocol/methods.js';
import type { StreamResponse } from '../protocol/types.js';
import { principalOf } from '../recording/principal.js';
import { type Reply, type RequestHandler, type StreamSink, versionFailure } from './request-handler.js';
import { RpcFailure } from './rpc-failure.js';
import type { Caller } from './task-engine.js';

export interface GrpcAdapterOptions {
  handler: RequestHandler;
  /** Largest request message accepted, bytes (the peer's body limit). */
  messageLimitBytes: number;
  log: (line: string) => void;
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

/** Builds the peer's gRPC server over `options.handler`. */
export function createGrpcAdapter(options: GrpcAdapterOptions): GrpcAdapter {
  const { handler, log } = options;
  const server = new Server({
    'grpc.max_receive_message_length': options.messageLimitBytes,
  });
  const definitions = new Map<string, Record<string, ServiceDefinition[string]>>();
  const implementations = new Map<string, UntypedServiceImplementation>();
  const raw = (bytes: Buffer): Buffer => bytes;

  for (const [name, method] of Object.entries(GRPC_METHODS) as [CoreMethod | PauseMethod, GrpcMethod][]) {
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
    const serve = (call: AnyCall, done: sendUnaryData<Buffer> | undefined): void => {
      const fail = (failure: RpcFailure): void => {
        if (done) done(serviceError(failure));
        else call.emit('error', serviceError(failure));
      };
      const refused = versionFailure((firstValue(call.metadata, 'a2a-version') ?? '').trim());
      if (refused) return fail(refused);
      let params: unknown;
      try {
        params = toJson(method.request, fromBinary(method.request, call.request));
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
            bytes = encode(method.response, value, `the ${name} result`);
          } catch (error) {
            const failure = error instanceof RpcFailure ? error : new RpcFailure('INTERNAL', errorMessage(error));
            log(`peer: ${failure.message}`);
            done(serviceError(failure));
            return;
          }
          done(null, bytes);
        },
        openStream: () => streamSink(call as ServerWritableStream<Buffer, Buffer>, method, log),
        fail,
      };
      void handler.call(name, params, callerOf(call.metadata, name), reply);
    };
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
