/**
 * @module receipts/receipt-log-records
 * Receipt-log lines as OTLP log records and back (docs/design.md §6, "Receipts through the
 * telemetry pipeline"). Each line, the header included, becomes one record whose body is the line
 * as written and whose attributes say what it is (type, task id, hash, kid, the log's origin, seq,
 * and its index in the log). Read back from an OpenTelemetry collector's `file` exporter output
 * (OTLP JSON, one export request a line), the records of each origin are put back in index order
 * into the log's lines, which then verify as the log does: the body is the signed line itself.
 */
import { A2aReplayError } from '../errors.js';
import {
  ATTR_RECEIPT_HASH,
  ATTR_RECEIPT_KID,
  ATTR_RECEIPT_LOG_INDEX,
  ATTR_RECEIPT_LOG_ORIGIN,
  ATTR_RECEIPT_SEQ,
  ATTR_RECEIPT_TYPE,
  ATTR_TASK_ID,
} from './receipt-attributes.js';
import type { SealedLine } from './chain.js';
import { logOrigin } from './log-tree.js';

/** One record to emit: the line as written, and its attributes. */
export interface ReceiptRecord {
  body: string;
  attributes: Record<string, string | number>;
}

/** Maps a log's lines, in file order from the header on, to records. */
export class ReceiptRecordMapper {
  #origin = '';
  #checkpointKid = '';
  #index = 0;

  map(sealed: SealedLine): ReceiptRecord {
    const line = sealed.line;
    const attributes: Record<string, string | number> = {
      [ATTR_RECEIPT_TYPE]: line.type,
      [ATTR_RECEIPT_HASH]: sealed.hash,
      [ATTR_RECEIPT_LOG_INDEX]: this.#index++,
    };
    switch (line.type) {
      case 'ReceiptLog':
        this.#checkpointKid = line.checkpoint.kid;
        this.#origin = logOrigin(line.checkpoint.kid, line.recording, sealed.hash, line.series ?? null);
        attributes[ATTR_RECEIPT_KID] = this.#checkpointKid;
        break;
      case 'SuspensionReceipt':
      case 'ResumptionReceipt':
      case 'InterruptionReceipt':
      case 'ContinuationReceipt':
        attributes[ATTR_TASK_ID] = line.taskId;
        attributes[ATTR_RECEIPT_KID] = line.sig.kid;
        attributes[ATTR_RECEIPT_SEQ] = line.seq;
        break;
      case 'Checkpoint':
        attributes[ATTR_RECEIPT_KID] = this.#checkpointKid;
        break;
      default: {
        const never: never = line;
        throw new Error(`unknown line ${JSON.stringify(never)}`);
      }
    }
    attributes[ATTR_RECEIPT_LOG_ORIGIN] = this.#origin;
    return { body: sealed.text, attributes };
  }
}

/** True when `firstLine` (a file's first line) is an OTLP JSON export request of log records. */
export function isCollectorLogExport(firstLine: string): boolean {
  if (!firstLine.startsWith('{')) return false;
  try {
    const value = JSON.parse(firstLine) as unknown;
    return typeof value === 'object' && value !== null && 'resourceLogs' in value;
  } catch {
    return false;
  }
}

interface OtlpJsonValue {
  stringValue?: string;
  intValue?: number | string;
}
interface OtlpJsonRecord {
  body?: OtlpJsonValue;
  attributes?: { key?: string; value?: OtlpJsonValue }[];
}
interface OtlpJsonRequest {
  resourceLogs?: { scopeLogs?: { logRecords?: OtlpJsonRecord[] }[] }[];
}

function invalid(problem: string): A2aReplayError {
  return new A2aReplayError('INVALID_ARGUMENT', problem);
}

/**
 * The receipt logs in a collector's file export: origin → the log's lines in index order. A record
 * without the receipt attributes is not ours and is skipped; the same index twice must carry the
 * same line (an export retried), else the file is refused, as is a log with a missing index.
 */
export function logsFromCollectorExport(text: string, source: string): Map<string, string[]> {
  const byOrigin = new Map<string, Map<number, string>>();
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    let request: OtlpJsonRequest;
    try {
      request = JSON.parse(raw) as OtlpJsonRequest;
    } catch {
      throw invalid(`${source}:${i + 1}: not an OTLP JSON export line`);
    }
    for (const resource of request.resourceLogs ?? [])
      for (const scope of resource.scopeLogs ?? [])
        for (const record of scope.logRecords ?? []) {
          const attrs = new Map((record.attributes ?? []).map((a) => [a.key, a.value] as const));
          const origin = attrs.get(ATTR_RECEIPT_LOG_ORIGIN)?.stringValue;
          const index = Number(attrs.get(ATTR_RECEIPT_LOG_INDEX)?.intValue);
          const body = record.body?.stringValue;
          if (origin === undefined || !Number.isSafeInteger(index) || index < 0 || body === undefined) continue;
          const lines = byOrigin.get(origin) ?? new Map<number, string>();
          byOrigin.set(origin, lines);
          const seen = lines.get(index);
          if (seen !== undefined && seen !== body)
            throw invalid(`${source}:${i + 1}: two different lines ${index} of ${origin}`);
          lines.set(index, body);
        }
  }
  const logs = new Map<string, string[]>();
  for (const [origin, lines] of byOrigin) {
    const ordered: string[] = [];
    for (let index = 0; index < lines.size; index++) {
      const line = lines.get(index);
      if (line === undefined) throw invalid(`${source}: line ${index} of ${origin} is missing from the export`);
      ordered.push(line);
    }
    logs.set(origin, ordered);
  }
  return logs;
}
