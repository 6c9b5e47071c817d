/**
 * @module cli/record-values
 * The values of `record`'s `--listen` and `--fsync` options, checked: a bad one is a usage error
 * naming its flag and what it got.
 */
import { FSYNC_POLICIES, type FsyncPolicy } from '../src/receipts/log-writer.js';
import { CliExit, EXIT } from './io.js';

/** `--listen HOST:PORT` or `PORT` (host 127.0.0.1); a bracketed IPv6 host is unbracketed. */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port > 65535) {
    throw new CliExit(EXIT.usage, `--listen: expected HOST:PORT or PORT; got ${JSON.stringify(text)}`);
  }
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '') || '127.0.0.1';
  return { host, port };
}

/** `--fsync always|batch|never`. */
export function fsyncPolicy(text: string): FsyncPolicy {
  const policy = FSYNC_POLICIES.find((p) => p === text);
  if (policy === undefined)
    throw new CliExit(EXIT.usage, `--fsync: expected one of ${FSYNC_POLICIES.join(', ')}; got ${JSON.stringify(text)}`);
  return policy;
}
