/**
 * A seeded corpus of planted credentials for the secrets tests: the names the default rule set
 * names (docs/design.md §5, "Secrets by rule") and new ones generated in the same families, each
 * with a value of its own, unique and high-entropy enough to grep for.
 */

/** A small seeded generator (mulberry32): the same seed gives the same corpus. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One planted credential: where it travels, under which name, and its value. */
export interface Planted {
  place: string;
  name: string;
  value: string;
}

const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Plants values and remembers every one, so every file written can be searched for all of them. */
export class Corpus {
  readonly planted: Planted[] = [];
  readonly #random: () => number;
  #n = 0;

  constructor(seed: number) {
    this.#random = seeded(seed);
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)]!;
  }

  /** A fresh value for `name` at `place`: `pv<n>` and 14 random characters. */
  value(place: string, name: string): string {
    let text = `pv${++this.#n}`;
    for (let i = 0; i < 14; i++) text += ALPHABET[Math.floor(this.#random() * ALPHABET.length)];
    this.planted.push({ place, name, value: text });
    return text;
  }

  /** The same value planted again elsewhere (equal values must get equal marks). */
  again(place: string, name: string, value: string): string {
    this.planted.push({ place, name, value });
    return value;
  }

  /** Every planted value that occurs in `text`. */
  found(text: string): Planted[] {
    return this.planted.filter((p) => text.includes(p.value));
  }
}

const HEADER_FAMILIES = [
  'auth',
  'token',
  'secret',
  'key',
  'cookie',
  'session',
  'signature',
  'password',
  'otp',
  'pin',
  'csrf',
  'hmac',
  'bearer',
  'pat',
  'dpop',
  'principal',
  'bypass',
];
const PREFIXES = ['x', 'x-edge', 'cf', 'x-gw', 'x-svc'];
const SUFFIXES = ['', '-value', '-v2', '-data'];

/** The header names, then `count` generated ones in the same families. */
export function headerNames(corpus: Corpus, count: number): string[] {
  const names = [
    'DPoP',
    'X-Vercel-Protection-Bypass',
    'X-Ms-Client-Principal',
    'X-Otp',
    'X-Pin',
    'X-Csrf',
    'X-Hmac',
    'X-Bearer',
    'X-Pat',
    'X-Auth-Token',
    'X-Functions-Key',
  ];
  while (names.length < 11 + count) {
    const name = `${corpus.pick(PREFIXES)}-${corpus.pick(HEADER_FAMILIES)}${corpus.pick(SUFFIXES)}`;
    if (!names.some((n) => n.toLowerCase() === name)) names.push(name);
  }
  return names;
}

/** The query names, then generated ones in the same families. */
export function queryNames(corpus: Corpus, count: number): string[] {
  const names = [
    'otp',
    'pin',
    'sid',
    'PHPSESSID',
    'ticket',
    'nonce',
    'state',
    'hmac',
    'passphrase',
    'refresh',
    'code',
    'access_token',
    'api_key',
    'X-Amz-Signature',
    'X-Amz-Credential',
    'X-Goog-Signature',
    'sig',
    'se',
  ];
  const families = ['token', 'secret', 'key', 'session', 'signature', 'password', 'otp', 'hmac', 'nonce', 'ticket'];
  while (names.length < 18 + count) {
    const name = `${corpus.pick(['id', 'client', 'upload', 'share', 'dl'])}_${corpus.pick(families)}`;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** The JSON member names, then generated ones (snake and camel case) in the same families. */
export function jsonKeys(corpus: Corpus, count: number): string[] {
  const names = [
    'api_key',
    'access_token',
    'client_secret',
    'password',
    'refresh_token',
    'private_key',
    'apiKey',
    'sessionToken',
    'id_token',
    'credentials',
  ];
  const families = ['key', 'token', 'secret', 'password', 'credential', 'signature', 'cookie', 'otp', 'pin', 'hmac'];
  while (names.length < 10 + count) {
    const word = corpus.pick(['upstream', 'signing', 'webhook', 'db', 'service', 'user']);
    const family = corpus.pick(families);
    const name = corpus.pick([true, false])
      ? `${word}_${family}`
      : `${word}${family[0]!.toUpperCase()}${family.slice(1)}`;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** URL-valued headers that carry credentials in their query or user-info. */
export const URL_HEADERS = [
  'Referer',
  'Origin',
  'Location',
  'Link',
  'Refresh',
  'X-Original-URL',
  'X-Forwarded-Uri',
  'Forwarded',
];

/** A URL holding `user:pass@` and a credential query parameter, in the shape `header` carries it. */
export function urlValue(header: string, base: string, userInfo: string, query: string): string {
  const url = `https://${userInfo}@${base}/cb?${query}&lang=en`;
  switch (header) {
    case 'Link':
      return `<${url}>; rel="next"`;
    case 'Refresh':
      return `5; url=${url}`;
    case 'Forwarded':
      return `for=192.0.2.60;proto=https;by=${url}`;
    case 'Origin':
      return `https://${userInfo}@${base}?${query}`;
    default:
      return url;
  }
}
