/**
 * @module grpc/status-codes
 * The gRPC status codes (grpc/grpc `doc/statuscodes.md`; the same numbers as `status` of
 * @grpc/grpc-js), here so that the recorder, which speaks gRPC as HTTP/2 frames of its own, answers
 * and reads statuses without loading a gRPC library (docs/design.md §16).
 */
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
