/**
 * @module record/tls-files
 * A recorder's TLS files (docs/design.md §5, §16): `upstreamCa`, the CAs trusted for an
 * `https://` upstream's certificate (HTTP and gRPC), and `tlsCert` with `tlsKey`, which make the
 * record port serve TLS. Each file is read and checked before the recorder starts; a bad one is a
 * {@link RecorderOptionError} naming its option and file, never its contents (a key stays out of
 * every message).
 */
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { ServedTls } from '../intercept/recording-proxy.js';
import type { UpstreamTls } from '../intercept/upstream.js';
import { RecorderOptionError } from './option-error.js';

/** PEM files, by path. */
export interface RecorderTlsFiles {
  upstreamCa?: string | undefined;
  tlsCert?: string | undefined;
  tlsKey?: string | undefined;
}

/** The file at `file` for `option`; an error naming both when it cannot be read. */
async function readOption(option: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RecorderOptionError(option, `cannot read ${file}${code === undefined ? '' : ` (${code})`}`);
  }
}

/** Why OpenSSL refused a file, by its code alone: its message may quote what it read. */
function refusal(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'OpenSSL refused it';
}

/** The upstream's trusted CAs and the certificate the record port serves, read and checked. */
export async function readRecordTls(options: RecorderTlsFiles): Promise<{ upstream: UpstreamTls; serve?: ServedTls }> {
  const upstream: UpstreamTls = {};
  if (options.upstreamCa !== undefined) {
    const ca = await readOption('upstreamCa', options.upstreamCa);
    if (!ca.toString('latin1').includes('-----BEGIN CERTIFICATE-----'))
      throw new RecorderOptionError('upstreamCa', `${options.upstreamCa} holds no PEM certificate`);
    try {
      createSecureContext({ ca });
    } catch (error) {
      throw new RecorderOptionError(
        'upstreamCa',
        `${options.upstreamCa} is not PEM CA certificates (${refusal(error)})`,
      );
    }
    upstream.ca = ca;
  }
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined))
    throw new RecorderOptionError(
      options.tlsCert === undefined ? 'tlsKey' : 'tlsCert',
      'give `tlsCert` and `tlsKey` together',
    );
  if (options.tlsCert === undefined || options.tlsKey === undefined) return { upstream };
  const cert = await readOption('tlsCert', options.tlsCert);
  const key = await readOption('tlsKey', options.tlsKey);
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new RecorderOptionError(
      ['tlsCert', 'tlsKey'],
      `${options.tlsCert} and ${options.tlsKey} are not a PEM certificate and its private key ` + `(${refusal(error)})`,
    );
  }
  return { upstream, serve: { cert, key } };
}
