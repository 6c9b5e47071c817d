/**
 * @module replay/substitution
 * Id and token substitution between a recording and a live peer (docs/design.md §8). A live peer mints its
 * own task ids, context ids, resume tokens and artifact ids; replay must send the live ones and
 * report the recorded ones. {@link IdMap} learns recorded↔live pairs by walking a recorded body and
 * the live body answering it in parallel, and rewrites strings in either direction: a string equal
 * to a known id, and a known id inside a string (an error message or status text naming the task)
 * where it stands as a whole token, bounded by characters that cannot be part of an id.
 *
 * Learning looks only at fields {@link isIdField} names: those of {@link ID_FIELDS} and any field
 * whose name says it holds an id or token (`callId`, `toolCallId`, `elicitation_id`,
 * `nextPageToken`), at any depth and in any part kind, so it covers `result.task.id`,
 * `statusUpdate.taskId`, `status.pause.resumeToken`, the legacy `metadata.harn.pause.handle`
 * and a tool call's id inside the DataPart of a confirmation the client's approval echoes.
 * Rewriting replaces any string value equal to a known id, wherever it sits (so
 * `referenceTaskIds[]`, ListTasks filters and an approval's `{callId, outcome}` follow too);
 * object keys are never touched.
 * The first pair learned for a value wins; a later contradicting pair is counted as a conflict and
 * ignored, so a drifting peer cannot scramble ids already in use.
 */
import type { JsonValue } from '../canonical/canonical-json.js';
import { isDefaultSecretJsonKey } from '../recording/redaction.js';
import { isTokenPlaceholder } from '../recording/resume-token.js';

/** Field names whose string values are peer-minted identifiers or tokens. */
export const ID_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'taskId',
  'contextId',
  'messageId',
  'artifactId',
  'resumeToken',
  'handle',
]);

/** A field name ending as an id or token does (`callId`, `elicitationID`, `call_id`, `pageToken`). */
const ID_LIKE_NAME = /^[A-Za-z][A-Za-z0-9]*(?:Id|ID|Token)$|^[A-Za-z][A-Za-z0-9_]*_(?:id|token)$/;

/**
 * Whether the string value of field `key` is a value a peer mints and a client may send back: a
 * name of {@link ID_FIELDS}, or one ending in `Id`, `ID`, `Token`, `_id` or `_token` that does not
 * name a credential (`access_token`, `id_token`: the client's own, redacted in the recording and
 * never mapped to a live value, docs/design.md §5).
 */
export function isIdField(key: string): boolean {
  return ID_FIELDS.has(key) || (ID_LIKE_NAME.test(key) && !isDefaultSecretJsonKey(key));
}

/**
 * Ids shorter than this are mapped only as whole string values: a short id (`1`, `a1`) also
 * occurs as an ordinary word of text (`step 1`), which must not change.
 */
export const MIN_EMBEDDED_ID_LENGTH = 8;

/** Characters an id may continue with: an occurrence bounded by one of them is part of a longer word. */
const ID_CHAR = 'A-Za-z0-9_\\-';
const ONLY_ID_CHARS = new RegExp(`^[${ID_CHAR}]+$`);

/** Whether the UTF-16 code unit `c` is an id character (`A-Za-z0-9_-`). */
function isIdChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/**
 * One direction of an {@link IdMap} (or any map of strings): a string equal to a key becomes its
 * value; in a longer string, each occurrence of a key of at least {@link MIN_EMBEDDED_ID_LENGTH}
 * characters that neither follows nor precedes an id character becomes its value, all in one
 * pass, so a replaced value is never replaced again.
 *
 * The pass reads the string once, left to right, whatever the number of keys: at a position not
 * preceded by an id character, a key holding other characters too (a token placeholder) is looked
 * up by its first character and length, the longest first; otherwise a maximal run of id
 * characters is looked up whole. Its cost does not grow with the ids and tokens learned.
 */
export class StringRewriter {
  readonly whole = new Map<string, string>();
  /** Keys found inside strings, made only of id characters: looked up per run of id characters. */
  readonly #plain = new Map<string, string>();
  /** Keys found inside strings holding other characters too (`a2a-replay:resume-token:…`). */
  readonly #other = new Map<string, string>();
  /** The lengths of the {@link #other} keys by their first code unit, longest first. */
  readonly #otherLengths = new Map<number, number[]>();

