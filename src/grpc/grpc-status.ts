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
import { GrpcStatus, type GrpcStatusCode } from './status-codes.js';

/** The trailer holding a serialized `google.rpc.Status`. */
export const GRPC_STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/**
 * The gRPC status of each error: the spec's table for -32001..-32009, FAILED_PRECONDITION for
 * the RFC's -32010 and -32011 (as -32002), UNIMPLEMENTED for an unknown method.
 */
export const GRPC_ERROR_STATUS: { readonly [N in JsonRpcErrorName]: GrpcStatusCode } = {
  PARSE_ERROR: GrpcStatus.INVALID_ARGUMENT,
  INVALID_REQUEST: GrpcStatus.INVALID_ARGUMENT,
  METHOD_NOT_FOUND: GrpcStatus.UNIMPLEMENTED,
  INVALID_PARAMS: GrpcStatus.INVALID_ARGUMENT,
  INTERNAL: GrpcStatus.INTERNAL,
  TASK_NOT_FOUND: GrpcStatus.NOT_FOUND,
  TASK_NOT_CANCELABLE: GrpcStatus.FAILED_PRECONDITION,
  PUSH_NOTIFICATION_NOT_SUPPORTED: GrpcStatus.FAILED_PRECONDITION,
  UNSUPPORTED_OPERATION: GrpcStatus.FAILED_PRECONDITION,
  CONTENT_TYPE_NOT_SUPPORTED: GrpcStatus.INVALID_ARGUMENT,
  INVALID_AGENT_RESPONSE: GrpcStatus.INTERNAL,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: GrpcStatus.FAILED_PRECONDITION,
  EXTENSION_SUPPORT_REQUIRED: GrpcStatus.FAILED_PRECONDITION,
  VERSION_NOT_SUPPORTED: GrpcStatus.FAILED_PRECONDITION,
  INVALID_TASK_STATE: GrpcStatus.FAILED_PRECONDITION,
  RESUME_TOKEN_MISMATCH: GrpcStatus.FAILED_PRECONDITION,
};

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
