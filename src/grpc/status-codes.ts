/**
 * @module grpc/status-codes
 * The gRPC status codes (grpc/grpc `doc/statuscodes.md`; the same numbers as `status` of
 * @grpc/grpc-js) and the status of each A2A error, here so that the recorder, which speaks gRPC
 * as HTTP/2 frames of its own, and the mock name statuses without loading a gRPC library or a
 * protobuf codec (docs/design.md §16).
 */
import type { JsonRpcErrorName } from '../protocol/errors.js';

/** The codes by name. */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** One of the codes of {@link GrpcStatus}. */
export type GrpcStatusCode = (typeof GrpcStatus)[keyof typeof GrpcStatus];

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
