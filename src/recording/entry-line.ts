/**
 * @module recording/entry-line
 * The fast writer of recording lines (docs/design.md §5): the canonical form of an entry, byte
 * for byte what `canonicalJson(entry, { loneSurrogates: 'escape' })` writes, without its generic
 * checks. The entry's own members are written in their fixed RFC 8785 order; headers, bodies and
 * SSE fields (what `JSON.parse` made) by a plain recursion. Anything that is not plain JSON
 * (another prototype, a symbol key, `undefined`, a non-finite number, a member the format does
 * not have) makes it answer `undefined`, and the caller takes the generic serializer, which then
 * writes or refuses it as before.
 */
import type { RecordingEntry } from './format.js';

/** Members an entry may have, as the fast writer knows them (in RFC 8785 order). */
const ENTRY_MEMBERS = new Set(['at', 'body', 'bodyText', 'error', 'http', 'kind', 'principal', 'seq', 'sse', 'xid']);
const HTTP_MEMBERS = new Set(['headers', 'method', 'path', 'status']);

/** Nesting past this is left to the generic serializer (it walks without the call stack). */
const MAX_DEPTH = 64;

/** A plain object, as `JSON.parse` makes (or one without a prototype). */
function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The canonical text of plain JSON, or undefined for anything else (see module doc). */
function plain(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      // JSON.stringify escapes as RFC 8785 §3.2.2.2 wants, and a lone surrogate as \udxxx.
      return JSON.stringify(value);
    case 'number':
      // Number::toString is the RFC 8785 number form; String(-0) is "0".
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH) return undefined;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item = plain(value[i], depth + 1);
          if (item === undefined) return undefined;
          out += i === 0 ? item : `,${item}`;
        }
        return `${out}]`;
      }
      if (!isPlain(value)) return undefined;
      if (Object.getOwnPropertySymbols(value).length > 0) return undefined;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      // The default sort compares UTF-16 code units: the RFC 8785 §3.2.3 member order.
      if (keys.length > 1) keys.sort();
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        const member = plain(record[key], depth + 1);
        if (member === undefined) return undefined;
        out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${member}`;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

/** True when every own key of `value` is one of `known` and none is undefined-valued. */
function onlyKnown(value: object, known: ReadonlySet<string>): boolean {
  if (!isPlain(value)) return false;
  for (const key of Object.keys(value)) {
    if (!known.has(key) || (value as Record<string, unknown>)[key] === undefined) return false;
  }
  return Object.getOwnPropertySymbols(value).length === 0;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? JSON.stringify(value) : undefined;
}

/**
 * The canonical line of `entry` without its newline, or `undefined` when the entry holds anything
 * but plain JSON of the recording format (the generic serializer decides then).
 */
export function entryLine(entry: RecordingEntry): string | undefined {
  if (!onlyKnown(entry, ENTRY_MEMBERS)) return undefined;
  const http = entry.http as unknown;
  if (typeof http !== 'object' || http === null || !onlyKnown(http, HTTP_MEMBERS)) return undefined;
  const { headers, method, path, status } = entry.http;
  const at = text(entry.at);
  const kind = text(entry.kind);
  const xid = text(entry.xid);
  const methodText = text(method);
  const pathText = text(path);
  const seq = plain(entry.seq, 0);
  if (at === undefined || kind === undefined || xid === undefined || seq === undefined) return undefined;
  if (methodText === undefined || pathText === undefined) return undefined;
  let out = `{"at":${at}`;
  if (entry.body !== undefined) {
    const body = plain(entry.body, 1);
    if (body === undefined) return undefined;
    out += `,"body":${body}`;
  }
  if (entry.bodyText !== undefined) {
    const bodyText = text(entry.bodyText);
    if (bodyText === undefined) return undefined;
    out += `,"bodyText":${bodyText}`;
  }
  if (entry.error !== undefined) {
    const error = text(entry.error);
    if (error === undefined) return undefined;
    out += `,"error":${error}`;
  }
  out += ',"http":{';
  if (headers !== undefined) {
    const headersText = plain(headers, 2);
    if (headersText === undefined) return undefined;
    out += `"headers":${headersText},`;
  }
  out += `"method":${methodText},"path":${pathText}`;
  if (status !== undefined) {
    const statusText = plain(status, 2);
    if (statusText === undefined) return undefined;
    out += `,"status":${statusText}`;
  }
  out += `},"kind":${kind}`;
  if (entry.principal !== undefined) {
    const principal = text(entry.principal);
    if (principal === undefined) return undefined;
    out += `,"principal":${principal}`;
  }
  out += `,"seq":${seq}`;
  if (entry.sse !== undefined) {
    const sse = plain(entry.sse, 1);
    if (sse === undefined) return undefined;
    out += `,"sse":${sse}`;
  }
  return `${out},"xid":${xid}}`;
}