  constructor(map?: ReadonlyMap<string, string>) {
    if (map) for (const [from, to] of map) this.set(from, to);
  }

  get size(): number {
    return this.whole.size;
  }

  set(from: string, to: string): void {
    this.whole.set(from, to);
    if (from === to || from.length < MIN_EMBEDDED_ID_LENGTH) return;
    if (ONLY_ID_CHARS.test(from)) {
      this.#plain.set(from, to);
      return;
    }
    this.#other.set(from, to);
    const first = from.charCodeAt(0);
    const lengths = this.#otherLengths.get(first);
    if (lengths === undefined) this.#otherLengths.set(first, [from.length]);
    else if (!lengths.includes(from.length)) {
      lengths.push(from.length);
      lengths.sort((a, b) => b - a);
    }
  }

  /** `value` with the known ids replaced, as a whole value or as tokens inside it. */
  string(value: string): string {
    const whole = this.whole.get(value);
    if (whole !== undefined) return whole;
    if (value.length <= MIN_EMBEDDED_ID_LENGTH || (this.#plain.size === 0 && this.#other.size === 0)) return value;
    const n = value.length;
    let out = '';
    /** Where the text not yet copied to `out` begins. */
    let copied = 0;
    let i = 0;
    while (i < n) {
      const c = value.charCodeAt(i);
      if (i === 0 || !isIdChar(value.charCodeAt(i - 1))) {
        const key = this.#otherAt(value, i);
        if (key !== undefined) {
          out += value.slice(copied, i) + (this.#other.get(key) as string);
          i += key.length;
          copied = i;
          continue;
        }
      }
      if (!isIdChar(c)) {
        i += 1;
        continue;
      }
      let end = i + 1;
      while (end < n && isIdChar(value.charCodeAt(end))) end += 1;
      // Keys inside strings are at least MIN_EMBEDDED_ID_LENGTH long: a shorter run is none.
      if (end - i >= MIN_EMBEDDED_ID_LENGTH && (end - i < n || i > 0)) {
        const to = this.#plain.get(value.slice(i, end));
        if (to !== undefined) {
          out += value.slice(copied, i) + to;
          copied = end;
        }
      }
      i = end;
    }
    return copied === 0 ? value : out + value.slice(copied);
  }

  /** The key with other characters that starts at `i` and ends before a non-id character, the longest first. */
  #otherAt(value: string, i: number): string | undefined {
    if (this.#other.size === 0) return undefined;
    const lengths = this.#otherLengths.get(value.charCodeAt(i));
    if (lengths === undefined) return undefined;
    for (const length of lengths) {
      const end = i + length;
      if (end > value.length || (end < value.length && isIdChar(value.charCodeAt(end)))) continue;
      const key = value.slice(i, end);
      if (this.#other.has(key)) return key;
    }
    return undefined;
  }
}

/** A pair that contradicted an earlier one (kept for the report, never applied). */
export interface IdConflict {
  field: string;
  recorded: string;
  live: string;
  /** The live value already paired with `recorded`, or the recorded value already paired with `live`. */
  existing: string;
}

/** Bidirectional recorded↔live id map. */
export class IdMap {
  readonly #toLive = new StringRewriter();
  readonly #toRecorded = new StringRewriter();
  readonly conflicts: IdConflict[] = [];

  /** Number of learned pairs (identity pairs included). */
  get size(): number {
    return this.#toLive.size;
  }

  /** Number of learned pairs whose live value differs from the recorded one. */
  get remapped(): number {
    let n = 0;
    for (const [recorded, live] of this.#toLive.whole) if (recorded !== live) n++;
    return n;
  }

  /**
   * Number of learned pairs whose live value differs from the recorded one, resume tokens left
   * out: a recording holds every token as a placeholder, so each one always differs.
   */
  get remappedIds(): number {
    let n = 0;
    for (const [recorded, live] of this.#toLive.whole) if (recorded !== live && !isTokenPlaceholder(recorded)) n++;
    return n;
  }

  /** An independent copy (pairs and conflicts), to try a pairing without committing to it. */
  clone(): IdMap {
    const copy = new IdMap();
    for (const [recorded, live] of this.#toLive.whole) copy.#toLive.set(recorded, live);
    for (const [live, recorded] of this.#toRecorded.whole) copy.#toRecorded.set(live, recorded);
    copy.conflicts.push(...this.conflicts);
    return copy;
  }

  /** Records that recorded value `recorded` is called `live` by the live peer. */
  pair(recorded: string, live: string, field = 'id'): void {
    const knownLive = this.#toLive.whole.get(recorded);
    const knownRecorded = this.#toRecorded.whole.get(live);
    if (knownLive === live && knownRecorded === recorded) return;
    if (knownLive !== undefined) {
      this.conflicts.push({ field, recorded, live, existing: knownLive });
      return;
    }
    if (knownRecorded !== undefined) {
      this.conflicts.push({ field, recorded, live, existing: knownRecorded });
      return;
    }
    this.#toLive.set(recorded, live);
    this.#toRecorded.set(live, recorded);
  }

  /**
   * Walks `recorded` and `live` in parallel and pairs the values of the fields {@link isIdField} names. A resume
   * token the walk could not pair because the two answers show the pause in different shapes —
   * the RFC's `pause.resumeToken` on one side, the legacy `metadata.harn.pause.handle` on the
   * other — is paired across the shapes.
   */
  learn(recorded: JsonValue | undefined, live: JsonValue | undefined): void {
    this.#walk(recorded, live);
    // The live body is searched only for a recorded token not paired yet.
    const r = resumeTokenIn(recorded);
    if (r === undefined || this.#toLive.whole.has(r)) return;
    const l = resumeTokenIn(live);
    if (l !== undefined && !this.#toRecorded.whole.has(l)) this.pair(r, l, 'resumeToken');
  }

  #walk(recorded: JsonValue | undefined, live: JsonValue | undefined): void {
    if (recorded === undefined || live === undefined || recorded === null || live === null) return;
    if (Array.isArray(recorded)) {
      if (!Array.isArray(live)) return;
      const n = Math.min(recorded.length, live.length);
      for (let i = 0; i < n; i++) this.#walk(recorded[i], live[i]);
      return;
    }
    if (typeof recorded !== 'object' || typeof live !== 'object' || Array.isArray(live)) return;
    for (const key of Object.keys(recorded)) {
      if (!Object.hasOwn(live, key)) continue;
      const r = recorded[key] as JsonValue;
      const l = live[key];
      if (typeof r === 'string' && typeof l === 'string' && isIdField(key)) this.pair(r, l, key);
      else this.#walk(r, l);
    }
  }

  /** The live value for a recorded one (itself when unknown). */
  liveOf(recorded: string): string {
    return this.#toLive.whole.get(recorded) ?? recorded;
  }

  /** The recorded value for a live one (itself when unknown). */
  recordedOf(live: string): string {
    return this.#toRecorded.whole.get(live) ?? live;
  }

  /** A copy of a recorded body with every known recorded id replaced by its live value. */
  toLive<T extends JsonValue | undefined>(body: T): T {
    return rewrite(body, this.#toLive) as T;
  }

  /**
   * A recorded request target (`/rest/tasks/t-1:pause?x=y`) with the ids it carries in its path
   * segments and query values replaced by their live values: HTTP+JSON names tasks in the path.
   */
  targetToLive(target: string): string {
    if (this.#toLive.size === 0) return target;
    const at = target.indexOf('?');
    const path = at < 0 ? target : target.slice(0, at);
    const livePath = path.replace(/(?<=\/)[^/:]+/g, (segment) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        return segment;
      }
      const live = this.#toLive.whole.get(decoded);
      return live === undefined ? segment : encodeURIComponent(live);
    });
    if (at < 0) return livePath;
    const query = new URLSearchParams(target.slice(at + 1));
    for (const [key, value] of [...query]) {
      const live = this.#toLive.whole.get(value);
      if (live !== undefined) query.set(key, live);
    }
    return `${livePath}?${query.toString()}`;
  }

  /** A copy of a live body with every known live id replaced by its recorded value. */
  toRecorded<T extends JsonValue | undefined>(body: T): T {
    return rewrite(body, this.#toRecorded) as T;
  }

  /**
   * {@link learn} for a recorded answer and the live one to it: of JSON-RPC envelopes, only what
   * they carry (`result`, `error`) is walked, never the envelope's `id`, the call number the
   * client chose: a peer answering with the wrong one must drift, not be "mapped".
   */
  learnAnswer(recorded: JsonValue | undefined, live: JsonValue | undefined): void {
    const r = envelope(recorded);
    const l = envelope(live);
    if (r === undefined || l === undefined) return this.learn(recorded, live);
    this.learn(r.result, l.result);
    this.learn(r.error, l.error);
  }

  /** {@link toRecorded} for a live answer: a JSON-RPC envelope's `id` stays as the peer sent it. */
  answerToRecorded<T extends JsonValue | undefined>(body: T): T {
    const e = envelope(body);
    if (e === undefined) return this.toRecorded(body);
    const out: Obj = { ...e };
    if ('result' in e) out.result = this.toRecorded(e.result) as JsonValue;
    if ('error' in e) out.error = this.toRecorded(e.error) as JsonValue;
    return out as T;
  }
}

/** `value` when it is a JSON-RPC 2.0 envelope (an object whose `jsonrpc` is "2.0"). */
function envelope(value: JsonValue | undefined): Obj | undefined {
  const o = asObj(value);
  return o !== undefined && o.jsonrpc === '2.0' && Object.getPrototypeOf(o) === Object.prototype ? o : undefined;
}

type Obj = { [key: string]: JsonValue };

function asObj(value: JsonValue | undefined): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/**
 * The resume token an answer or event shows, in either shape: a `pause` object's `resumeToken`
 * (RFC) or `metadata.harn.pause.handle` (legacy), the first found walking the value in order.
 */
export function resumeTokenIn(value: JsonValue | undefined): string | undefined {
  const stack: (JsonValue | undefined)[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push(current[i]);
      continue;
    }
    const o = asObj(current);
    if (!o) continue;
    const native = asObj(o.pause)?.resumeToken;
    if (typeof native === 'string') return native;
    const legacy = asObj(asObj(asObj(o.metadata)?.harn)?.pause)?.handle;
    if (typeof legacy === 'string') return legacy;
    const values = Object.values(o);
    for (let i = values.length - 1; i >= 0; i--) stack.push(values[i]);
  }
  return undefined;
}

/**
 * `value` with every string the map knows replaced. Only what changes is copied: an array or
 * object none of whose values changed is returned as it is, which for bodies fresh from
 * `JSON.parse` is the value {@link rewriteCopy} would build. What `rewriteCopy` would not rebuild
 * as the same plain value (an own `__proto__` key, which assignment turns into a prototype, or an
 * object that is not plain) goes through `rewriteCopy` itself.
 */
function rewrite(value: JsonValue | undefined, map: StringRewriter): JsonValue | undefined {
  if (value === undefined || value === null || map.size === 0) return value;
  return rewriteShared(value, map);
}

function rewriteShared(value: JsonValue, map: StringRewriter): JsonValue {
  if (typeof value === 'string') return map.string(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return copyRewritten(value, map) as JsonValue;
    let out: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = value[i] as JsonValue;
      const w = rewriteShared(v, map);
      if (w !== v && out === undefined) out = value.slice(0, i);
      if (out !== undefined) out.push(w);
    }
    return out ?? value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype || Object.hasOwn(value, '__proto__')) {
    return copyRewritten(value, map) as JsonValue;
  }
  const keys = Object.keys(value);
  let out: { [key: string]: JsonValue } | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const v = value[k] as JsonValue;
    const w = rewriteShared(v, map);
    if (w !== v && out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j] as string] = value[keys[j] as string] as JsonValue;
    }
    if (out !== undefined) out[k] = w;
  }
  return out ?? value;
}

/** The rewrite as a full copy: every array and object rebuilt (the reference for {@link rewrite}). */
export function rewriteCopy(value: JsonValue | undefined, map: ReadonlyMap<string, string>): JsonValue | undefined {
  return copyRewritten(value, new StringRewriter(map));
}

function copyRewritten(value: JsonValue | undefined, map: StringRewriter): JsonValue | undefined {
  if (value === undefined || value === null || map.size === 0) return value;
  if (typeof value === 'string') return map.string(value);
  if (Array.isArray(value)) return value.map((v) => copyRewritten(v, map) as JsonValue);
  if (typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = copyRewritten(v, map) as JsonValue;
    return out;
  }
  return value;
}
