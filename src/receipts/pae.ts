/**
 * @module receipts/pae
 * DSSE Pre-Authentication Encoding: the exact bytes every receipt and checkpoint signature covers,
 * so a signature over one payload type can never be replayed as another.
 */

/**
 * `PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths in UTF-8 bytes
 * as ASCII decimal (DSSE protocol spec, "Signature definition").
 */
export function pae(payloadType: string, body: string): Buffer {
  return Buffer.from(paeHeader(payloadType, Buffer.byteLength(body, 'utf8')) + body, 'utf8');
}

/**
 * Everything of `PAE(type, body)` before `body`, as text, for a body of `bodyBytes` UTF-8 bytes:
 * a MAC can then be fed the header and the body in turn, never a copy of both. The UTF-8 of
 * `paeHeader(t, byteLength(b)) + b` is `pae(t, b)`.
 */
export function paeHeader(payloadType: string, bodyBytes: number): string {
  return `DSSEv1 ${Buffer.byteLength(payloadType, 'utf8')} ${payloadType} ${bodyBytes} `;
}
