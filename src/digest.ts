/**
 * @module digest
 * SHA-256 digests by Node's one-shot `crypto.hash` where it exists (Node 20.12 and later: about
 * half the cost of a `createHash` object for a receipt line), else by `createHash`; the digest is
 * the same either way. `package.json` allows Node 20 before 20.12, hence the check.
 */
import * as crypto from 'node:crypto';

/** `crypto.hash` where Node has it, else null. */
export const oneShotHash:
  ((algorithm: string, data: string | Uint8Array, encoding: 'hex' | 'base64url') => string) | null =
  typeof crypto.hash === 'function' ? crypto.hash : null;

/** Hex SHA-256 of `data` (a string as UTF-8). */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShotHash ? oneShotHash('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}
