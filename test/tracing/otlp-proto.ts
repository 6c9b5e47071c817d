/**
 * Decodes an OTLP/HTTP protobuf ExportTraceServiceRequest, as a collector does, into the shape
 * of the OTLP JSON encoding (hex ids, nanosecond strings), so tests can read spans, links and
 * attributes and compare against the transformer's own JSON serializer.
 *
 * Decoding is the official schema's generated code: the protobufjs static module compiled from
 * opentelemetry-proto that `@opentelemetry/otlp-transformer@0.57` ships (installed under the
 * alias `otlp-proto-schema`, a test-only dependency; the 0.223 line no longer ships it).
 */
import { createRequire } from 'node:module';

interface ProtoType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
}
interface GeneratedRoot {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoType } } } } };
}

const generated = createRequire(import.meta.url)('otlp-proto-schema/build/src/generated/root.js') as GeneratedRoot;
const ExportTraceServiceRequest = generated.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number;
  doubleValue?: number;
  arrayValue?: { values: OtlpAnyValue[] };
  kvlistValue?: { values: OtlpKeyValue[] };
  bytesValue?: string;
}
export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}
export interface OtlpLink {
  traceId?: string;
  spanId?: string;
  traceState?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
}
export interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  traceState?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  events?: unknown[];
  droppedEventsCount?: number;
  links?: OtlpLink[];
  droppedLinksCount?: number;
  status?: { message?: string; code?: number };
}
export interface OtlpTraceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[]; droppedAttributesCount?: number };
    scopeSpans?: {
      scope?: { name?: string; version?: string; attributes?: OtlpKeyValue[] };
      spans?: OtlpSpan[];
      schemaUrl?: string;
    }[];
    schemaUrl?: string;
  }[];
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** base64 ids (protobufjs `bytes: String`) to the hex of the OTLP JSON encoding; int64 values to numbers. */
function toJsonShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toJsonShape);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (ID_FIELDS.has(key) && typeof v === 'string') out[key] = Buffer.from(v, 'base64').toString('hex');
    else if (key === 'intValue' && typeof v === 'string') out[key] = Number(v);
    else out[key] = toJsonShape(v);
  }
  return out;
}

/** The request, decoded by the generated OTLP code, in the OTLP JSON shape. */
export function decodeTraceRequest(bytes: Uint8Array): OtlpTraceRequest {
  const message = ExportTraceServiceRequest.decode(bytes);
  const object = ExportTraceServiceRequest.toObject(message, {
    longs: String,
    bytes: String,
    defaults: false,
    arrays: false,
  });
  return toJsonShape(object) as OtlpTraceRequest;
}

export function spansOf(request: OtlpTraceRequest): OtlpSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []));
}

/** A span's attributes as a plain object (string/bool/int/double values). */
export function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, string | number | boolean | undefined> {
  const out: Record<string, string | number | boolean | undefined> = {};
  for (const { key, value } of list ?? [])
    out[key] = value.stringValue ?? value.boolValue ?? value.intValue ?? value.doubleValue;
  return out;
}

const ANY_VALUE_KEYS = new Set(['stringValue', 'boolValue', 'intValue', 'doubleValue']);

/**
 * Drops what proto3 does not put on the wire (zeros, empty strings and lists, undefined), so a
 * decoded request compares equal to the JSON encoding of the same spans.
 */
export function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (
      !ANY_VALUE_KEYS.has(key) &&
      (item === undefined || item === 0 || item === '' || (Array.isArray(item) && item.length === 0))
    )
      continue;
    out[key] = withoutDefaults(item);
  }
  return out;
}
