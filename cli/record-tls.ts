/**
 * @module cli/record-tls
 * `record`'s TLS options (docs/design.md §5, §16): `--upstream-ca FILE`, the CAs trusted for an
 * `https://` upstream's certificate (HTTP and gRPC), and `--tls-cert FILE --tls-key FILE`, which
 * make the record port serve TLS. Each file is read and checked before the recorder starts; a bad
 * one is a usage error naming its flag and file, never its contents (a key stays out of every
 * message).
 */
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { Command } from 'commander';
import type { ServedTls } from '../src/intercept/recording-proxy.js';
import type { UpstreamTls } from '../src/intercept/upstream.js';
import { CliExit, EXIT } from './io.js';

export interface RecordTlsOptions {
  upstreamCa?: string;
  tlsCert?: string;
  tlsKey?: string;
}

/** Adds `--grpc-upstream`, `--upstream-ca`, `--tls-cert` and `--tls-key` to `record`. */
export function withRecordTlsOptions(command: Command): Command {
  return command
    .option(
      '--grpc-upstream <target>',
      'where gRPC calls go: HOST:PORT, or https://HOST:PORT over TLS (default: the GRPC interface of the ' +
        "upstream's agent card, else the upstream's host and port; over TLS when --upstream is https://)",
    )
    .option(
      '--upstream-ca <file>',
      "PEM CA certificates trusted (instead of the system's) for an https:// upstream, HTTP and gRPC",
    )
    .option('--tls-cert <file>', 'serve TLS on the record port with this PEM certificate chain (with --tls-key)')
    .option('--tls-key <file>', "that certificate's PEM private key");
}

/** The file at `file` for `flag`; a usage error naming both when it cannot be read. */
async function readOption(flag: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliExit(EXIT.usage, `${flag}: cannot read ${file}${code === undefined ? '' : ` (${code})`}`);
  }
}

/** Why OpenSSL refused a file, by its code alone: its message may quote what it read. */
function refusal(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'OpenSSL refused it';
}

/** The upstream's trusted CAs and the certificate the record port serves, read and checked. */
export async function readRecordTls(options: RecordTlsOptions): Promise<{ upstream: UpstreamTls; serve?: ServedTls }> {
  const upstream: UpstreamTls = {};
  if (options.upstreamCa !== undefined) {
    const ca = await readOption('--upstream-ca', options.upstreamCa);
    if (!ca.toString('latin1').includes('-----BEGIN CERTIFICATE-----'))
      throw new CliExit(EXIT.usage, `--upstream-ca: ${options.upstreamCa} holds no PEM certificate`);
    try {
      createSecureContext({ ca });
    } catch (error) {
      throw new CliExit(
        EXIT.usage,
        `--upstream-ca: ${options.upstreamCa} is not PEM CA certificates (${refusal(error)})`,
      );
    }
    upstream.ca = ca;
  }
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined))
    throw new CliExit(
      EXIT.usage,
      `${options.tlsCert === undefined ? '--tls-key' : '--tls-cert'}: give --tls-cert and --tls-key together`,
    );
  if (options.tlsCert === undefined || options.tlsKey === undefined) return { upstream };
  const cert = await readOption('--tls-cert', options.tlsCert);
  const key = await readOption('--tls-key', options.tlsKey);
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new CliExit(
      EXIT.usage,
      `--tls-cert, --tls-key: ${options.tlsCert} and ${options.tlsKey} are not a PEM certificate and its private key ` +
        `(${refusal(error)})`,
    );
  }
  return { upstream, serve: { cert, key } };
}
