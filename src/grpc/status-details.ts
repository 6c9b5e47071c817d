/**
 * @module grpc/status-details
 * The `grpc-status-details-bin` trailer (a serialized `google.rpc.Status` whose details hold the
 * error's `google.rpc.ErrorInfo`) from the form a recording holds it in — its ProtoJSON,
 * `details[]` as `Any` with `@type` (docs/design.md §16, `EntryGrpc.details`; src/grpc/grpc-wire.ts
 * reads the trailer into it) — back to bytes, which the mock sends.
 */
import { createRegistry, fromJson, toBinary } from '@bufbuild/protobuf';
import type { JsonValue } from '../canonical/canonical-json.js';
import { A2aReplayError, errorMessage } from '../errors.js';
import { ErrorInfoSchema } from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';

/** The messages an `Any` in a status's details may hold: ErrorInfo, as A2A sends. */
const DETAILS_REGISTRY = createRegistry(ErrorInfoSchema);

/** The bytes of a `google.rpc.Status` given as its ProtoJSON; INVALID_ARGUMENT naming `where` when it is not one. */
export function statusDetailsBytes(json: JsonValue, where: string): Uint8Array {
  try {
    return toBinary(StatusSchema, fromJson(StatusSchema, json, { registry: DETAILS_REGISTRY }));
  } catch (error) {
    throw new A2aReplayError('INVALID_ARGUMENT', `${where}: not a google.rpc.Status: ${errorMessage(error)}`);
  }
}
