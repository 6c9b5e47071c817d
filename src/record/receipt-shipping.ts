/**
 * @module record/receipt-shipping
 * Where a recorder ships its receipt-log lines as OTLP log records (`otlpLogs`; docs/design.md
 * §6, "Receipts through the telemetry pipeline"), without loading the OpenTelemetry logs SDK:
 * src/record/receipt-shipping-setup.ts is imported only when a URL is given.
 */
import { resolveOtlpTimeoutMs } from '../tracing/tracing-options.js';
import type { ReceiptShipping } from './receipt-shipping-setup.js';
import type { RecorderWarn } from './warnings.js';

/** `otlpLogs` (a base URL gets `/v1/logs`), else OTEL_EXPORTER_OTLP_LOGS_ENDPOINT as is, else none. */
export function resolveOtlpLogsUrl(option: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (option !== undefined && option.trim() !== '') {
    const trimmed = option.trim().replace(/\/+$/, '');
    return trimmed.endsWith('/v1/logs') ? trimmed : `${trimmed}/v1/logs`;
  }
  const logs = env['OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'];
  return logs !== undefined && logs.trim() !== '' ? logs.trim() : undefined;
}

/**
 * The shipping asked for, or undefined; loads the SDK only when there is a URL. Each export may
 * take OTEL_EXPORTER_OTLP_LOGS_TIMEOUT, else OTEL_EXPORTER_OTLP_TIMEOUT, else 10,000 ms.
 */
export async function openReceiptShipping(
  option: string | undefined,
  env: NodeJS.ProcessEnv,
  warn: RecorderWarn,
): Promise<ReceiptShipping | undefined> {
  const url = resolveOtlpLogsUrl(option, env);
  if (url === undefined) return undefined;
  const timeoutMs = resolveOtlpTimeoutMs('logs', env, 10_000, warn);
  const { setupReceiptShipping } = await import('./receipt-shipping-setup.js');
  return setupReceiptShipping(url, warn, timeoutMs);
}
