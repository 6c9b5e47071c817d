/**
 * The calls of `A2aTestClient` (scripts/golden/a2a-client.ts) over gRPC (docs/design.md §16): a
 * grpc-js client that encodes each call's params (ProtoJSON) with the method table
 * (src/grpc/methods.ts) and reads answers and stream messages back to ProtoJSON, so a test
 * written against that client runs over gRPC unchanged. Errors read as the gRPC status.
 */
import { type JsonValue, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import type { TestStream } from '../../scripts/golden/a2a-client.js';
import { GRPC_METHODS } from '../../src/grpc/methods.js';
import type { CoreMethod, PauseMethod } from '../../src/protocol/methods.js';

type Method = CoreMethod | PauseMethod;

function methodOf(name: string): (typeof GRPC_METHODS)[Method] {
  const method = GRPC_METHODS[name as Method] as (typeof GRPC_METHODS)[Method] | undefined;
  if (method === undefined) throw new Error(`${name} is no gRPC method`);
  return method;
}

export class GrpcTestClient {
  readonly #client: Client;

  /** `baseUrl` is the `http://HOST:PORT` of a port that serves gRPC too (the peer's, the recorder's). */
  constructor(baseUrl: string) {
    this.#client = new Client(new URL(baseUrl).host, credentials.createInsecure());
  }

  #metadata(): Metadata {
    const metadata = new Metadata();
    metadata.set('a2a-version', '1.0');
    return metadata;
  }

  /** Calls and returns the answer's ProtoJSON, failing loudly on an error status. */
  ok<T = Record<string, unknown>>(name: string, params: unknown): Promise<T> {
    const method = methodOf(name);
    return new Promise((resolve, reject) => {
      this.#client.makeUnaryRequest(
        `/${method.service}/${name}`,
        (value: JsonValue) => Buffer.from(toBinary(method.request, fromJson(method.request, value))),
        (bytes: Buffer) => toJson(method.response, fromBinary(method.response, bytes)),
        params as JsonValue,
        this.#metadata(),
        (error, value) => {
          if (error) reject(new Error(`${name} failed: ${error.code} ${error.details}`));
          else resolve(value as T);
        },
      );
    });
  }

  /** Starts a server-streaming call; its messages arrive as ProtoJSON events. */
  stream(name: string, params: unknown): TestStream {
    const method = methodOf(name);
    const events: Record<string, unknown>[] = [];
    const waiters: { test: (e: Record<string, unknown>) => boolean; resolve: (e: Record<string, unknown>) => void }[] =
      [];
    const call = this.#client.makeServerStreamRequest(
      `/${method.service}/${name}`,
      (value: JsonValue) => Buffer.from(toBinary(method.request, fromJson(method.request, value))),
      (bytes: Buffer) => toJson(method.response, fromBinary(method.response, bytes)),
      params as JsonValue,
      this.#metadata(),
    );
    call.on('data', (event: Record<string, unknown>) => {
      events.push(event);
      for (const w of waiters.splice(0)) {
        if (w.test(event)) w.resolve(event);
        else waiters.push(w);
      }
    });
    const done = new Promise<void>((resolve) => {
      call.on('error', () => resolve());
      call.on('end', () => resolve());
    });
    return {
      events,
      done,
      abort: () => call.cancel(),
      next: (test) =>
        new Promise((resolve) => {
          const seen = events.find(test);
          if (seen) resolve(seen);
          else waiters.push({ test, resolve });
        }),
    };
  }

  close(): void {
    this.#client.close();
  }
}
