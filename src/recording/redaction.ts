/**
 * @module recording/redaction
 * Secrets never reach a recording (docs/design.md §5): header values named in a redaction list are
 * replaced by `"[redacted sha256:<first 8 hex of sha256(value)>]"`, so two requests with the same
 * secret still compare equal without the secret being written.
 */
import { createHash } from 'node:crypto';

/** Header names redacted by default (lower-case). */
export const DEFAULT_REDACTED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
];

/** First 8 hex digits of SHA-256(UTF-8(value)). */
export function shortSha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 8);
}

/** The redacted form of one secret value. */
export function redactValue(value: string): string {
  return `[redacted sha256:${shortSha256(value)}]`;
}

/**
 * A copy of `headers` (lower-case names) with every header in `names` redacted.
 * `names` is matched case-insensitively.
 */
export function redactHeaders(
  headers: Readonly<Record<string, string>>,
  names: readonly string[] = DEFAULT_REDACTED_HEADERS,
): Record<string, string> {
  const secret = new Set(names.map((n) => n.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = secret.has(name.toLowerCase()) ? redactValue(value) : value;
  }
  return out;
}
