/**
 * @module cli/receipt-logs-options
 * Where `record` ships its receipt-log lines as OTLP log records (docs/design.md §6, "Receipts
 * through the telemetry pipeline"), without loading the OpenTelemetry logs SDK:
 * cli/receipt-logs-setup.ts is imported only when a URL is given.
 */
import type { ReceiptShipping } from './receipt-logs-setup.js';

/** `--otlp-logs URL` (a base URL gets `/v1/logs`), else OTEL_EXPORTER_OTLP_LOGS_ENDPOINT as is, else none. */
export function resolveOtlpLogsUrl(option: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (option !== undefined && option.trim() !== '') {
    const trimmed = option.trim().replace(/\/+$/, '');
    return trimmed.endsWith('/v1/logs') ? trimmed : `${trimmed}/v1/logs`;
  }
  const logs = env['OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'];
  return logs !== undefined && logs.trim() !== '' ? logs.trim() : undefined;
}

/** The shipping `record` asked for, or undefined; loads the SDK only when there is a URL. */
export async function openReceiptShipping(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ReceiptShipping | undefined> {
  const url = resolveOtlpLogsUrl(option, env);
  if (url === undefined) return undefined;
  const { setupReceiptShipping } = await import('./receipt-logs-setup.js');
  return setupReceiptShipping(url);
}
