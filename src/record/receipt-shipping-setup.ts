/**
 * @module record/receipt-shipping-setup
 * Ships every receipt-log line (header, receipts, checkpoints) as an OTLP log record over
 * OTLP/HTTP protobuf (docs/design.md §6, "Receipts through the telemetry pipeline"): the OTel
 * logs SDK with {@link ReceiptLogProcessor}, which never samples or drops a record: it batches,
 * and keeps a batch the collector did not take until it does (a doubling retry, said once per
 * outage). The receipt log file is the source of truth: shipping starts from a line once it is
 * durable there, and a collector outage costs the collector records, never a line of the file.
 */
import { SeverityNumber } from '@opentelemetry/api-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  LoggerProvider,
  type LogRecordExporter,
  type LogRecordProcessor,
  type ReadableLogRecord,
  type SdkLogRecord,
} from '@opentelemetry/sdk-logs';
import { errorMessage } from '../errors.js';
import { ReceiptRecordMapper } from '../receipts/receipt-log-records.js';
import { redactUrl } from '../recording/redaction.js';
import type { SealedLine } from '../receipts/chain.js';
import type { RecorderWarn } from './warnings.js';

/** Records per export request. */
const BATCH = 512;
/** How long a record waits for others to share its request. */
const BATCH_DELAY_MS = 200;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
/** Export attempts at shutdown before what is left is given up. */
const SHUTDOWN_ATTEMPTS = 3;

/**
 * Batches records and exports them in order; a failed batch stays at the head of the queue and is
 * tried again after a doubling delay, so a collector that comes back gets every record.
 */
export class ReceiptLogProcessor implements LogRecordProcessor {
  readonly #exporter: LogRecordExporter;
  readonly #say: (line: string) => void;
  readonly #url: string;
  #queue: ReadableLogRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #exporting: Promise<boolean> | null = null;
  #failures = 0;
  #outage = false;
  shipped = 0;

  constructor(exporter: LogRecordExporter, url: string, say: (line: string) => void) {
    this.#exporter = exporter;
    this.#url = url;
    this.#say = say;
  }

  onEmit(record: SdkLogRecord): void {
    this.#queue.push(record);
    if (this.#failures === 0) this.#schedule(this.#queue.length >= BATCH ? 0 : BATCH_DELAY_MS);
  }

  #schedule(ms: number): void {
    if (this.#timer !== undefined || this.#exporting) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#exportHead();
    }, ms).unref();
  }

  /** Exports the head of the queue; true when it went. */
  #exportHead(): Promise<boolean> {
    if (this.#exporting) return this.#exporting;
    if (this.#queue.length === 0) return Promise.resolve(true);
    const batch = this.#queue.slice(0, BATCH);
    this.#exporting = new Promise<ExportResult>((resolve) => this.#exporter.export(batch, resolve)).then((result) => {
      this.#exporting = null;
      if (result.code === ExportResultCode.SUCCESS) {
        this.#queue.splice(0, batch.length);
        this.shipped += batch.length;
        this.#failures = 0;
        if (this.#outage) this.#say(`otlp-logs: ${redactUrl(this.#url)} takes records again`);
        this.#outage = false;
        if (this.#queue.length > 0) this.#schedule(0);
        return true;
      }
      this.#failures++;
      if (!this.#outage)
        this.#say(
          `otlp-logs: ${redactUrl(this.#url)} did not take receipt records (${errorMessage(result.error)}): ` +
            'kept and retried; the receipt log file is complete without them',
        );
      this.#outage = true;
      this.#schedule(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(this.#failures - 1, 16)));
      return false;
    });
    return this.#exporting;
  }

  async forceFlush(): Promise<void> {
    for (let attempt = 0; attempt < SHUTDOWN_ATTEMPTS && this.#queue.length > 0;) {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      if (!(await this.#exportHead())) attempt++;
    }
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#queue.length > 0)
      this.#say(
        `otlp-logs: ${this.#queue.length} receipt records not shipped to ${redactUrl(this.#url)}; ` +
          'the receipt log file holds every one of them',
      );
    await this.#exporter.shutdown();
  }
}

/** What a recorder holds of the shipping. */
export interface ReceiptShipping {
  url: string;
  onDurable(lines: readonly SealedLine[]): void;
  /** Ships what is left (a few tries), says what could not be, and stops. Never rejects. */
  shutdown(): Promise<void>;
}

/** Line times for the records: a receipt's `observedAt`, the header's `createdAt`. */
function lineTime(line: Record<string, unknown>): number | undefined {
  const at = line['observedAt'] ?? line['createdAt'];
  const ms = typeof at === 'string' ? Date.parse(at) : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** Ships to `url`, each export (retries included) given up to `timeoutMs`. */
export function setupReceiptShipping(url: string, say: RecorderWarn, timeoutMs: number): ReceiptShipping {
  const processor = new ReceiptLogProcessor(new OTLPLogExporter({ url, timeoutMillis: timeoutMs }), url, say);
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'a2a-replay' }),
    processors: [processor],
  });
  const logger = provider.getLogger('a2a-replay');
  const mapper = new ReceiptRecordMapper();
  return {
    url,
    onDurable(lines) {
      for (const sealed of lines) {
        const record = mapper.map(sealed);
        const time = lineTime(sealed.line as unknown as Record<string, unknown>);
        logger.emit({
          body: record.body,
          attributes: record.attributes,
          severityNumber: SeverityNumber.INFO,
          ...(time === undefined ? {} : { timestamp: time }),
        });
      }
    },
    async shutdown() {
      try {
        await provider.shutdown();
      } catch (error) {
        say(`otlp-logs: ${errorMessage(error)}`);
      }
    },
  };
}
