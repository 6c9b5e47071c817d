/**
 * An OTLP/HTTP logs receiver on 127.0.0.1 for tests: it decodes each ExportLogsServiceRequest as a
 * collector does, with the generated code of the official schema (`otlp-proto-schema`, the
 * protobufjs module `@opentelemetry/otlp-transformer@0.57` ships; see test/tracing/otlp-proto.ts),
 * into the OTLP JSON shape a collector's `file` exporter writes (int64 values as decimal strings,
 * ids as hex). It can be started on a port that was closed before, to play a collector that comes back.
 */
import { createRequire } from 'node:module';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ProtoType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
}
interface GeneratedRoot {
  opentelemetry: { proto: { collector: { logs: { v1: { ExportLogsServiceRequest: ProtoType } } } } };
}

const generated = createRequire(import.meta.url)('otlp-proto-schema/build/src/generated/root.js') as GeneratedRoot;
const ExportLogsServiceRequest = generated.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;

export interface OtlpLogRecord {
  body?: { stringValue?: string };
  attributes?: { key: string; value: { stringValue?: string; intValue?: string } }[];
  timeUnixNano?: string;
}
export interface OtlpLogsRequest {
  resourceLogs?: { scopeLogs?: { logRecords?: OtlpLogRecord[] }[] }[];
}

const ID_FIELDS = new Set(['traceId', 'spanId']);

function toJsonShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toJsonShape);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>))
    out[key] = ID_FIELDS.has(key) && typeof v === 'string' ? Buffer.from(v, 'base64').toString('hex') : toJsonShape(v);
  return out;
}

export function decodeLogsRequest(bytes: Uint8Array): OtlpLogsRequest {
  const message = ExportLogsServiceRequest.decode(bytes);
  return toJsonShape(
    ExportLogsServiceRequest.toObject(message, { longs: String, bytes: String, defaults: false, arrays: false }),
  ) as OtlpLogsRequest;
}

export function logRecordsOf(request: OtlpLogsRequest): OtlpLogRecord[] {
  return (request.resourceLogs ?? []).flatMap((r) => (r.scopeLogs ?? []).flatMap((s) => s.logRecords ?? []));
}

export function recordAttributes(record: OtlpLogRecord): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const { key, value } of record.attributes ?? []) out[key] = value.stringValue ?? value.intValue;
  return out;
}

export interface LogsReceiver {
  url: string;
  port: number;
  requests: OtlpLogsRequest[];
  close(): Promise<void>;
}

/** Starts a receiver on `port` (0: any free one); `requests` collects what it decoded. */
export async function startLogsReceiver(port = 0, requests: OtlpLogsRequest[] = []): Promise<LogsReceiver> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/logs') {
        response.writeHead(404).end();
        return;
      }
      requests.push(decodeLogsRequest(Buffer.concat(chunks)));
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
