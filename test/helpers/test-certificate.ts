/**
 * A throwaway self-signed certificate for TLS tests, made at test time by the `openssl` binary:
 * an EC P-256 key and a certificate for 127.0.0.1 and localhost, valid for a day, written into a
 * directory the test owns. It is its own CA: a client trusts it by naming the certificate as its CA.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCertificate {
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
}

/** Makes a certificate and key named `name` in `dir`; throws naming openssl's complaint if it cannot. */
export function makeTestCertificate(dir: string, name = 'test'): TestCertificate {
  const certFile = join(dir, `${name}.cert.pem`);
  const keyFile = join(dir, `${name}.key.pem`);
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      `/CN=${name} test certificate`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0)
    throw new Error(`openssl could not make a test certificate: ${made.error?.message ?? made.stderr}`);
  return { certFile, keyFile, cert: readFileSync(certFile), key: readFileSync(keyFile) };
}
