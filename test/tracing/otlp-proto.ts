/**
 * Decodes an OTLP/HTTP protobuf ExportTraceServiceRequest, as a collector does, into the shape
 * of the OTLP JSON encoding (hex ids, nanosecond strings), so tests can read spans, links and
 * attributes and compare against the transformer's own JSON serializer.
 *
 * Wire reading is the transformer's ProtobufReader; the field numbers below are those of the
 * official schema (opentelemetry-proto: collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
 * common/v1/common.proto, resource/v1/resource.proto). The 0.223 transformer ships no generated
 * code and no protobufjs, so the schema is written out here, field by field.
 */
import { ProtobufReader } from '@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-reader.js';

const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;

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
  flags?: number;
}
export interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  traceState?: string;
  parentSpanId?: string;
  flags?: number;
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
    scopeSpans?: { scope?: { name?: string; version?: string; attributes?: OtlpKeyValue[] }; spans?: OtlpSpan[]; schemaUrl?: string }[];
    schemaUrl?: string;
  }[];
}

function message<T extends object>(bytes: Uint8Array, handlers: Record<number, (reader: ProtobufReader, wireType: number, out: T) => void>, out: T): T {
  const reader = new ProtobufReader(bytes);
  while (!reader.isAtEnd()) {
    const { fieldNumber, wireType } = reader.readTag();
    const handler = handlers[fieldNumber];
    if (handler) handler(reader, wireType, out);
    else reader.skip(wireType);
  }
  return out;
}

function view(reader: ProtobufReader, size: number): DataView {
  const bytes = (reader as unknown as { _buf: Uint8Array })._buf;
  return new DataView(bytes.buffer, bytes.byteOffset + reader.pos, size);
}

function fixed64(reader: ProtobufReader): string {
  const value = view(reader, 8).getBigUint64(0, true);
  reader.skip(FIXED64);
  return value.toString();
}

function fixed32(reader: ProtobufReader): number {
  const value = view(reader, 4).getUint32(0, true);
  reader.skip(FIXED32);
  return value;
}

function double(reader: ProtobufReader): number {
  const value = view(reader, 8).getFloat64(0, true);
  reader.skip(FIXED64);
  return value;
}

const hex = (reader: ProtobufReader): string => Buffer.from(reader.readBytes()).toString('hex');
const push = <T>(list: T[] | undefined, item: T): T[] => [...(list ?? []), item];
const expect = (wireType: number, wanted: number): void => {
  if (wireType !== wanted) throw new Error(`unexpected wire type ${wireType}, wanted ${wanted}`);
};

function anyValue(bytes: Uint8Array): OtlpAnyValue {
  return message<OtlpAnyValue>(
    bytes,
    {
      1: (r, _w, o) => (o.stringValue = r.readString()),
      2: (r, _w, o) => (o.boolValue = r.readVarint() !== 0),
      3: (r, _w, o) => (o.intValue = r.readVarint()),
      4: (r, w, o) => {
        expect(w, FIXED64);
        o.doubleValue = double(r);
      },
      5: (r, _w, o) => (o.arrayValue = message<{ values: OtlpAnyValue[] }>(r.readBytes(), { 1: (rr, _ww, oo) => oo.values.push(anyValue(rr.readBytes())) }, { values: [] })),
      6: (r, _w, o) => (o.kvlistValue = message<{ values: OtlpKeyValue[] }>(r.readBytes(), { 1: (rr, _ww, oo) => oo.values.push(keyValue(rr.readBytes())) }, { values: [] })),
      7: (r, _w, o) => (o.bytesValue = Buffer.from(r.readBytes()).toString('base64')),
    },
    {},
  );
}

function keyValue(bytes: Uint8Array): OtlpKeyValue {
  return message<OtlpKeyValue>(
    bytes,
    {
      1: (r, _w, o) => (o.key = r.readString()),
      2: (r, _w, o) => (o.value = anyValue(r.readBytes())),
    },
    { key: '', value: {} },
  );
}

function link(bytes: Uint8Array): OtlpLink {
  return message<OtlpLink>(
    bytes,
    {
      1: (r, _w, o) => (o.traceId = hex(r)),
      2: (r, _w, o) => (o.spanId = hex(r)),
      3: (r, _w, o) => (o.traceState = r.readString()),
      4: (r, _w, o) => (o.attributes = push(o.attributes, keyValue(r.readBytes()))),
      5: (r, _w, o) => (o.droppedAttributesCount = r.readVarint()),
      6: (r, w, o) => {
        expect(w, FIXED32);
        o.flags = fixed32(r);
      },
    },
    {},
  );
}

