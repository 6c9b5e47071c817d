/**
 * @module cli/record-tls
 * `record`'s TLS options (docs/design.md §5, §16): `--upstream-ca FILE`, the CAs trusted for an
 * `https://` upstream's certificate (HTTP and gRPC), and `--tls-cert FILE --tls-key FILE`, which
 * make the record port serve TLS. The recorder reads and checks each file (src/record/tls-files.ts).
 */
import type { Command } from 'commander';

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
