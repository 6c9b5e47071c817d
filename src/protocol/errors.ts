/**
 * @module protocol/errors
 * The one table of JSON-RPC error codes: JSON-RPC 2.0 standard codes, A2A v1.0 -32001..-32009
 * (spec §5.4, §9.5) and the RFC's proposed -32010 / -32011. Each error carries a
 * `google.rpc.ErrorInfo` in `data[]` as A2A v1.0 does (reason in UPPER_SNAKE_CASE, domain
 * `a2a-protocol.org`).
 */
import type { JsonObject } from '../canonical/canonical-json.js';

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const ERROR_DOMAIN = 'a2a-protocol.org';

export const JSON_RPC_ERRORS = {
  PARSE_ERROR: { code: -32700, reason: 'PARSE_ERROR', message: 'Parse error' },
  INVALID_REQUEST: { code: -32600, reason: 'INVALID_REQUEST', message: 'Invalid request' },
  METHOD_NOT_FOUND: { code: -32601, reason: 'METHOD_NOT_FOUND', message: 'Method not found' },
  INVALID_PARAMS: { code: -32602, reason: 'INVALID_PARAMS', message: 'Invalid params' },
  INTERNAL: { code: -32603, reason: 'INTERNAL', message: 'Internal error' },
  TASK_NOT_FOUND: { code: -32001, reason: 'TASK_NOT_FOUND', message: 'Task not found' },
  TASK_NOT_CANCELABLE: { code: -32002, reason: 'TASK_NOT_CANCELABLE', message: 'Task cannot be canceled' },
  PUSH_NOTIFICATION_NOT_SUPPORTED: {
    code: -32003,
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    message: 'Push notifications are not supported',
  },
  UNSUPPORTED_OPERATION: { code: -32004, reason: 'UNSUPPORTED_OPERATION', message: 'This operation is not supported' },
  CONTENT_TYPE_NOT_SUPPORTED: {
    code: -32005,
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
    message: 'Incompatible content types',
  },
  INVALID_AGENT_RESPONSE: { code: -32006, reason: 'INVALID_AGENT_RESPONSE', message: 'Invalid agent response' },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: {
    code: -32007,
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    message: 'Extended agent card is not configured',
  },
  EXTENSION_SUPPORT_REQUIRED: {
    code: -32008,
    reason: 'EXTENSION_SUPPORT_REQUIRED',
    message: 'A required extension is not supported by the client',
  },
  VERSION_NOT_SUPPORTED: { code: -32009, reason: 'VERSION_NOT_SUPPORTED', message: 'Protocol version not supported' },
  /** RFC (proposed): the task's state does not allow the operation. */
  INVALID_TASK_STATE: {
    code: -32010,
    reason: 'INVALID_TASK_STATE',
    message: 'Task state does not allow this operation',
  },
  /** RFC (proposed): the resume token is not the current pause's token, or was consumed. */
  RESUME_TOKEN_MISMATCH: {
    code: -32011,
    reason: 'RESUME_TOKEN_MISMATCH',
    message: 'Resume token does not match the current suspension',
  },
} as const;

export type JsonRpcErrorName = keyof typeof JSON_RPC_ERRORS;
export type JsonRpcErrorCode = (typeof JSON_RPC_ERRORS)[JsonRpcErrorName]['code'];

export interface ErrorInfo {
  '@type': typeof ERROR_INFO_TYPE;
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

const BY_CODE = new Map<number, JsonRpcErrorName>(
  Object.entries(JSON_RPC_ERRORS).map(([name, e]) => [e.code, name as JsonRpcErrorName]),
);

/** The table entry for a numeric code, if it is one of ours. */
export function errorNameForCode(code: number): JsonRpcErrorName | undefined {
  return BY_CODE.get(code);
}

/** Builds the JSON-RPC `error` member with its ErrorInfo; `message` defaults to the table's. */
export function jsonRpcError(
  name: JsonRpcErrorName,
  message?: string,
  metadata?: Record<string, string>,
): JsonRpcErrorObject & { data: ErrorInfo[] } {
  const entry = JSON_RPC_ERRORS[name];
  const info: ErrorInfo = { '@type': ERROR_INFO_TYPE, reason: entry.reason, domain: ERROR_DOMAIN };
  if (metadata && Object.keys(metadata).length > 0) info.metadata = metadata;
  return { code: entry.code, message: message ?? entry.message, data: [info] };
}

/** The ErrorInfo reason inside a JSON-RPC error's `data[]`, if present. */
export function errorInfoReason(error: JsonRpcErrorObject): string | undefined {
  if (!Array.isArray(error.data)) return undefined;
  for (const item of error.data as unknown[]) {
    if (item !== null && typeof item === 'object' && (item as JsonObject)['@type'] === ERROR_INFO_TYPE) {
      const reason = (item as JsonObject).reason;
      if (typeof reason === 'string') return reason;
    }
  }
  return undefined;
}
