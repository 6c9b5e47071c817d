/**
 * @module mock/mock-grpc
 * The mock over gRPC (docs/design.md §13, §16): `lf.a2a.v1.A2AService`,
 * `lf.a2a.v1.pause.A2APauseService` and A2A v0.3's `a2a.v1.A2AService` on grpc-js, over the h2c
 * connections the mock's port hands it (src/http/transport-sniff.ts). Each call's message is
 * decoded with its package's method table (src/grpc/methods.ts) into its ProtoJSON and handed to
 * the {@link MockEngine} as a gRPC request; the engine's outputs are written back in the binding:
 * a recorded message encoded with the method's response message, stream messages as they are
 * released (a stream stays open across PAUSED until the recorded answers after it are due, as over
 * SSE), and a recorded error as its status with `grpc-message` and `grpc-status-details-bin` — as
 * Trailers-Only, since nothing was sent before it. A client that cancels ends its exchange.
 */
import { type DescMessage, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
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
  status as GrpcCode,
} from '@grpc/grpc-js';
import type { JsonValue } from '../canonical/canonical-json.js';
import { errorMessage } from '../errors.js';
import { GRPC_STATUS_DETAILS_KEY } from '../grpc/grpc-status.js';
import { GRPC_METHODS, GRPC_V03_METHODS, type GrpcMethod } from '../grpc/methods.js';
import { statusDetailsBytes } from '../grpc/status-details.js';
import type { EntryGrpc } from '../recording/format.js';
import type { MockEngine } from './mock-engine.js';
import type { OutputQueue } from './mock-output.js';

/** The mock's gRPC server: hand it h2c connections; close it with the mock. */
export interface MockGrpc {
  injectConnection: ConnectionInjector['injectConnection'];
  close(): void;
}

interface GrpcStatusError {
  code: number;
  details: string;
  metadata: Metadata;
}

/** A recorded status as grpc-js sends it; the details trailer when the recording holds one. */
function statusError(grpc: EntryGrpc, where: string): GrpcStatusError {
  const metadata = new Metadata();
  if (grpc.details !== undefined) {
    try {
      metadata.set(GRPC_STATUS_DETAILS_KEY, Buffer.from(statusDetailsBytes(grpc.details, where)));
    } catch {
      // Details that are no google.rpc.Status go unsent; the status and message still do.
    }
  }
  return { code: grpc.status ?? GrpcCode.UNKNOWN, details: grpc.message ?? '', metadata };
}

function internal(message: string): GrpcStatusError {
  return { code: GrpcCode.INTERNAL, details: message, metadata: new Metadata() };
}

/** A recorded message's ProtoJSON as the bytes of `schema`. */
function encode(schema: DescMessage, body: JsonValue | undefined): Buffer {
  return Buffer.from(toBinary(schema, fromJson(schema, body ?? {})));
}

function firstValue(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

/** Answers a unary call from the engine's outputs. */
async function answerUnary(queue: OutputQueue, method: GrpcMethod, done: sendUnaryData<Buffer>): Promise<void> {
  for await (const output of queue) {
    if (output.kind === 'unary') {
      const grpc = output.grpc;
      if (grpc !== undefined && grpc.status !== undefined && grpc.status !== 0) {
        return done(statusError(grpc, 'a recorded status'));
      }
      if (grpc === undefined) return done(internal(`the recorded answer is not a gRPC one (HTTP ${output.status})`));
      try {
        return done(null, encode(method.response, output.body));
      } catch (error) {
        return done(internal(`the recorded answer does not fit ${method.response.typeName}: ${errorMessage(error)}`));
      }
    }
    if (output.kind === 'break') return done(internal(`the recorded exchange broke: ${output.reason}`));
  }
  done(internal('the mock closed before the recorded answer was due'));
}

/** Writes a stream's messages and its status from the engine's outputs. */
async function answerStream(queue: OutputQueue, method: GrpcMethod, call: ServerWritableStream<Buffer, Buffer>) {
  const fail = (error: GrpcStatusError): void => {
    call.emit('error', error);
  };
  for await (const output of queue) {
    if (call.cancelled || call.destroyed) return;
    switch (output.kind) {
      case 'event': {
        let bytes: Buffer;
        try {
          bytes = encode(method.response, JSON.parse(output.data) as JsonValue);
        } catch (error) {
          return fail(internal(`a recorded message does not fit ${method.response.typeName}: ${errorMessage(error)}`));
        }
        await new Promise<void>((resolve) => call.write(bytes, () => resolve()));
        break;
      }
      case 'end': {
        const grpc = output.grpc;
        if (grpc?.status !== undefined && grpc.status !== 0) return fail(statusError(grpc, 'a recorded status'));
        call.end();
        return;
      }
      case 'unary':
        if (output.grpc?.status !== undefined && output.grpc.status !== 0) {
          return fail(statusError(output.grpc, 'a recorded status'));
        }
        return fail(internal('the recorded answer of a stream is not a stream'));
      case 'break':
        return fail(internal(`the recorded exchange broke: ${output.reason}`));
      case 'head':
        break;
      default: {
        const never: never = output;
        throw new Error(`unknown output ${JSON.stringify(never)}`);
      }
    }
  }
  if (!call.cancelled && !call.writableEnded) call.end();
}

/** Builds the mock's gRPC server over `engine`. */
export function createMockGrpc(engine: MockEngine, messageLimitBytes: number): MockGrpc {
  const server = new Server({ 'grpc.max_receive_message_length': messageLimitBytes });
  const definitions = new Map<string, Record<string, ServiceDefinition[string]>>();
  const implementations = new Map<string, UntypedServiceImplementation>();
  const raw = (bytes: Buffer): Buffer => bytes;

  // Both packages: v1.0's services, and v0.3's (a2a.v1) under its own method names.
  const methods = [...Object.entries(GRPC_METHODS), ...Object.entries(GRPC_V03_METHODS)] as [string, GrpcMethod][];
  for (const [name, method] of methods) {
    const path = `/${method.service}/${name}`;
    const definition = definitions.get(method.service) ?? {};
    definitions.set(method.service, definition);
    definition[name] = {
      path,
      requestStream: false,
      responseStream: method.stream,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    };
    /** The engine's queue for a call, or the status to answer a message that does not decode. */
    const queueOf = (request: Buffer, metadata: Metadata): OutputQueue | GrpcStatusError => {
      let body: JsonValue;
      try {
        body = toJson(method.request, fromBinary(method.request, request)) as JsonValue;
      } catch (error) {
        return {
          code: GrpcCode.INVALID_ARGUMENT,
          details: `the ${name} request is not a valid ${method.request.typeName}: ${errorMessage(error)}`,
          metadata: new Metadata(),
        };
      }
      const version = (firstValue(metadata, 'a2a-version') ?? '').trim();
      return engine.handle({ method: 'POST', path, body, text: JSON.stringify(body), version, grpc: true });
    };
    const implementation = implementations.get(method.service) ?? {};
    implementations.set(method.service, implementation);
    implementation[name] = method.stream
      ? (call: ServerWritableStream<Buffer, Buffer>): void => {
          const queue = queueOf(call.request, call.metadata);
          if (!('push' in queue)) {
            call.emit('error', queue);
            return;
          }
          call.once('cancelled', () => queue.cancel());
          void answerStream(queue, method, call);
        }
      : (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>): void => {
          const queue = queueOf(call.request, call.metadata);
          if (!('push' in queue)) {
            done(queue);
            return;
          }
          call.once('cancelled', () => queue.cancel());
          void answerUnary(queue, method, done);
        };
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
