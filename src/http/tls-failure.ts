/**
 * @module http/tls-failure
 * A TLS failure on the way to an upstream, in user words (docs/design.md §5, §16): a certificate
 * the recorder does not trust, or one for another name, says so and what to do, instead of a
 * bare OpenSSL code. The code is read on the error or on its cause (an HTTP/2 stream cancelled
 * because its session's handshake failed carries the handshake's error as its cause).
 */

/** OpenSSL's verification codes Node reports on a failed handshake, and its own name check. */
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

interface CodedError {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** The certificate failure `error` (or its cause) names, if any. */
function certificateError(error: unknown): { code: string; message: string } | undefined {
  for (let e = error as CodedError | undefined, depth = 0; e !== undefined && e !== null && depth < 3; depth++) {
    if (typeof e.code === 'string' && CERTIFICATE_CODES.has(e.code)) {
      return { code: e.code, message: typeof e.message === 'string' ? e.message : e.code };
    }
    e = typeof e.cause === 'object' ? (e.cause as CodedError) : undefined;
  }
  return undefined;
}

/**
 * Why a TLS connection failed, when a certificate check failed: names the check and the way to
 * trust a private CA; undefined for any other failure.
 */
export function certificateFailure(error: unknown): string | undefined {
  const found = certificateError(error);
  if (found === undefined) return undefined;
  const hint =
    found.code === 'ERR_TLS_CERT_ALTNAME_INVALID'
      ? 'it was issued for another name'
      : 'trust the CA that issued it with --upstream-ca FILE';
  return `TLS: its certificate is not accepted (${found.message}, ${found.code}): ${hint}`;
}
