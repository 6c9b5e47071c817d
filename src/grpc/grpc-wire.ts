/**
 * @module grpc/grpc-wire
 * How the recorder reads a gRPC call's bytes on the side (docs/design.md §16): the
 * length-prefixed messages of a DATA stream (1 byte compressed flag, 4 bytes big-endian length,
 * the message), a compressed message decoded by its `grpc-encoding`, a message decoded to
 * ProtoJSON with the method table (src/grpc/methods.ts), `grpc-timeout` in milliseconds,
 * `grpc-message` percent-decoded and `grpc-status-details-bin` as `google.rpc.Status` ProtoJSON
 * with its ErrorInfo. Nothing here changes a byte the call carries.
 */
import { type DescMessage, createRegistry, fromBinary, toJson } from '@bufbuild/protobuf';
import { gunzipSync, inflateSync } from 'node:zlib';
import type { JsonValue } from '../canonical/canonical-json.js';
import { errorMessage } from '../errors.js';
import { ErrorInfoSchema } from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';

/** One message of a gRPC stream: its bytes as framed, and whether the compressed flag was set. */
export interface GrpcFrame {
  compressed: boolean;
  message: Buffer;
}

/** The length prefix of each gRPC message. */
const PREFIX_BYTES = 5;

/**
 * Splits a DATA stream into its messages as its chunks arrive. A message announced over
 * `maxMessageBytes` is not kept: {@link push} throws, naming its size.
 */
export class GrpcFrameReader {
  readonly #maxMessageBytes: number;
  #pending: Buffer = Buffer.alloc(0);

  constructor(maxMessageBytes: number) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  /** The messages `chunk` completes, in order. */
  push(chunk: Buffer): GrpcFrame[] {
    this.#pending = this.#pending.byteLength === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const frames: GrpcFrame[] = [];
    while (this.#pending.byteLength >= PREFIX_BYTES) {
      const length = this.#pending.readUInt32BE(1);
      if (length > this.#maxMessageBytes) {
        throw new Error(`a message of ${length} bytes is over the ${this.#maxMessageBytes}-byte observation cap`);
      }
      if (this.#pending.byteLength < PREFIX_BYTES + length) break;
      frames.push({
        compressed: this.#pending[0] === 1,
        message: this.#pending.subarray(PREFIX_BYTES, PREFIX_BYTES + length),
      });
      this.#pending = this.#pending.subarray(PREFIX_BYTES + length);
    }
    return frames;
  }

  /** Bytes of a message that never completed, when the stream ended. */
  get leftover(): number {
    return this.#pending.byteLength;
  }
}

/** A message read: its ProtoJSON, or why it could not be read. */
export type MessageReading = { ok: true; json: JsonValue } | { ok: false; why: string };

/**
 * `frame` decoded with `schema`: a compressed message first decompressed with `encoding`
 * (`gzip`, `deflate`), within `maxBytes`.
 */
export function readGrpcMessage(
  frame: GrpcFrame,
  schema: DescMessage,
  encoding: string | undefined,
  maxBytes: number,
): MessageReading {
  let bytes = frame.message;
  if (frame.compressed) {
    const name = (encoding ?? 'identity').trim().toLowerCase();
    try {
      if (name === 'gzip') bytes = gunzipSync(bytes, { maxOutputLength: maxBytes });
      else if (name === 'deflate') bytes = inflateSync(bytes, { maxOutputLength: maxBytes });
      else return { ok: false, why: `grpc-encoding ${name} is not one the recorder decodes (gzip, deflate)` };
    } catch (error) {
      return { ok: false, why: `the ${name}-compressed message does not decompress: ${errorMessage(error)}` };
    }
  }
  try {
    return { ok: true, json: toJson(schema, fromBinary(schema, bytes)) as JsonValue };
  } catch (error) {
    return { ok: false, why: `the message is not a valid ${schema.typeName}: ${errorMessage(error)}` };
  }
}

const UNITS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000_001 };

/** `grpc-timeout` (`100m`, `5S`, ...) in milliseconds; undefined for a value that is not one. */
export function grpcTimeoutMs(value: string | undefined): number | undefined {
  const m = /^(\d{1,8})([HMSmun])$/.exec((value ?? '').trim());
  if (!m) return undefined;
  return Number(m[1]) * (UNITS[m[2] as string] as number);
}

/**
 * `ms` milliseconds as a `grpc-timeout` value (at most 8 digits and a unit): in milliseconds while
 * they fit, else in whole seconds, minutes or hours rounded up, so it is never shorter.
 */
export function grpcTimeoutValue(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  for (const [unit, size] of [
    ['m', 1],
    ['S', 1000],
    ['M', 60_000],
    ['H', 3_600_000],
  ] as const) {
    const count = Math.ceil(whole / size);
    if (count <= 99_999_999) return `${count}${unit}`;
  }
  return '99999999H';
}

/** `grpc-message` as sent (percent-encoded UTF-8), decoded; an escape that does not decode stays as it is. */
export function grpcMessageText(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/**
 * `text` as a `grpc-message` value: printable ASCII but `%` as it is, every other byte of its
 * UTF-8 percent-encoded (gRPC over HTTP/2, "Responses").
 */
export function grpcMessageHeader(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const DETAILS_REGISTRY = createRegistry(ErrorInfoSchema);

/**
 * `grpc-status-details-bin` (base64, padded or not) as `google.rpc.Status` ProtoJSON, its
 * ErrorInfo details expanded (`@type`, reason, domain, metadata); a value that does not decode is
 * `{undecodable: why}`, so the recording says so instead of dropping it.
 */
export function statusDetailsJson(value: string | Buffer): JsonValue {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'base64') : value;
  try {
    return toJson(StatusSchema, fromBinary(StatusSchema, bytes), { registry: DETAILS_REGISTRY }) as JsonValue;
  } catch (error) {
    return { undecodable: `grpc-status-details-bin is not a google.rpc.Status: ${errorMessage(error)}` };
  }
}
