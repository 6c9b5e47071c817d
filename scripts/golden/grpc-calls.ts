/**
 * @module scripts/golden/grpc-calls
 * The A2A calls of a golden scenario over gRPC (docs/design.md §16), for `A2aTestClient`: a
 * grpc-js generic client on the port that serves HTTP/1 and gRPC alike, each call's params (the
 * method's request message as ProtoJSON, which is the JSON-RPC `params`) encoded with the method
 * table (src/grpc/methods.ts) and its answer and stream messages read back to ProtoJSON, so a
 * scenario written in JSON-RPC terms runs unchanged. An error status reads as the JSON-RPC code
 * its ErrorInfo reason names, as the observer reads it. Every call carries `a2a-version: 1.0` and
 * the client's `authorization`.
 */
import { type JsonValue, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { Client, Metadata, type ServiceError, credentials } from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_KEY } from '../../src/grpc/grpc-status.js';
import { statusDetailsJson } from '../../src/grpc/grpc-wire.js';
import { GRPC_METHODS, type GrpcMethod } from '../../src/grpc/methods.js';
import type { CoreMethod, PauseMethod } from '../../src/protocol/methods.js';
import { readRestError } from '../../src/protocol/rest-binding.js';

/** The answer of a unary call in JSON-RPC terms. */
export type GrpcReply = { result: unknown } | { error: { code: number; message: string } };

/** An open server stream: `done` settles when it ends (its status, whatever it is). */
export interface GrpcStreamCall {
  done: Promise<void>;
  abort(): void;
}

function methodOf(name: string): GrpcMethod {
  const method = GRPC_METHODS[name as CoreMethod | PauseMethod] as GrpcMethod | undefined;
  if (method === undefined) throw new Error(`${name} has no gRPC method`);
  return method;
}

/** The JSON-RPC code of a gRPC error: its ErrorInfo reason's, else -32603. */
function replyOfError(error: ServiceError): GrpcReply {
  const bin = error.metadata?.get(GRPC_STATUS_DETAILS_KEY)[0];
  const status = bin instanceof Buffer ? statusDetailsJson(bin) : undefined;
  const details = status !== null && typeof status === 'object' && !Array.isArray(status) ? status.details : undefined;
  const read = readRestError({ error: { message: error.details, details } });
  return { error: { code: read?.code ?? -32603, message: `gRPC status ${error.code}: ${error.details}` } };
}

export class GrpcCalls {
  readonly #client: Client;
  readonly #authorization: string | undefined;

  /** `baseUrl` is the `http://HOST:PORT` of a port that serves gRPC too (the peer's, the recorder's, the mock's). */
  constructor(baseUrl: string, authorization: string | undefined) {
    this.#client = new Client(new URL(baseUrl).host, credentials.createInsecure());
    this.#authorization = authorization;
  }

  #metadata(): Metadata {
    const metadata = new Metadata();
    metadata.set('a2a-version', '1.0');
    if (this.#authorization !== undefined) metadata.set('authorization', this.#authorization);
    return metadata;
  }

  /** A unary call; an error status is the reply's `error`. */
  call(name: string, params: unknown): Promise<GrpcReply> {
    const method = methodOf(name);
    if (method.stream) throw new Error(`${name} streams: use stream()`);
    return new Promise((resolve) => {
      this.#client.makeUnaryRequest(
        `/${method.service}/${name}`,
        (value: JsonValue) => Buffer.from(toBinary(method.request, fromJson(method.request, value))),
        (bytes: Buffer) => toJson(method.response, fromBinary(method.response, bytes)),
        params as JsonValue,
        this.#metadata(),
        (error, value) => resolve(error ? replyOfError(error) : { result: value }),
      );
    });
  }

  /** A server-streaming call: each message as ProtoJSON to `onEvent`. */
  stream(name: string, params: unknown, onEvent: (event: Record<string, unknown>) => void): GrpcStreamCall {
    const method = methodOf(name);
    if (!method.stream) throw new Error(`${name} does not stream`);
    const call = this.#client.makeServerStreamRequest(
      `/${method.service}/${name}`,
      (value: JsonValue) => Buffer.from(toBinary(method.request, fromJson(method.request, value))),
      (bytes: Buffer) => toJson(method.response, fromBinary(method.response, bytes)),
      params as JsonValue,
      this.#metadata(),
    );
    call.on('data', (event: Record<string, unknown>) => onEvent(event));
    // An error status (a cancel included) ends the stream as its end does; `status` comes either way.
    call.on('error', () => {});
    const done = new Promise<void>((resolve) => call.on('status', () => resolve()));
    return { done, abort: () => call.cancel() };
  }

  close(): void {
    this.#client.close();
  }
}
