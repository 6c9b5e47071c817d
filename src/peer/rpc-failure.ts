/**
 * @module peer/rpc-failure
 * The one way the peer's engine refuses a call: a {@link RpcFailure} names an entry of the
 * JSON-RPC error table (src/protocol/errors.ts) and says why; the server turns it into the
 * error response with its `data[]` ErrorInfo.
 */
import { type ErrorInfo, type JsonRpcErrorName, type JsonRpcErrorObject, jsonRpcError } from '../protocol/errors.js';

export class RpcFailure extends Error {
  readonly errorName: JsonRpcErrorName;
  readonly metadata: Record<string, string> | undefined;

  constructor(errorName: JsonRpcErrorName, message: string, metadata?: Record<string, string>) {
    super(message);
    this.name = 'RpcFailure';
    this.errorName = errorName;
    this.metadata = metadata;
  }

  /** The JSON-RPC `error` member. */
  toError(): JsonRpcErrorObject & { data: ErrorInfo[] } {
    return jsonRpcError(this.errorName, this.message, this.metadata);
  }
}
