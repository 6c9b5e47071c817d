/**
 * @module http/loopback
 * Whether a host or address is this machine's loopback, shared by the reference peer (which
 * answers `/control` to loopback clients only) and the recording proxy (which forwards `/control`
 * only between loopback ends).
 */
import { isIPv4, isIPv6 } from 'node:net';

/**
 * True for `localhost`, 127.0.0.0/8 and `::1`, in any form a URL hostname or a socket address
 * takes them: `[::1]`, `0:0:0:0:0:0:0:1`, `::ffff:127.0.0.1`, `[::ffff:7f00:1]`. Any other name
 * (even one that resolves to loopback) is not.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const h = host
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (h === 'localhost') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (!isIPv6(h)) return false;
  return (
    h === '::1' ||
    /^(?:0{1,4}:){7}0{0,3}1$/.test(h) ||
    /^(?:(?:0{1,4}:){5}|::)ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
    /^(?:(?:0{1,4}:){5}|::)ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h)
  );
}