function span(bytes: Uint8Array): OtlpSpan {
  return message<OtlpSpan>(
    bytes,
    {
      1: (r, _w, o) => (o.traceId = hex(r)),
      2: (r, _w, o) => (o.spanId = hex(r)),
      3: (r, _w, o) => (o.traceState = r.readString()),
      4: (r, _w, o) => (o.parentSpanId = hex(r)),
      5: (r, _w, o) => (o.name = r.readString()),
      6: (r, _w, o) => (o.kind = r.readVarint()),
      7: (r, w, o) => {
        expect(w, FIXED64);
        o.startTimeUnixNano = fixed64(r);
      },
      8: (r, w, o) => {
        expect(w, FIXED64);
        o.endTimeUnixNano = fixed64(r);
      },
      9: (r, _w, o) => (o.attributes = push(o.attributes, keyValue(r.readBytes()))),
      10: (r, _w, o) => (o.droppedAttributesCount = r.readVarint()),
      11: (r, _w, o) => (o.events = push(o.events, r.readBytes())),
      12: (r, _w, o) => (o.droppedEventsCount = r.readVarint()),
      13: (r, _w, o) => (o.links = push(o.links, link(r.readBytes()))),
      14: (r, _w, o) => (o.droppedLinksCount = r.readVarint()),
      15: (r, _w, o) =>
        (o.status = message<{ message?: string; code?: number }>(
          r.readBytes(),
          { 2: (rr, _ww, oo) => (oo.message = rr.readString()), 3: (rr, _ww, oo) => (oo.code = rr.readVarint()) },
          {},
        )),
      16: (r, w, o) => {
        expect(w, FIXED32);
        o.flags = fixed32(r);
      },
    },
    {},
  );
}

type ResourceSpans = NonNullable<OtlpTraceRequest['resourceSpans']>[number];
type ScopeSpans = NonNullable<ResourceSpans['scopeSpans']>[number];

/** Decodes the body of a `POST /v1/traces` with `content-type: application/x-protobuf`. */
export function decodeTraceRequest(bytes: Uint8Array): OtlpTraceRequest {
  return message<OtlpTraceRequest>(
    bytes,
    {
      1: (r, w, o) => {
        expect(w, LEN);
        const resourceSpans = message<ResourceSpans>(
          r.readBytes(),
          {
            1: (rr, _ww, oo) =>
              (oo.resource = message<NonNullable<ResourceSpans['resource']>>(
                rr.readBytes(),
                {
                  1: (x, _y, z) => (z.attributes = push(z.attributes, keyValue(x.readBytes()))),
                  2: (x, _y, z) => (z.droppedAttributesCount = x.readVarint()),
                },
                {},
              )),
            2: (rr, _ww, oo) =>
              (oo.scopeSpans = push(
                oo.scopeSpans,
                message<ScopeSpans>(
                  rr.readBytes(),
                  {
                    1: (x, _y, z) =>
                      (z.scope = message<NonNullable<ScopeSpans['scope']>>(
                        x.readBytes(),
                        {
                          1: (a, _b, c) => (c.name = a.readString()),
                          2: (a, _b, c) => (c.version = a.readString()),
                          3: (a, _b, c) => (c.attributes = push(c.attributes, keyValue(a.readBytes()))),
                        },
                        {},
                      )),
                    2: (x, _y, z) => (z.spans = push(z.spans, span(x.readBytes()))),
                    3: (x, _y, z) => (z.schemaUrl = x.readString()),
                  },
                  {},
                ),
              )),
            3: (rr, _ww, oo) => (oo.schemaUrl = rr.readString()),
          },
          {},
        );
        o.resourceSpans = push(o.resourceSpans, resourceSpans);
      },
    },
    {},
  );
}

/** Every span in a request, flattened. */
export function spansOf(request: OtlpTraceRequest): OtlpSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []));
}

/** A span's attributes as a plain object (string/bool/int/double values). */
export function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, string | number | boolean | undefined> {
  const out: Record<string, string | number | boolean | undefined> = {};
  for (const { key, value } of list ?? []) out[key] = value.stringValue ?? value.boolValue ?? value.intValue ?? value.doubleValue;
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
    if (!ANY_VALUE_KEYS.has(key) && (item === undefined || item === 0 || item === '' || (Array.isArray(item) && item.length === 0))) continue;
    out[key] = withoutDefaults(item);
  }
  return out;
}
