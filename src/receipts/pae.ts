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
  const type = Buffer.from(payloadType, 'utf8');
  const payload = Buffer.from(body, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'ascii'),
    type,
    Buffer.from(` ${payload.length} `, 'ascii'),
    payload,
  ]);
}
