/**
 * @module protocol/json-rpc
 * JSON-RPC 2.0 envelopes (request, notification, success, error) parsed from `unknown` into a
 * discriminated union. A malformed envelope is a -32600 with the offending field named.
 */
import type { JsonRpcErrorObject } from './errors.js';
import { type ParseResult, fail, isRecord, object, parseWith, string } from './read.js';

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  kind: 'request';
  id: JsonRpcId;
  method: string;
  params?: unknown;
}

export interface JsonRpcNotification {
  kind: 'notification';
  method: string;
  params?: unknown;
}

export interface JsonRpcSuccess {
  kind: 'success';
  id: JsonRpcId;
  result: unknown;
}

export interface JsonRpcFailure {
  kind: 'error';
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

function readId(value: unknown, field: string): JsonRpcId {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return fail(field, 'a string or a number', value);
}

function readParams(value: unknown): unknown {
  if (value !== undefined && (value === null || typeof value !== 'object')) {
    fail('params', 'an object or an array', value);
  }
  return value;
}

function readError(value: unknown): JsonRpcErrorObject {
  const error = object(value, 'error');
  if (typeof error.code !== 'number' || !Number.isInteger(error.code)) fail('error.code', 'an integer', error.code);
  const message = string(error.message, 'error.message');
  return error.data === undefined ? { code: error.code, message } : { code: error.code, message, data: error.data };
}

function readMessage(value: unknown): JsonRpcMessage {
  if (!isRecord(value)) fail('$', 'a JSON-RPC 2.0 object', value);
  if (value.jsonrpc !== '2.0') fail('jsonrpc', '"2.0"', value.jsonrpc);
  if ('method' in value) {
    const method = string(value.method, 'method');
    if (method.length === 0) fail('method', 'a non-empty string', method);
    const params = readParams(value.params);
    if (!('id' in value))
      return params === undefined ? { kind: 'notification', method } : { kind: 'notification', method, params };
    const id = readId(value.id, 'id');
    return params === undefined ? { kind: 'request', id, method } : { kind: 'request', id, method, params };
  }
  if ('error' in value) {
    if ('result' in value) fail('result', 'no result beside an error', value.result);
    const id = value.id === null ? null : readId(value.id, 'id');
    return { kind: 'error', id, error: readError(value.error) };
  }
  if ('result' in value) return { kind: 'success', id: readId(value.id, 'id'), result: value.result };
  return fail('$', 'a request (method), a result or an error', value);
}

/** Any JSON-RPC 2.0 message. */
export function parseJsonRpcMessage(value: unknown): ParseResult<JsonRpcMessage> {
  return parseWith(() => readMessage(value));
}

/** A request or notification, as a server receives it. Anything else names the field (→ -32600). */
export function parseJsonRpcRequest(value: unknown): ParseResult<JsonRpcRequest | JsonRpcNotification> {
  return parseWith(() => {
    const message = readMessage(value);
    if (message.kind !== 'request' && message.kind !== 'notification') fail('method', 'a method name', undefined);
    return message;
  });
}

/** A success or error response, as a client receives it. */
export function parseJsonRpcResponse(value: unknown): ParseResult<JsonRpcResponse> {
  return parseWith(() => {
    const message = readMessage(value);
    if (message.kind !== 'success' && message.kind !== 'error') fail('result', 'a result or an error', undefined);
    return message;
  });
}

export function successResponse(id: JsonRpcId, result: unknown): { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(
  id: JsonRpcId | null,
  error: JsonRpcErrorObject,
): { jsonrpc: '2.0'; id: JsonRpcId | null; error: JsonRpcErrorObject } {
  return { jsonrpc: '2.0', id, error };
}
