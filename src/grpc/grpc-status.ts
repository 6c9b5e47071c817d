/**
 * @module grpc/grpc-status
 * The error table of the gRPC binding (docs/design.md §16): each JSON-RPC error of the one table
 * (src/protocol/errors.ts) as a gRPC status code, and the `grpc-status-details-bin` trailer
 * that carries its `google.rpc.ErrorInfo` (the same reason, domain and metadata as the JSON-RPC
 * `data[]` and the HTTP+JSON `details[]`), encoded with the generated codec.
 */
import { create, toBinary } from '@bufbuild/protobuf';
import { anyPack } from '@bufbuild/protobuf/wkt';
import { ERROR_DOMAIN, JSON_RPC_ERRORS, type JsonRpcErrorName } from '../protocol/errors.js';
import { ErrorInfoSchema } from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';
import { GRPC_ERROR_STATUS, type GrpcStatusCode } from './status-codes.js';

/** The trailer holding a serialized `google.rpc.Status`. */
export const GRPC_STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** A gRPC error answer: status code, message, and the serialized `google.rpc.Status` trailer. */
export interface GrpcErrorAnswer {
  code: GrpcStatusCode;
  details: string;
  statusDetails: Uint8Array;
}

/** The gRPC answer of the error `name` with `message` and the ErrorInfo `metadata`. */
export function grpcError(
  name: JsonRpcErrorName,
  message: string,
  metadata?: Readonly<Record<string, string>>,
): GrpcErrorAnswer {
  const code = GRPC_ERROR_STATUS[name];
  const info = create(ErrorInfoSchema, {
    reason: JSON_RPC_ERRORS[name].reason,
    domain: ERROR_DOMAIN,
    metadata: { ...metadata },
  });
  const status = create(StatusSchema, { code, message, details: [anyPack(ErrorInfoSchema, info)] });
  return { code, details: message, statusDetails: toBinary(StatusSchema, status) };
}
