/**
 * @module recording/entry-line
 * The fast writer of recording lines (docs/design.md §5): the canonical form of an entry, byte
 * for byte what `canonicalJson(entry, { loneSurrogates: 'escape' })` writes, without its generic
 * checks. The entry's own members are written in their fixed RFC 8785 order; headers, bodies and
 * SSE fields (what `JSON.parse` made) by the canonical fast path (`plainCanonical`). Anything that is not plain JSON
 * (another prototype, a symbol key, `undefined`, a non-finite number, a member the format does
 * not have) makes it answer `undefined`, and the caller takes the generic serializer, which then
 * writes or refuses it as before.
 */
import { isPlainObject, plainCanonical, quoted } from '../canonical/canonical-json.js';
import type { RecordingEntry } from './format.js';

/** Whether `key` is a member an entry may have, as the fast writer knows them. */
function entryMember(key: string): boolean {
  switch (key) {
    case 'a2aVersion':
    case 'at':
    case 'body':
    case 'bodyRepaired':
    case 'bodyText':
    case 'cut':
    case 'error':
    case 'http':
    case 'incomplete':
    case 'kind':
    case 'principal':
    case 'seq':
    case 'sse':
    case 'undelivered':
    case 'xid':
      return true;
    default:
      return false;
  }
}

/** Whether `key` is a member an entry's `http` may have. */
function httpMember(key: string): boolean {
  return key === 'headers' || key === 'method' || key === 'path' || key === 'status';
}

/** True when every own key of `value` is one `known` accepts and none is undefined-valued. */
function onlyKnown(value: object, known: (key: string) => boolean): boolean {
  if (!isPlainObject(value)) return false;
  for (const key of Object.keys(value)) {
    if (!known(key) || (value as Record<string, unknown>)[key] === undefined) return false;
  }
  return Object.getOwnPropertySymbols(value).length === 0;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? quoted(value) : undefined;
}

/**
 * The canonical line of `entry` without its newline, or `undefined` when the entry holds anything
 * but plain JSON of the recording format (the generic serializer decides then).
 */
export function entryLine(entry: RecordingEntry): string | undefined {
  if (!onlyKnown(entry, entryMember)) return undefined;
  const http = entry.http as unknown;
  if (typeof http !== 'object' || http === null || !onlyKnown(http, httpMember)) return undefined;
  const { headers, method, path, status } = entry.http;
  const at = text(entry.at);
  const kind = text(entry.kind);
  const xid = text(entry.xid);
  const methodText = text(method);
  const pathText = text(path);
  const seq = plainCanonical(entry.seq, true, 0);
  if (at === undefined || kind === undefined || xid === undefined || seq === undefined) return undefined;
  if (methodText === undefined || pathText === undefined) return undefined;
  let out = '{';
  if (entry.a2aVersion !== undefined) {
    const version = text(entry.a2aVersion);
    if (version === undefined) return undefined;
    out += `"a2aVersion":${version},`;
  }
  out += `"at":${at}`;
  if (entry.body !== undefined) {
    const body = plainCanonical(entry.body, true, 1);
    if (body === undefined) return undefined;
    out += `,"body":${body}`;
  }
  if (entry.bodyRepaired !== undefined) {
    const bodyRepaired = text(entry.bodyRepaired);
    if (bodyRepaired === undefined) return undefined;
    out += `,"bodyRepaired":${bodyRepaired}`;
  }
  if (entry.bodyText !== undefined) {
    const bodyText = text(entry.bodyText);
    if (bodyText === undefined) return undefined;
    out += `,"bodyText":${bodyText}`;
  }
  if (entry.cut !== undefined) {
    const cut = plainCanonical(entry.cut, true, 1);
    if (cut === undefined) return undefined;
    out += `,"cut":${cut}`;
  }
  if (entry.error !== undefined) {
    const error = text(entry.error);
    if (error === undefined) return undefined;
    out += `,"error":${error}`;
  }
  out += ',"http":{';
  if (headers !== undefined) {
    const headersText = plainCanonical(headers, true, 2);
    if (headersText === undefined) return undefined;
    out += `"headers":${headersText},`;
  }
  out += `"method":${methodText},"path":${pathText}`;
  if (status !== undefined) {
    const statusText = plainCanonical(status, true, 2);
    if (statusText === undefined) return undefined;
    out += `,"status":${statusText}`;
  }
  out += '}';
  if (entry.incomplete !== undefined) {
    const incomplete = text(entry.incomplete);
    if (incomplete === undefined) return undefined;
    out += `,"incomplete":${incomplete}`;
  }
  out += `,"kind":${kind}`;
  if (entry.principal !== undefined) {
    const principal = text(entry.principal);
    if (principal === undefined) return undefined;
    out += `,"principal":${principal}`;
  }
  out += `,"seq":${seq}`;
  if (entry.sse !== undefined) {
    const sse = plainCanonical(entry.sse, true, 1);
    if (sse === undefined) return undefined;
    out += `,"sse":${sse}`;
  }
  if (entry.undelivered !== undefined) {
    const undelivered = text(entry.undelivered);
    if (undelivered === undefined) return undefined;
    out += `,"undelivered":${undelivered}`;
  }
  return `${out},"xid":${xid}}`;
}
